// Answers a Query (semantics.md §2-§8) in one pass over the event stream,
// or from what a store keeps. Per unique bucket: filters and the group key,
// decided once. Per event: a few array updates. Per block: only while a
// reader streams, and only for blocks alive now (the matcher's state), so a
// one-shot query needs memory for live blocks and stacks, not for the whole
// trace. A store answers from its stack view or its bucket sums when they
// hold the answer, else replays the same stream.
//
// Its parts, a file each:
// - query_plan.h: what the query decides before its first event, with the
//   one rule of which blocks count;
// - bucket_states.h and aggregator_count_steps.h: a bucket's counts and the
//   steps every path takes on them;
// - aggregator_event_paths.cpp: the event paths (blocks, buckets, runs of
//   them, skipped events) and the level, peak and series;
// - aggregator_roll_up.cpp: bucket counts to rows; row_selection.h: the
//   rows shown (top N, ties);
// - aggregator_store_answers.cpp: the answers from a store (stack view,
//   bucket sums, replay);
// - aggregator_window_answer.cpp: a window's answer from a session's
//   window index (engine/store/window_index.h), without a replay;
// - aggregator.cpp: construction, group keys, the result.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/query/bucket_states.h"
#include "engine/query/group_key_table.h"
#include "engine/query/query.h"
#include "engine/query/query_plan.h"
#include "engine/query/result.h"
#include "engine/query/stack_plan.h"
#include "engine/util/chunked_vector.h"
#include "engine/store/events.h"
#include "engine/store/source_info.h"
#include "engine/store/stack_view.h"
#include "engine/store/stack_view_sink.h"
#include "engine/store/store_columns.h"
#include "engine/store/trace_store.h"
#include "engine/store/trace_tables.h"
#include "engine/store/window_index.h"

namespace heapql {
class WholeTraceViews;
}

namespace heapql {

class Aggregator final : public EventConsumer {
 public:
  // `tables` may keep growing while events arrive (streaming); it must
  // outlive the aggregator. Throws Error for invalid patterns or cull files.
  // A query with embedded suppressions needs the trace's lines before its
  // first event, so it is answered from a loaded store, not while streaming.
  Aggregator(const TraceTables& tables, const Query& query, std::span<const std::string> embedded_suppressions = {});
  // With the query's patterns compiled already (compile_stack_filters, then
  // add_embedded_suppressions), so that files are read once.
  Aggregator(const TraceTables& tables, Query query, StackFilters filters);

  void on_alloc(const LiveBlock& block) override;
  void on_free(const LiveBlock& block, std::uint64_t free_seq, std::int64_t free_ns, bool temporary) override;
  void on_still_alive(const LiveBlock& block) override;
  void on_finish(std::int64_t end_ns) override;
  bool needs_blocks() const override { return plan_.needs_blocks(); }
  void on_bucket_alloc(BucketId bucket, std::int64_t ns) override;
  bool on_bucket_free(BucketId bucket, std::int64_t ns, bool temporary) override;
  bool on_bucket_free_allocated_at(BucketId bucket, std::int64_t ns, std::int64_t alloc_ns, bool temporary) override;
  bool frees_ignore_allocation_time() const override { return plan_.layout() == BucketLayout::kWholeTrace; }
  std::size_t on_bucket_run(std::span<const std::uint32_t> events, std::int64_t ns, std::uint32_t& last_alloc) override;
  // Before T1 events only move live counts and the outstanding level.
  std::int64_t skippable_before_ns() const override { return plan_.t1(); }
  std::int64_t still_alive_wanted_from_ns() const override;
  void on_skipped_events(const SkippedEvents& skipped) override;

  // Feeds the aggregator from a store: from its stack view when the query
  // is the view's (stack_view_query.h); else from its bucket sums when the
  // query is of the whole trace, needs no block's own times (no lifetimes,
  // no series) and every bucket with blocks passes its filters (then no
  // block is read); else from the session's window index (window_index.h)
  // when there is one and the query counts every bucket and every block of
  // its window (no filter of either: aggregator_window_answer.cpp); else by
  // replaying its events up to T2. The answer is the same every way
  // (tests/cli/store_test.cpp, tests/unit/window_index_test.cpp).
  // A session prepared for many queries also has whole-trace views by other
  // levels (whole_trace_views.h), read as the stack view is.
  void answer_from(const TraceStore& store, const WindowIndex* window_index = nullptr,
                   const WholeTraceViews* views = nullptr);
  // Whether answer_from answered from the window index (the tests' check
  // that the queries it is for take that path).
  bool answered_from_window_index() const { return answered_from_window_index_; }

  // The store's stack view (stack_view.h) of a trace whose bucket sums these
  // are: every row of stack_view_query() as this aggregator would roll it
  // up, handed to `sink` (stack_view_sink.h). `sums_read` is called once the
  // sums have been read, before the rows are made (their owner may free them).
  static void build_stack_view(const TraceTables& tables, const BucketSumChunks& sums,
                               const std::function<void()>& sums_read, StackViewSink& sink);
  // The same for another query of the whole trace by one level, with no
  // filter (whole_trace_views.h), its keys handed over as the view's stacks.
  static void build_whole_trace_view(const TraceTables& tables, const Query& query, const BucketSumChunks& sums,
                                     std::span<const StackId> default_culled, StackViewSink& sink,
                                     const std::function<void()>& sums_read = {});

