// Answers a Query in one pass over the event stream (semantics.md §2-§8).
// Per unique bucket: filters and the group key, decided once. Per event: a few
// array updates. Per block: only while a reader streams, and only for blocks
// alive now (the matcher's state), so a one-shot query needs memory for live
// blocks and stacks, not for the whole trace. The store replays the same
// stream for repeated queries.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/result.h"
#include "engine/query/stack_plan.h"
#include "engine/store/chunked_vector.h"
#include "engine/store/events.h"
#include "engine/store/flat_index.h"
#include "engine/store/source_info.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// Compiles the cull and require pattern sets of a query (reads cull files).
FramePatternSet compile_cull_set(const Query& query);
FramePatternSet compile_require_set(const Query& query);

class Aggregator final : public EventConsumer {
 public:
  // `tables` may keep growing while events arrive (streaming); it must
  // outlive the aggregator. Throws Error for invalid patterns or cull files.
  Aggregator(const TraceTables& tables, Query query);

  void on_alloc(const LiveBlock& block) override;
  void on_free(const LiveBlock& block, std::uint64_t free_seq, std::int64_t free_ns, bool temporary) override;
  void on_still_alive(const LiveBlock& block) override;
  void on_finish(std::int64_t end_ns) override;
  bool needs_blocks() const override { return needs_blocks_; }
  void on_bucket_alloc(BucketId bucket, std::int64_t ns) override;
  bool on_bucket_free(BucketId bucket, std::int64_t ns, bool temporary) override;

  // After on_finish. `source` says whether reallocs are marked (src).
  Result result(const SourceInfo& source);

 private:
  static constexpr std::int32_t kUnplanned = -2;
  static constexpr std::int32_t kFilteredOut = -1;

  // Everything a bucket needs per event, in one cache line: its filter
  // verdict and group key, its live blocks, and per-impacting-type block
  // counts that are rolled up to rows once, at the end. Counts are 32-bit:
  // a bucket with more blocks than that is refused, not wrapped.
  struct alignas(64) BucketState {
    std::int32_t key = kUnplanned;  // partial group key, or kFilteredOut
    std::uint32_t saved_epoch = 0;
    std::uint64_t size = 0;
    // Live blocks by when they were allocated: before T1, inside the window,
    // after T2. Block events count every live block as `inside`; bucket
    // events need the split to pop the right one (LIFO: after, inside, before).
    std::uint32_t live_before = 0, live_inside = 0, live_after = 0;
    // The live count as it was at the latest peak (saved lazily on the
    // bucket's first change after it).
    std::uint32_t live_at_peak = 0;
    std::uint32_t blocks_by_type[4] = {0, 0, 0, 0};  // indexed by Impacting
    std::uint32_t temporary = 0;

    std::uint32_t live() const { return live_before + live_inside + live_after; }
  };
  static_assert(sizeof(BucketState) == 64, "one cache line a bucket");

  BucketState& plan(BucketId bucket);
  bool bucket_passes(const Bucket& bucket, StackId culled);
  std::int32_t intern_key(const Bucket& bucket, StackId culled);
  void complete(const LiveBlock& block, std::int64_t free_ns, bool temporary);
  // Counts `n` blocks of a bucket that ended at free_ns (kNeverNs: still alive).
  void record(BucketState& state, bool alloc_in, std::int64_t free_ns, bool temporary,
              std::optional<std::int64_t> alloc_ns, std::uint32_t n);
  void before_live_change(BucketState& state, std::int64_t now_ns);
  void after_live_change(const BucketState& state, bool up, std::int64_t now_ns);
  void enter_window();
  void note_level(std::int64_t now_ns);
  void series_advance(std::int64_t now_ns);
  void roll_up(Result& r);

  const TraceTables& tables_;
  Query query_;
  std::int64_t t1_;
  std::int64_t t2_;  // kNeverNs when open
  std::uint32_t impacting_mask_ = 0;
  bool impacting_mode_;
  bool impacting_level_;
  bool has_block_filters_;  // lifetime, impacting or temporary: decided per block
  bool needs_blocks_;       // lifetime filters need each block's own times
  bool counted_by_bucket_events_ = false;
  StackPlan stack_plan_;

  ChunkedVector<BucketState> buckets_;
  // Partial group keys: one value per level (the impacting level's is 0),
  // key after key, and their index.
  std::vector<std::uint64_t> key_values_;
  std::size_t key_count_ = 0;
  FlatIndex key_ids_;
  std::uint64_t excluded_blocks_ = 0, excluded_bytes_ = 0;

  // Outstanding level of the blocks that pass the bucket filters.
  std::uint64_t level_bytes_ = 0, level_blocks_ = 0;
  bool in_window_ = false;
  bool peak_seen_ = false;
  Peak peak_;
  std::uint32_t peak_epoch_ = 0;

  std::int64_t series_bucket_ns_ = 0;
  std::vector<std::uint64_t> series_;
  bool series_closed_ = false;  // an event at or after T2 has been seen
  std::int64_t end_ns_ = 0;
};

}  // namespace heapql
