// Answers a Query in one pass over the event stream (semantics.md §2-§8).
// Per unique bucket: filters and the group key, decided once. Per event: a few
// array updates. Per block: only while a reader streams, and only for blocks
// alive now (the matcher's state), so a one-shot query needs memory for live
// blocks and stacks, not for the whole trace. The store replays the same
// stream for repeated queries.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/result.h"
#include "engine/query/stack_plan.h"
#include "engine/store/events.h"
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

  // After on_finish. `source` says whether reallocs are marked (src).
  Result result(const SourceInfo& source);

 private:
  static constexpr std::int32_t kUnplanned = -2;
  static constexpr std::int32_t kFilteredOut = -1;

  struct BucketState {
    std::int32_t key = kUnplanned;  // partial group key, or kFilteredOut
    bool is_realloc = false;
    std::uint64_t size = 0;
    // Peak tracking: live blocks now, and as they were at the latest peak
    // (saved lazily on the first change after it).
    std::uint64_t live = 0;
    std::uint64_t live_at_peak = 0;
    std::uint32_t saved_epoch = 0;
  };

  BucketState& plan(BucketId bucket);
  bool bucket_passes(const Bucket& bucket, StackId culled);
  std::int32_t intern_key(const Bucket& bucket, StackId culled);
  void complete(const LiveBlock& block, std::int64_t free_ns, bool temporary);
  void change_live(BucketState& state, bool up, std::int64_t now_ns);
  void enter_window(std::int64_t now_ns);
  void note_level(std::int64_t now_ns);
  void series_advance(std::int64_t now_ns);
  Measures& row_measures(std::int32_t key, Impacting type);
  KeyValue render_level(GroupBy level, std::uint64_t value) const;

  const TraceTables& tables_;
  Query query_;
  std::int64_t t1_;
  std::int64_t t2_;  // kNeverNs when open
  std::uint32_t impacting_mask_ = 0;
  bool impacting_mode_;
  bool impacting_level_;
  StackPlan stack_plan_;

  std::vector<BucketState> buckets_;
  std::unordered_map<std::string, std::int32_t> key_ids_;
  std::vector<std::vector<std::uint64_t>> key_values_;  // per partial key: one value per level
  std::vector<Measures> rows_;                            // per partial key (x4 with impacting level)
  Measures totals_;
  std::uint64_t temporary_blocks_ = 0;
  std::uint64_t excluded_blocks_ = 0, excluded_bytes_ = 0;

  // Outstanding level of the blocks that pass the bucket filters.
  std::uint64_t level_bytes_ = 0, level_blocks_ = 0;
  bool in_window_ = false;
  bool peak_seen_ = false;
  Peak peak_;
  std::uint32_t peak_epoch_ = 0;

  std::int64_t series_bucket_ns_ = 0;
  std::vector<std::uint64_t> series_;
  std::int64_t end_ns_ = 0;
};

}  // namespace heapql
