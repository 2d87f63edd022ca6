// The store's per-block columns and the builder that turns an event stream
// into them. Every column only ever grows at its end, so the builder can feed
// vectors in memory or files on disk (store_file/) alike, and ingest needs no
// memory per block.
//
// Per block, in allocation order: its bucket and its allocation's event
// sequence number. Per free, in trace order: the freed block's id, with
// kTemporaryBit set when the free was temporary (semantics.md §8). The events
// are these two streams merged: a sequence number that is no allocation's is
// the next free's, so no free time needs storing. Each column is packed in
// blocks of 64 values (packed_column.h): about 4 bytes a freed block on the
// bench traces, where unpacked u32s took 12 (docs/store-format.md).
#pragma once

#include <cstddef>
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/util/chunked_vector.h"
#include "engine/util/prefetch_hint.h"
#include "engine/store/bucket_sum_list.h"
#include "engine/store/bucket_sums_so_far.h"
#include "engine/store/events.h"
#include "engine/store/packed_column.h"
#include "engine/store/store_events.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// From this event on (first_seq), the time is ns. 16 bytes: also the layout on disk.
struct TimeChange {
  std::uint32_t first_seq = 0;
  std::uint32_t reserved = 0;
  std::int64_t ns = 0;
};
static_assert(sizeof(TimeChange) == 16);

// The blocks alive before event `seq`, listed so that a windowed query can
// start there instead of counting every event before its window
// (docs/store.md, "Live checkpoints"): ids[first, first + count) of the
// checkpoint ids, ascending. 24 bytes: also the layout on disk.
struct LiveCheckpoint {
  std::uint64_t seq = 0;
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};
static_assert(sizeof(LiveCheckpoint) == 24);

// The largest outstanding size of the whole trace and when it was first
// reached, counted as the aggregator counts a query's peak (semantics.md §8).
struct TracePeak {
  std::uint64_t bytes = 0;
  std::uint64_t blocks = 0;
  std::int64_t time_ns = 0;
};

struct StoreColumns {
  static constexpr std::uint32_t kTemporaryBit = 0x80000000u;
  static constexpr std::uint32_t kBlockMask = kTemporaryBit - 1;
  static constexpr std::uint64_t kMaxBlocks = kBlockMask;    // block ids fit beside the temporary bit
  static constexpr std::uint64_t kMaxEvents = 0xFFFFFFFFull;  // sequence numbers fit 32 bits

  // Each value as it was, packed (packed_column.h); the frees column with
  // kFreeRotation.
  static constexpr unsigned kFreeRotation = 1;
  PackedColumn bucket;      // per block
  PackedColumn alloc_seq;   // per block, ascending
  PackedColumn free_order;  // per free: block id | kTemporaryBit
  std::span<const TimeChange> time_changes;   // first_seq ascending
  BucketSumList bucket_sums;                  // buckets with blocks, in order of their first allocation
  TracePeak peak;
  std::uint64_t event_count = 0;
  std::int64_t end_ns = 0;
  std::span<const LiveCheckpoint> checkpoints;    // seq ascending
  PackedColumn checkpoint_ids;                    // their live blocks, packed
  // A store file may hold its blocks as the trace's events instead
  // (store_events.h): then the three block columns above are made from
  // them when first read (TraceStore::columns()), and a replay for bucket
  // runs reads the events themselves.
  bool has_events = false;
  StoreEvents events;
  bool has_live_counts = false;
  StoreLiveCounts live_counts;
  std::string live_counts_unreadable;  // what is wrong with a live counts section that does not fit

  std::size_t block_count() const { return has_events ? events.allocation_count() : bucket.size(); }
  std::size_t free_count() const {
    return has_events ? events.event_count() - events.allocation_count() : free_order.size();
  }
  // A store file may leave the bucket sums out (an accelerator); every trace
  // with events has some.
  bool has_bucket_sums() const { return !bucket_sums.empty() || event_count == 0; }
  std::size_t bytes() const {
    return (has_events ? events.bytes() : bucket.bytes() + alloc_seq.bytes() + free_order.bytes()) +
           time_changes.size() * sizeof(TimeChange);
  }
};

// When the column builder lists the live blocks (LiveCheckpoint): every
// `spacing` events at first (the spacing doubles as they fill up), and only
// when few blocks are alive, unless `any_size` (tests).
struct CheckpointRule {
  std::uint64_t spacing = std::uint64_t{1} << 20;
  bool any_size = false;
};

