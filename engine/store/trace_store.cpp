#include "engine/store/trace_store.h"

#include <algorithm>

#include "engine/error.h"

namespace heapql {

std::string_view block_identity_name(BlockIdentity identity) {
  return identity == BlockIdentity::kExact ? "exact" : "bucket-lifo";
}

void TraceStore::Builder::note_time(std::uint64_t seq, std::int64_t ns) {
  if (seq >= kMaxEvents) throw Error("trace has more than 2^31-1 allocation and free events, the store's limit");
  auto& changes = store_.time_changes_;
  if (changes.empty() || changes.back().ns != ns) changes.push_back(TimeChange{static_cast<std::uint32_t>(seq), ns});
  store_.event_count_ = seq + 1;
}

void TraceStore::Builder::on_alloc(const LiveBlock& block) {
  note_time(block.alloc_seq, block.alloc_ns);
  store_.bucket_.push_back(block.bucket.value);
  store_.alloc_seq_.push_back(static_cast<std::uint32_t>(block.alloc_seq));
  store_.free_seq_.push_back(kNeverFreed);
}

void TraceStore::Builder::on_free(const LiveBlock& block, std::uint64_t free_seq, std::int64_t free_ns,
                                  bool temporary) {
  note_time(free_seq, free_ns);
  store_.free_seq_[block.id.index()] = static_cast<std::uint32_t>(free_seq) | (temporary ? kTemporaryBit : 0u);
  store_.free_order_.push_back(block.id.value);
}

void TraceStore::Builder::on_finish(std::int64_t end_ns) {
  store_.end_ns_ = end_ns;
  store_.bucket_.shrink_to_fit();
  store_.alloc_seq_.shrink_to_fit();
  store_.free_seq_.shrink_to_fit();
  store_.free_order_.shrink_to_fit();
  store_.time_changes_.shrink_to_fit();
}

std::int64_t TraceStore::time_of(std::uint32_t seq) const {
  auto it = std::upper_bound(time_changes_.begin(), time_changes_.end(), seq,
                             [](std::uint32_t s, const TimeChange& c) { return s < c.first_seq; });
  return it == time_changes_.begin() ? 0 : std::prev(it)->ns;
}

void TraceStore::replay(EventConsumer& consumer) const {
  const std::size_t blocks = bucket_.size();
  std::size_t next_alloc = 0;
  std::size_t next_free = 0;
  std::size_t next_change = 0;
  std::int64_t now = 0;
  for (std::uint64_t seq = 0; seq < event_count_; ++seq) {
    while (next_change < time_changes_.size() && time_changes_[next_change].first_seq <= seq) {
      now = time_changes_[next_change++].ns;
    }
    if (next_alloc < blocks && alloc_seq_[next_alloc] == seq) {
      const auto i = static_cast<std::uint32_t>(next_alloc++);
      consumer.on_alloc(LiveBlock{BlockId(i), BucketId(bucket_[i]), seq, now});
      continue;
    }
    if (next_free >= free_order_.size()) throw Error("store is inconsistent: event without a block");
    const std::uint32_t i = free_order_[next_free++];
    const std::uint32_t free_word = free_seq_[i];
    const std::uint32_t alloc_seq = alloc_seq_[i];
    consumer.on_free(LiveBlock{BlockId(i), BucketId(bucket_[i]), alloc_seq, time_of(alloc_seq)}, seq, now,
                     (free_word & kTemporaryBit) != 0);
  }
  for (std::size_t i = 0; i < blocks; ++i) {
    if (free_seq_[i] != kNeverFreed) continue;
    consumer.on_still_alive(
        LiveBlock{BlockId(static_cast<std::uint32_t>(i)), BucketId(bucket_[i]), alloc_seq_[i], time_of(alloc_seq_[i])});
  }
  consumer.on_finish(end_ns_);
}

std::size_t TraceStore::column_bytes() const {
  return (bucket_.capacity() + alloc_seq_.capacity() + free_seq_.capacity() + free_order_.capacity()) *
             sizeof(std::uint32_t) +
         time_changes_.capacity() * sizeof(TimeChange);
}

std::size_t TraceStore::memory_bytes() const { return column_bytes() + tables_.memory_bytes(); }

}  // namespace heapql
