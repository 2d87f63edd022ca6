#include "engine/store/trace_store.h"

#include <algorithm>

#include "engine/error.h"

namespace heapql {

std::string_view block_identity_name(BlockIdentity identity) {
  return identity == BlockIdentity::kExact ? "exact" : "bucket-lifo";
}

TraceStore::TraceStore(TraceTables tables, SourceInfo source, StoreColumns columns,
                       std::shared_ptr<const void> owner, std::function<void()> check_blocks)
    : tables_(std::move(tables)),
      source_(std::move(source)),
      owner_(std::move(owner)),
      check_blocks_(std::move(check_blocks)),
      columns_(columns) {}

TraceStore::Builder::Builder(TraceStore& store)
    : store_(store),
      columns_(store.tables_, store.owned_.bucket, store.owned_.alloc_seq, store.owned_.free_order,
               store.owned_.time_changes) {}

void TraceStore::Builder::on_finish(std::int64_t end_ns) {
  columns_.on_finish(end_ns);
  OwnedColumns& owned = store_.owned_;
  owned.bucket.shrink_to_fit();
  owned.alloc_seq.shrink_to_fit();
  owned.free_order.shrink_to_fit();
  owned.time_changes.shrink_to_fit();
  owned.bucket_sums.reserve(columns_.bucket_sum_count());
  columns_.bucket_sums(owned.bucket_sums);
  store_.columns_ = StoreColumns{owned.bucket,      owned.alloc_seq,   owned.free_order,      owned.time_changes,
                                 owned.bucket_sums, columns_.peak(),   columns_.event_count(), columns_.end_ns()};
}

namespace {

// The time of any event, by binary search (frees look up their block's allocation).
std::int64_t time_of(std::span<const TimeChange> changes, std::uint32_t seq) {
  auto it = std::upper_bound(changes.begin(), changes.end(), seq,
                             [](std::uint32_t s, const TimeChange& c) { return s < c.first_seq; });
  return it == changes.begin() ? 0 : std::prev(it)->ns;
}

[[noreturn]] void inconsistent(const char* what) { throw Error(std::string("store is inconsistent: ") + what); }

}  // namespace

void TraceStore::replay(EventConsumer& consumer, std::int64_t until_ns) const {
  if (check_blocks_) std::call_once(*blocks_checked_, check_blocks_);
  const StoreColumns& c = columns_;
  // The cut: the first event at or after until_ns (times never decrease;
  // events before the first time change are at 0).
  std::uint64_t cut = c.event_count;
  if (until_ns <= 0) {
    cut = 0;
  } else if (until_ns != kNeverNs) {
    const auto at = std::lower_bound(c.time_changes.begin(), c.time_changes.end(), until_ns,
                                     [](const TimeChange& change, std::int64_t ns) { return change.ns < ns; });
    if (at != c.time_changes.end()) cut = std::min<std::uint64_t>(at->first_seq, c.event_count);
  }
  const std::size_t blocks = c.block_count();
  const std::size_t buckets = tables_.bucket_count();
  if (c.alloc_seq.size() != blocks) inconsistent("the bucket and allocation columns differ in length");
  if (c.event_count != blocks + c.free_order.size()) inconsistent("events are not allocations plus frees");
  // Which blocks are freed: a bit each, to refuse a block freed twice and to
  // find those still alive at the end.
  std::vector<std::uint64_t> freed((blocks + 63) / 64, 0);
  const auto is_freed = [&](std::size_t i) { return (freed[i / 64] & (std::uint64_t{1} << (i % 64))) != 0; };
  const auto mark_freed = [&](std::uint32_t i) {
    if (is_freed(i)) inconsistent("a block freed twice");
    freed[i / 64] |= std::uint64_t{1} << (i % 64);
  };
  // A block as its allocation left it (frees and the end look it up by id).
  const auto block_at = [&](std::size_t i) {
    const std::uint32_t alloc_seq = c.alloc_seq[i];
    return LiveBlock{BlockId(static_cast<std::uint32_t>(i)), BucketId(c.bucket[i]), alloc_seq,
                     time_of(c.time_changes, alloc_seq)};
  };
  std::size_t next_alloc = 0;
  std::size_t next_free = 0;
  std::size_t next_change = 0;
  std::int64_t now = 0;
  for (std::uint64_t seq = 0; seq < cut; ++seq) {
    while (next_change < c.time_changes.size() && c.time_changes[next_change].first_seq <= seq) {
      now = c.time_changes[next_change++].ns;
    }
    if (next_alloc < blocks && c.alloc_seq[next_alloc] == seq) {
      const auto i = static_cast<std::uint32_t>(next_alloc++);
      if (c.bucket[i] >= buckets) inconsistent("a block's bucket is not in the bucket table");
      consumer.on_alloc(LiveBlock{BlockId(i), BucketId(c.bucket[i]), seq, now});
      continue;
    }
    if (next_free >= c.free_order.size()) inconsistent("an event is neither an allocation nor a free");
    const std::uint32_t word = c.free_order[next_free++];
    const std::uint32_t i = word & StoreColumns::kBlockMask;
    if (i >= next_alloc) inconsistent("a free of a block not yet allocated");
    mark_freed(i);
    consumer.on_free(block_at(i), seq, now, (word & StoreColumns::kTemporaryBit) != 0);
  }
  if (cut == c.event_count && next_alloc != blocks) inconsistent("allocation sequence numbers are not ascending");
  if (cut < c.event_count) {
    for (std::size_t f = next_free; f < c.free_order.size(); ++f) {
      const std::uint32_t word = c.free_order[f];
      if ((word & StoreColumns::kTemporaryBit) == 0) continue;
      const std::uint32_t i = word & StoreColumns::kBlockMask;
      if (i >= blocks) inconsistent("a free of a block that does not exist");
      if (i >= next_alloc) continue;  // allocated after the cut too
      mark_freed(i);
      consumer.on_free(block_at(i), cut, until_ns, true);
    }
  }
  for (std::size_t i = 0; i < next_alloc; ++i) {
    if (!is_freed(i)) consumer.on_still_alive(block_at(i));
  }
  consumer.on_finish(c.end_ns);
}

}  // namespace heapql