// Fills columns from the event stream. `Column` has push_back(std::uint32_t)
// (a PackedColumnWriter, or a vector in tests),
// `TimeColumn` push_back(TimeChange). Keeps the bucket sums and the trace's
// peak on the way (memory per bucket); `tables` gives the bucket sizes.
template <class Column, class TimeColumn>
class ColumnBuilder final : public EventConsumer, public BucketSumsSoFar {
 public:
  ColumnBuilder(const TraceTables& tables, Column& bucket, Column& alloc_seq, Column& free_order,
                TimeColumn& time_changes, CheckpointRule checkpoints = {})
      : tables_(tables), bucket_(bucket), alloc_seq_(alloc_seq), free_order_(free_order),
        time_changes_(time_changes), checkpoint_rule_(checkpoints),
        checkpoint_spacing_(std::max<std::uint64_t>(1, checkpoints.spacing)), next_checkpoint_(checkpoint_spacing_) {}

  void on_alloc(const LiveBlock& block) override {
    if (block.id.value != block_count_ || block_count_ >= StoreColumns::kMaxBlocks) {
      throw Error("trace has more than 2^31-1 blocks, the store's limit");
    }
    note_time(block.alloc_seq, block.alloc_ns);
    if (block_count_ % 64 == 0) live_bits_.push_back(0);
    live_bits_[block_count_ / 64] |= std::uint64_t{1} << (block_count_ % 64);
    ++live_count_;
    bucket_.push_back(block.bucket.value);
    alloc_seq_.push_back(static_cast<std::uint32_t>(block.alloc_seq));
    ++block_count_;
    BucketCounts& counts = sized_counts_of(block.bucket);
    if (counts.allocs == 0) note_first_allocation(block.bucket.value);
    level_change(counts, true, block.alloc_ns);
    ++counts.allocs;
  }
  void on_free(const LiveBlock& block, std::uint64_t free_seq, std::int64_t free_ns, bool temporary) override {
    note_time(free_seq, free_ns);
    free_order_.push_back(block.id.value | (temporary ? StoreColumns::kTemporaryBit : 0u));
    if (block.id.value < block_count_) {
      live_bits_[block.id.value / 64] &= ~(std::uint64_t{1} << (block.id.value % 64));
      --live_count_;
    }
    BucketCounts& counts = sized_counts_of(block.bucket);
    level_change(counts, false, free_ns);
    ++counts.frees;
    if (temporary) ++counts.temporary_frees;
  }
  void on_still_alive(const LiveBlock&) override {}
  void prefetch_bucket(BucketId bucket) const override {
    if (bucket.index() < counts_.size()) prefetch_hint(&counts_[bucket.index()]);
  }
  void on_finish(std::int64_t end_ns) override {
    end_ns_ = end_ns;
    if (!peak_seen_) peak_seen_ = true;  // no event: the peak is nothing, at 0
  }

