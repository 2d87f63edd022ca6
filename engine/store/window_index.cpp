// A store's window index (window_index.h): one pass over its events.
#include "engine/store/window_index.h"

#include <algorithm>
#include <string>

#include "engine/error.h"
#include "engine/util/prefetch_hint.h"

namespace heapql {

namespace {

[[noreturn]] void inconsistent(const char* what) { throw Error(std::string("store is inconsistent: ") + what); }

// Levels past this are left to the replay, which refuses them with its own error.
constexpr std::uint64_t kMaxLevelBytes = std::uint64_t{1} << 62;

}  // namespace

WindowIndex::WindowIndex(const TraceTables& tables, const StoreColumns& columns)
    : columns_(columns), events_(columns.event_count) {
  const StoreColumns& c = columns_;
  const std::size_t blocks = c.block_count();
  const std::size_t buckets = tables.bucket_count();
  if (c.alloc_seq.size() != blocks) inconsistent("the bucket and allocation columns differ in length");
  if (c.event_count != blocks + c.free_order.size()) inconsistent("events are not allocations plus frees");
  block_ends_.assign(blocks, kNeverFreed);
  bool levels = c.time_changes.size() <= kMaxRuns;
  if (levels) runs_.reserve(c.time_changes.size() + 1);
  std::uint64_t level_bytes = 0, level_blocks = 0;
  std::size_t next_alloc = 0, next_free = 0, next_change = 0;
  std::int64_t now = 0;
  // A free's block is a random read in the bucket column, its size one in
  // the bucket table: both fetched some frees ahead.
  constexpr std::size_t kAhead = 16;
  PackedReader alloc_seqs(c.alloc_seq), alloc_buckets(c.bucket), buckets_ahead(c.bucket), free_order(c.free_order),
      free_order_ahead(c.free_order);
  for (std::uint64_t seq = 0; seq < c.event_count; ++seq) {
    bool new_run = seq == 0;
    while (next_change < c.time_changes.size() && c.time_changes[next_change].first_seq <= seq) {
      now = c.time_changes[next_change++].ns;
      new_run = true;
    }
    if (levels && new_run) {
      runs_.push_back(LevelRun{seq, now, level_bytes, level_blocks, 0, level_blocks});
    }
    std::uint64_t size;
    if (next_alloc < blocks && alloc_seqs[next_alloc] == seq) {
      const std::uint32_t bucket = alloc_buckets[next_alloc];
      if (bucket >= buckets) inconsistent("a block's bucket is not in the bucket table");
      if (next_alloc + kAhead < blocks) {
        const std::uint32_t ahead = buckets_ahead[next_alloc + kAhead];
        if (ahead < buckets) prefetch_hint(&tables.bucket(BucketId(ahead)));
      }
      ++next_alloc;
      size = tables.bucket(BucketId(bucket)).size;
      level_bytes += size;
      ++level_blocks;
    } else {
      if (next_free >= c.free_order.size()) inconsistent("an event is neither an allocation nor a free");
      if (next_free + kAhead < c.free_order.size()) {
        const std::uint32_t ahead = free_order_ahead[next_free + kAhead] & StoreColumns::kBlockMask;
        if (ahead < blocks) prefetch_hint(c.bucket.bits_address(ahead));
      }
      const std::uint32_t word = free_order[next_free];
      const std::uint32_t i = word & StoreColumns::kBlockMask;
      if (i >= next_alloc) inconsistent("a free of a block not yet allocated");
      if (block_ends_[i] != kNeverFreed) inconsistent("a block freed twice");
      block_ends_[i] = static_cast<std::uint32_t>(next_free) | (word & StoreColumns::kTemporaryBit);
      ++next_free;
      size = tables.bucket(BucketId(c.bucket[i])).size;
      level_bytes -= size;
      --level_blocks;
    }
    if (!levels) continue;
    if (level_bytes > kMaxLevelBytes) {
      levels = false;
      runs_ = {};
      continue;
    }
    LevelRun& run = runs_.back();
    // The first event of a run sets its maximum; a later one only by passing it.
    if (level_bytes > run.max_bytes || seq == run.first_seq) {
      run.max_bytes = level_bytes;
      run.blocks_at_max = level_blocks;
    }
    run.bytes_after = level_bytes;
    run.blocks_after = level_blocks;
  }
  if (next_alloc != blocks || next_free != c.free_order.size()) {
    inconsistent("allocation sequence numbers are not ascending");
  }
  if (!levels) runs_ = {};
}

std::uint64_t WindowIndex::first_event_at(std::int64_t ns) const {
  // As TraceStore::replay finds it (times never decrease; events before the
  // first time change are at 0).
  const StoreColumns& c = columns_;
  if (ns <= 0) return 0;
  if (ns == kNeverNs) return c.event_count;
  const auto at = std::lower_bound(c.time_changes.begin(), c.time_changes.end(), ns,
                                   [](const TimeChange& change, std::int64_t t) { return change.ns < t; });
  return at == c.time_changes.end() ? c.event_count : std::min<std::uint64_t>(at->first_seq, c.event_count);
}

std::size_t WindowIndex::allocs_before(std::uint64_t seq) const {
  const StoreColumns& c = columns_;
  return c.alloc_seq.lower_bound(seq);
}

std::size_t WindowIndex::run_at(std::uint64_t seq) const {
  return static_cast<std::size_t>(
      std::lower_bound(runs_.begin(), runs_.end(), seq,
                       [](const LevelRun& run, std::uint64_t s) { return run.first_seq < s; }) -
      runs_.begin());
}

}  // namespace heapql