  // After on_finish. `source` says whether reallocs are marked (src).
  Result result(const SourceInfo& source);

  // Each bucket's stack culled by the built-in cull list alone, worked out
  // once for a session (culled_by_default, default_culled_stacks.h): read
  // instead of culling again when this query's cull patterns are those.
  // Before the first event; `culled` must outlive the aggregator.
  void use_default_culled(std::span<const StackId> culled);

 private:
  // What the counts tally of the blocks as they end, for the result.
  // whole_trace_run tallies a run apart, in registers, and adds it after.
  struct BlockTallies {
    // Allocated in the window, then removed by the block filters.
    std::uint64_t excluded_blocks = 0, excluded_bytes = 0;
    std::uint64_t temporary_blocks = 0;  // among the counted blocks
  };

  template <class S>
  ChunkedVector<S>& states() {
    if constexpr (std::is_same_v<S, WholeTraceState>) return whole_trace_states_;
    else if constexpr (std::is_same_v<S, OpenWindowState>) return open_window_states_;
    else if constexpr (std::is_same_v<S, FullState>) return full_states_;
    else return peak_states_;
  }
  // Calls f.template operator()<State>() for the query's layout.
  template <class F>
  decltype(auto) with_layout(F&& f) {
    switch (plan_.layout()) {
      case BucketLayout::kWholeTrace: return f.template operator()<WholeTraceState>();
      case BucketLayout::kOpenWindow: return f.template operator()<OpenWindowState>();
      case BucketLayout::kFull: return f.template operator()<FullState>();
      case BucketLayout::kPeak: break;
    }
    return f.template operator()<PeakState>();
  }
  template <class S>
  std::uint64_t size_of(const S& state, std::size_t bucket) const {
    return state.size != kLargeSize ? state.size : tables_.bucket(BucketId(static_cast<std::uint32_t>(bucket))).size;
  }

  // The steps on one bucket's counts that every path takes, inline (the
  // per-event path): aggregator_count_steps.h.
  template <class S> inline S& plan(BucketId bucket);
  template <class S> S& plan_bucket(BucketId bucket);  // plan's first visit to a bucket
  template <class S> inline void add_live(S& state, WindowPart allocated, std::uint32_t n = 1);
  template <class S> inline void end_latest_live(S& state, std::size_t bucket, BlockEnd end, BlockTallies& tallies);
  // Counts `n` blocks of a bucket that end as `end` says.
  template <class S>
  inline void record(S& state, std::size_t bucket, const BlockEnd& end, std::uint32_t n, BlockTallies& tallies);
  // record() for the layouts that count every type apart.
  template <class S>
  inline void record_by_type(S& state, std::size_t bucket, const BlockEnd& end, std::uint32_t n,
                             BlockTallies& tallies);
  // The group key of a counted bucket (its culled stack found only when a
  // level reads it).
  std::int32_t intern_key(BucketId id, const Bucket& bucket);

  // The event paths (aggregator_event_paths.cpp).
  template <class S> void block_alloc(const LiveBlock& block);
  template <class S> void block_free(const LiveBlock& block, std::int64_t free_ns, bool temporary);
  template <class S> void complete(const LiveBlock& block, std::int64_t free_ns, bool temporary);
  // Inlined into the event loops (the per-event path).
  template <class S> [[gnu::always_inline]] inline void bucket_alloc(BucketId bucket, std::int64_t ns);
  template <class S> [[gnu::always_inline]] inline bool bucket_free(BucketId bucket, std::int64_t ns, bool temporary);
  template <class S>
  [[gnu::always_inline]] inline bool bucket_event(std::uint32_t word, std::int64_t ns, std::uint32_t& last_alloc);
  template <class S> bool bucket_free_allocated_at(BucketId bucket, std::int64_t ns, std::int64_t alloc_ns, bool temporary);
  template <class S>
  std::size_t bucket_run(std::span<const std::uint32_t> events, std::int64_t ns, std::uint32_t& last_alloc);
  // bucket_run for a whole-trace query once its window is open and has a
  // peak, with no series: the same steps with what cannot change within a
  // run (the time, the window, the series) decided once.
  std::size_t whole_trace_run(std::span<const std::uint32_t> events, std::int64_t ns, std::uint32_t& last_alloc);
  template <class S> void skip_events(const SkippedEvents& skipped);
  template <class S> inline void before_live_change(S& state, std::int64_t now_ns);
  inline void after_live_change(std::uint64_t size, bool up, std::int64_t now_ns);
  // The level's part of new live blocks, checked.
  inline void raise_level(std::uint64_t blocks, std::uint64_t bytes);
  template <class S> void finish_buckets();
  void enter_window();
  inline void note_level(std::int64_t now_ns);
  void new_peak(std::int64_t now_ns);
  inline void series_advance(std::int64_t now_ns);
  void series_grow(std::int64_t now_ns);