  std::uint64_t block_count() const { return block_count_; }
  std::uint64_t event_count() const { return event_count_; }
  std::int64_t end_ns() const { return end_ns_; }
  const TracePeak& peak() const { return peak_; }
  // Once the trace is read: the bucket sums in order of first allocation,
  // made a chunk at a time from the builder's own counts.
  template <class F>
  void each_bucket_sum_chunk(F&& chunk) const {
    constexpr std::size_t kChunk = std::size_t{1} << 16;
    std::vector<BucketSum> sums;
    const std::size_t count = in_id_order_ + first_allocated_.size();
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t bucket = i < in_id_order_ ? static_cast<std::uint32_t>(i) : first_allocated_[i - in_id_order_];
      const BucketCounts& counts = counts_[bucket];
      const std::uint32_t alive = counts.peak_epoch == epoch_ ? counts.live_at_peak : counts.allocs - counts.frees;
      sums.push_back(BucketSum{bucket, alive, counts.allocs, counts.frees, counts.temporary_frees});
      if (sums.size() == kChunk) {
        chunk(std::span<const BucketSum>(sums));
        sums.clear();
      }
    }
    if (!sums.empty()) chunk(std::span<const BucketSum>(sums));
  }
  std::size_t bucket_sum_count() const { return in_id_order_ + first_allocated_.size(); }
  // Frees the per-bucket and per-block state (the sums go with it), so that
  // what comes next (the store's stack view) has that memory.
  void release_bucket_state() {
    counts_ = {};
    in_id_order_ = 0;
    first_allocated_ = {};
    live_bits_ = {};
  }
  std::vector<BucketSum> take_bucket_sums() {
    std::vector<BucketSum> sums;
    sums.reserve(bucket_sum_count());
    each_bucket_sum_chunk([&](std::span<const BucketSum> chunk) { sums.insert(sums.end(), chunk.begin(), chunk.end()); });
    release_bucket_state();
    return sums;
  }
  // BucketSumsSoFar: the sums each_bucket_sum_chunk would give now.
  std::size_t buckets_allocated() const override { return bucket_sum_count(); }
  std::uint32_t bucket_allocated(std::size_t i) const override {
    return i < in_id_order_ ? static_cast<std::uint32_t>(i) : first_allocated_[i - in_id_order_];
  }
  BucketSum sum_now(std::uint32_t bucket) const override {
    if (bucket >= counts_.size()) return BucketSum{bucket, 0, 0, 0, 0};
    const BucketCounts& counts = counts_[bucket];
    const std::uint32_t alive = counts.peak_epoch == epoch_ ? counts.live_at_peak : counts.allocs - counts.frees;
    return BucketSum{bucket, alive, counts.allocs, counts.frees, counts.temporary_frees};
  }
  TracePeak peak_now() const override { return peak_; }
  std::uint32_t peak_epoch() const override { return epoch_; }
  // A bucket untouched since `epoch` said its count at the peak was the one
  // it saved then (peak_epoch == epoch) or its live count (else); once the
  // peak has moved on it is its live count.
  void each_untouched_whose_peak_count_moved(std::uint32_t epoch,
                                             const std::function<void(std::uint32_t)>& changed) const override {
    if (epoch == epoch_) return;
    for (std::size_t b = 0; b < counts_.size(); ++b) {
      const BucketCounts& counts = counts_[b];
      if (counts.peak_epoch == epoch && counts.live_at_peak != counts.allocs - counts.frees) {
        changed(static_cast<std::uint32_t>(b));
      }
    }
  }
  const std::vector<LiveCheckpoint>& checkpoints() const { return checkpoints_; }
  const std::vector<std::uint32_t>& checkpoint_ids() const { return checkpoint_ids_; }

 private:
  // A bucket's blocks while the trace is read: counts fit 32 bits, as a
  // store holds fewer than 2^31 blocks. Beside them, its live blocks as they
  // were at the latest peak, saved lazily (before its first change after
  // that peak) as the aggregator saves them, and its size, copied from the
  // tables at its first event. 32 bytes, and ChunkedVector's chunks start
  // on a cache line: an event reads one line of the builder's, at random
  // once a trace has more buckets than the cache holds (20 bytes without the
  // size crossed a line for one bucket in four, and the size was another
  // line, in the tables: docs/store.md, "Writing").
  struct BucketCounts {
    std::uint64_t size = 0;
    std::uint32_t allocs = 0;
    std::uint32_t frees = 0;
    std::uint32_t temporary_frees = 0;
    std::uint32_t peak_epoch = 0;
    std::uint32_t live_at_peak = 0;
  };
  static_assert(sizeof(BucketCounts) == 32);
  // Buckets are mostly first allocated in the order of their ids (a
  // heaptrack file's always are): while they are, they are counted, not listed.
  void note_first_allocation(std::uint32_t bucket) {
    if (first_allocated_.empty() && bucket == in_id_order_) {
      ++in_id_order_;
      return;
    }
    first_allocated_.push_back(bucket);
  }
  BucketCounts& counts_of(BucketId bucket) {
    if (counts_.size() <= bucket.index()) counts_.grow_to(std::size_t{bucket.index()} + 1);
    return counts_[bucket.index()];
  }
  // The counts with the bucket's size, copied from the tables until its
  // first allocation (its first event, or the free of a block never seen
  // allocated): later events read it from here, not from the tables.
  BucketCounts& sized_counts_of(BucketId bucket) {
    BucketCounts& counts = counts_of(bucket);
    if (counts.allocs == 0) counts.size = tables_.bucket(bucket).size;
    return counts;
  }
  // The aggregator's peak rule for a query of the whole trace: the level
  // before the first event is a peak candidate at 0, then every change
  // that rises above the peak so far is the new peak. Called before the
  // bucket's sums change.
  void level_change(BucketCounts& counts, bool up, std::int64_t ns) {
    const std::uint64_t size = counts.size;
    if (!peak_seen_) {
      peak_ = TracePeak{level_bytes_, level_blocks_, 0};
      peak_seen_ = true;
      ++epoch_;
    }
    if (counts.peak_epoch != epoch_) {
      counts.peak_epoch = epoch_;
      counts.live_at_peak = counts.allocs - counts.frees;
    }
    if (up) {
      level_bytes_ += size;
      ++level_blocks_;
    } else {
      level_bytes_ -= size;
      --level_blocks_;
    }
    if (level_bytes_ > peak_.bytes) {
      peak_ = TracePeak{level_bytes_, level_blocks_, ns};
      ++epoch_;
    }
  }

  // At most this many checkpoints: when full, every other one goes and the
  // spacing doubles, so they stay spread over the trace, whatever its length.
  static constexpr std::size_t kMaxCheckpoints = 32;
  // A checkpoint is kept only while it lists few blocks: at most a quarter of
  // those allocated so far (a trace that frees little gets none) and 16 Mi.
  // (An eighth until 2026-11-27 gave the cxx bench trace, a compiler's, one
  // checkpoint near its start: its windows counted every event before them.)
  static constexpr std::uint64_t kMaxCheckpointIds = std::uint64_t{1} << 24;
  static constexpr std::uint64_t kBlocksPerListedId = 4;
  // And all of them together list at most a quarter of the blocks allocated
  // so far (a byte a block on disk) and 32 Mi (128 MiB, held until the
  // store is written): else every other one goes, as when there are 32.
  static constexpr std::uint64_t kMaxAllCheckpointIds = std::uint64_t{1} << 25;

  bool room_for(std::uint64_t ids) const {
    if (checkpoints_.size() == kMaxCheckpoints) return false;
    return checkpoint_rule_.any_size ||
           checkpoint_ids_.size() + ids <= std::min(block_count_ / kBlocksPerListedId, kMaxAllCheckpointIds);
  }

  // Keeps every other checkpoint (the first, the third, ...), ids with them,
  // and doubles the spacing. In place: the kept ids only move towards the
  // front, and no second list sits beside the first while it is done.
  void thin_checkpoints() {
    std::size_t kept = 0;
    std::uint64_t ids = 0;
    for (std::size_t k = 0; k < checkpoints_.size(); k += 2) {
      LiveCheckpoint c = checkpoints_[k];
      std::memmove(checkpoint_ids_.data() + ids, checkpoint_ids_.data() + c.first, c.count * sizeof(std::uint32_t));
      c.first = ids;
      ids += c.count;
      checkpoints_[kept++] = c;
    }
    checkpoints_.resize(kept);
    checkpoint_ids_.resize(ids);
    checkpoint_spacing_ *= 2;
  }

  void take_checkpoint(std::uint64_t seq) {
    next_checkpoint_ = seq + checkpoint_spacing_;
    if (!checkpoint_rule_.any_size &&
        (live_count_ > block_count_ / kBlocksPerListedId || live_count_ > kMaxCheckpointIds))
      return;
    while (!room_for(live_count_)) {
      if (checkpoints_.size() < 2) return;  // one alone leaves no room: this one is not taken
      thin_checkpoints();
      next_checkpoint_ = checkpoints_.back().seq + checkpoint_spacing_;
      if (seq < next_checkpoint_) return;
      next_checkpoint_ = seq + checkpoint_spacing_;
    }
    const LiveCheckpoint c{seq, checkpoint_ids_.size(), live_count_};
    // Grown by a quarter, not doubled: the list is held until the store is written.
    const std::size_t needed = checkpoint_ids_.size() + live_count_;
    if (checkpoint_ids_.capacity() < needed) checkpoint_ids_.reserve(needed + checkpoint_ids_.size() / 4);
    for (std::size_t w = 0; w < live_bits_.size(); ++w) {
      for (std::uint64_t bits = live_bits_[w]; bits != 0; bits &= bits - 1) {
        checkpoint_ids_.push_back(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
      }
    }
    checkpoints_.push_back(c);
  }

  void note_time(std::uint64_t seq, std::int64_t ns) {
    if (seq != event_count_ || seq >= StoreColumns::kMaxEvents) {
      throw Error("trace has more than 2^32-1 allocation and free events, the store's limit");
    }
    if (seq == next_checkpoint_) take_checkpoint(seq);
    if (time_changes_empty_ || last_ns_ != ns) {
      time_changes_.push_back(TimeChange{static_cast<std::uint32_t>(seq), 0, ns});
      time_changes_empty_ = false;
      last_ns_ = ns;
    }
    event_count_ = seq + 1;
  }

  const TraceTables& tables_;
  Column& bucket_;
  Column& alloc_seq_;
  Column& free_order_;
  TimeColumn& time_changes_;
  std::uint64_t block_count_ = 0;
  std::uint64_t event_count_ = 0;
  std::int64_t end_ns_ = 0;
  std::int64_t last_ns_ = 0;
  bool time_changes_empty_ = true;
  ChunkedVector<BucketCounts> counts_;  // by bucket id
  std::uint32_t epoch_ = 0;
  std::uint32_t in_id_order_ = 0;                 // buckets 0 .. in_id_order_-1 were first allocated in that order,
  ChunkedVector<std::uint32_t> first_allocated_;  // and these after them
  std::uint64_t level_bytes_ = 0, level_blocks_ = 0;
  TracePeak peak_;
  bool peak_seen_ = false;
  ChunkedVector<std::uint64_t> live_bits_;  // a bit per block, set while it is alive
  std::uint64_t live_count_ = 0;
  CheckpointRule checkpoint_rule_;
  std::uint64_t checkpoint_spacing_;
  std::uint64_t next_checkpoint_;
  std::vector<LiveCheckpoint> checkpoints_;
  std::vector<std::uint32_t> checkpoint_ids_;
};

}  // namespace heapql