  // The roll-up (aggregator_roll_up.cpp).
  // Numbers the group keys densely (GroupKeyTable::rank), in every state
  // too; once every bucket is planned, before the keys number rows.
  void rank_keys();
  // The group keys' numbering and the roll-up's first pass over the buckets
  // run on both cores from this many buckets on (a one-shot query on a big
  // trace ends with them alone).
  static constexpr std::size_t kSplitRollUpFrom = std::size_t{1} << 16;
  // Calls visit(row, impacting type, blocks) for each row a bucket adds to.
  template <class S, class Visit> void rows_of(const S& state, Visit&& visit) const;
  // Calls add(row, measures) for each row a bucket adds to.
  template <class S, class Add> void contributions(const S& state, std::size_t bucket, Add&& add) const;
  template <class S> void roll_up(Result& r);
  // The rows, totals and exclusions of the bucket states (keys ranked first).
  void roll_up_buckets(Result& r);
  // contributions() of the whole-trace layout's buckets (the stack view's roll-up).
  void each_whole_trace_contribution(const std::function<void(std::size_t row, const Measures&)>& add) const;

  // The answers from a store (aggregator_store_answers.cpp).
  // `check_sums` runs before the sums are read, when they will be.
  bool answer_from_sums(const StoreColumns& columns, const std::function<void()>& check_sums = {});
  // answer_from_sums in parts: whether every bucket of these sums passes
  // the filters (planning them), then adding them to the states.
  bool sums_all_pass(std::span<const BucketSum> sums);
  void add_sums(std::span<const BucketSum> sums);
  template <class S> void apply_sums(std::span<const BucketSum> sums);
  // From the store's stack view, when the query is the view's (then
  // result() reads its rows: roll_up_from_view).
  bool answer_from_view(const TraceStore& store);
  // From a session's whole-trace view (whole_trace_views.h), alike.
  bool answer_from_session_view(const TraceStore& store, const WholeTraceViews& views);
  // Either: the view's totals and the trace's peak, rows at result().
  void read_view(const StackView& view, const StoreColumns& columns);
  void roll_up_from_view(Result& r);
  // The totals, excluded and temporary blocks of the view's blocks of view_types_.
  void subset_totals_from_view(Result& r) const;

  // From a window index (aggregator_window_answer.cpp): the window's blocks
  // counted by their ends, the level, peak and series read from its runs.
  bool answer_from_window_index(const TraceStore& store, const WindowIndex& index);
  template <class S>
  void count_window_blocks(const StoreColumns& columns, const WindowIndex& index, std::size_t first_block,
                           std::size_t end_block, std::uint64_t frees_before_cut);
  void level_from_runs(std::span<const LevelRun> runs, std::size_t first_run, std::size_t end_run);

  const TraceTables& tables_;
  QueryPlan plan_;
  const bool counts_every_bucket_;  // plan_.counts_every_bucket(), asked once
  // The group key reads a bucket's culled stack (a stack, frame or image level).
  const bool key_reads_culled_stack_;
  std::span<const StackId> default_culled_;  // by bucket, when the query culls by default alone

  ChunkedVector<WholeTraceState> whole_trace_states_;
  ChunkedVector<OpenWindowState> open_window_states_;
  ChunkedVector<FullState> full_states_;
  ChunkedVector<PeakState> peak_states_;
  // A chunk of unplanned states that the states' chunks a window's replay
  // never writes stand in for (ChunkedVector::grow_sparse_to).
  std::shared_ptr<const void> unplanned_chunk_;
  // Partial group keys (one value per level; the impacting level's is 0):
  // numbered densely by rank_keys(), before the roll-up.
  GroupKeyTable keys_;
  std::vector<std::uint32_t> key_scratch_;
  bool counted_by_bucket_events_ = false;

  BlockTallies tallies_;
  // Outstanding level of the blocks that pass the bucket filters. Right
  // after the temporary tally: in this order GCC keeps whole_trace_run's
  // copies in general registers (in others it paired the level's two
  // values in a vector register, a few more instructions an event).
  std::uint64_t level_bytes_ = 0, level_blocks_ = 0;
  bool in_window_ = false;
  bool peak_seen_ = false;
  Peak peak_;
  std::uint32_t peak_epoch_ = 0;

  std::int64_t series_bucket_ns_ = 0;
  std::vector<std::uint64_t> series_;
  bool series_closed_ = false;  // an event at or after T2 has been seen
  std::int64_t end_ns_ = 0;
  const StackView* view_ = nullptr;         // answered from a view: the store's stack view, or a session's
  const TraceStore* view_store_ = nullptr;  // the store, when its own (its checks run when it is read)
  unsigned view_types_ = 0;  // the impacting types counted from the view's rows (a bit each), or 0: all, as xperf's
  bool answered_from_window_index_ = false;
};

}  // namespace heapql
