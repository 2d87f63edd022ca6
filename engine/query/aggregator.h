// Answers a Query in one pass over the event stream (semantics.md §2-§8).
// Per unique bucket: filters and the group key, decided once. Per event: a few
// array updates. Per block: only while a reader streams, and only for blocks
// alive now (the matcher's state), so a one-shot query needs memory for live
// blocks and stacks, not for the whole trace. The store replays the same
// stream for repeated queries.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "engine/query/group_key_table.h"
#include "engine/query/query.h"
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

namespace heapql {

// Compiles the frame patterns of a query: cull, require, exclude and the
// suppressions (reads cull lists and suppression files). Throws Error for a
// bad pattern or file.
StackFilters compile_stack_filters(const Query& query);
// Adds the trace's own suppression lines (SourceInfo::embedded_suppressions)
// when the query asks for them.
void add_embedded_suppressions(StackFilters& filters, const Query& query, std::span<const std::string> embedded);

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
  bool needs_blocks() const override { return needs_blocks_; }
  void on_bucket_alloc(BucketId bucket, std::int64_t ns) override;
  bool on_bucket_free(BucketId bucket, std::int64_t ns, bool temporary) override;
  bool on_bucket_free_allocated_at(BucketId bucket, std::int64_t ns, std::int64_t alloc_ns, bool temporary) override;
  bool frees_ignore_allocation_time() const override { return layout_ == Layout::kWholeTrace; }
  std::size_t on_bucket_run(std::span<const std::uint32_t> events, std::int64_t ns, std::uint32_t& last_alloc) override;
  // Before T1 events only move live counts and the outstanding level.
  std::int64_t skippable_before_ns() const override { return t1_; }
  void on_skipped_events(const SkippedEvents& skipped) override;

  // Feeds the aggregator from a store: from its bucket sums when the query
  // is of the whole trace with no block filter and every bucket with blocks
  // passes its filters (then no block is read), else by replaying its events.
  // The answer is the same either way (tests/cli/store_test.cpp).
  void answer_from(const TraceStore& store);

  // The store's stack view (stack_view.h) of a trace whose bucket sums these
  // are: every row of the query `--by stack` of the whole trace under the
  // built-in cull list, as this aggregator would roll it up, handed to
  // `sink` (stack_view_sink.h). `sums_read` is called once the sums have
  // been read, before the rows are made (their owner may free them).
  static void build_stack_view(const TraceTables& tables, const BucketSumChunks& sums,
                               const std::function<void()>& sums_read, StackViewSink& sink);

  // After on_finish. `source` says whether reallocs are marked (src).
  Result result(const SourceInfo& source);

 private:
  static constexpr std::int32_t kUnplanned = -2;
  static constexpr std::int32_t kFilteredOut = -1;

  // Everything a bucket needs per event: its filter verdict and group key, its
  // size, its live blocks, and per-impacting-type block counts that are rolled
  // up to rows once, at the end (temporary blocks are only ever summed, so
  // they are counted for all buckets at once). Counts are 32-bit: a bucket with more blocks
  // than that is refused, not wrapped. Live blocks are split by when they were
  // allocated: before T1, inside the window, after T2. Block events count
  // every live block as `inside`; bucket events need the split to pop the
  // right one (LIFO: after, inside, before).
  //
  // The layout depends on the query, so that a bucket carries only what the
  // query needs (millions of buckets, one picked at random by each event, so
  // the smaller the state the more of them the caches hold): the whole-trace
  // one for a query of the whole trace with no impacting types, block
  // filters or peak (every block allocated inside; the live blocks are the
  // AIFO ones once the trace ends, so they are not counted twice), the
  // open-window one for a window with no end, or the whole trace with a
  // block filter (only AIFI and AIFO blocks, none allocated after the
  // window, each block decided as it ends), the full one for the other window
  // queries, and the peak one for --at-peak (no per-type counts; the live
  // count as it was at the latest peak, saved lazily on the bucket's first
  // change after it).
  // A size that does not fit 32 bits is read from the bucket table instead.
  static constexpr std::uint32_t kLargeSize = 0xFFFFFFFFu;
  struct WholeTraceState {
    static constexpr bool kBefore = false, kAfter = false, kOutside = false, kPeak = false, kLiveAreAifo = true;
    std::int32_t key = kUnplanned;  // partial group key, or kFilteredOut
    std::uint32_t size = 0;         // or kLargeSize
    std::uint32_t live_inside = 0;  // at the end: the AIFO blocks
    std::uint32_t blocks_by_type[1] = {0};  // AIFI
    std::uint32_t live() const { return live_inside; }
  };
  struct OpenWindowState {
    static constexpr bool kBefore = true, kAfter = false, kOutside = false, kPeak = false, kLiveAreAifo = false;
    std::int32_t key = kUnplanned;
    std::uint32_t size = 0;
    std::uint32_t live_before = 0, live_inside = 0;
    std::uint32_t blocks_by_type[2] = {0, 0};  // AIFI, AIFO
    std::uint32_t live() const { return live_before + live_inside; }
  };
  struct FullState {
    static constexpr bool kBefore = true, kAfter = true, kOutside = true, kPeak = false, kLiveAreAifo = false;
    std::int32_t key = kUnplanned;
    std::uint32_t size = 0;
    std::uint32_t live_before = 0, live_inside = 0, live_after = 0;
    std::uint32_t blocks_by_type[4] = {0, 0, 0, 0};  // indexed by Impacting
    std::uint32_t live() const { return live_before + live_inside + live_after; }
  };
  struct PeakState {
    static constexpr bool kBefore = true, kAfter = true, kOutside = false, kPeak = true, kLiveAreAifo = false;
    std::int32_t key = kUnplanned;
    std::uint32_t size = 0;
    std::uint32_t live_before = 0, live_inside = 0, live_after = 0;
    std::uint32_t saved_epoch = 0, live_at_peak = 0;
    std::uint32_t blocks_by_type[1] = {0};  // filtered out: blocks allocated in the window
    std::uint32_t live() const { return live_before + live_inside + live_after; }
  };
  static_assert(sizeof(WholeTraceState) == 16 && sizeof(OpenWindowState) == 24 && sizeof(FullState) == 36 &&
                sizeof(PeakState) == 32);
  enum class Layout : std::uint8_t { kWholeTrace, kOpenWindow, kFull, kPeak };

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
    switch (layout_) {
      case Layout::kWholeTrace: return f.template operator()<WholeTraceState>();
      case Layout::kOpenWindow: return f.template operator()<OpenWindowState>();
      case Layout::kFull: return f.template operator()<FullState>();
      case Layout::kPeak: break;
    }
    return f.template operator()<PeakState>();
  }

  // Inline: defined (and only used) in aggregator.cpp, on the per-event path.
  template <class S> inline S& plan(BucketId bucket);
  template <class S> S& plan_bucket(BucketId bucket);  // plan's first visit to a bucket
  bool bucket_passes(const Bucket& bucket, StackId culled);
  std::int32_t intern_key(const Bucket& bucket, StackId culled);
  // Numbers the group keys densely (GroupKeyTable::rank), in every state
  // too; once every bucket is planned, before the keys number rows.
  void rank_keys();
  // The group keys' numbering and the roll-up's first pass over the buckets
  // run on both cores from this many buckets on (a one-shot query on a big
  // trace ends with them alone).
  static constexpr std::size_t kSplitRollUpFrom = std::size_t{1} << 16;
  template <class S> void block_alloc(const LiveBlock& block);
  template <class S> void block_free(const LiveBlock& block, std::int64_t free_ns, bool temporary);
  // Inlined into the event loops (the per-event path).
  template <class S> [[gnu::always_inline]] inline void bucket_alloc(BucketId bucket, std::int64_t ns);
  template <class S> [[gnu::always_inline]] inline bool bucket_free(BucketId bucket, std::int64_t ns, bool temporary);
  template <class S> bool bucket_free_allocated_at(BucketId bucket, std::int64_t ns, std::int64_t alloc_ns, bool temporary);
  template <class S>
  std::size_t bucket_run(std::span<const std::uint32_t> events, std::int64_t ns, std::uint32_t& last_alloc);
  // bucket_run for a whole-trace query once its window is open and has a
  // peak, with no series: bucket_alloc and bucket_free with what cannot
  // change within a run (the time, the window, the series) decided once.
  std::size_t whole_trace_run(std::span<const std::uint32_t> events, std::int64_t ns, std::uint32_t& last_alloc);
  template <class S> void skip_events(const SkippedEvents& skipped);
  template <class S> void complete(const LiveBlock& block, std::int64_t free_ns, bool temporary);
  // Counts `n` blocks of a bucket that ended at free_ns (kNeverNs: still alive).
  template <class S>
  std::uint64_t size_of(const S& state, std::size_t bucket) const {
    return state.size != kLargeSize ? state.size : tables_.bucket(BucketId(static_cast<std::uint32_t>(bucket))).size;
  }
  template <class S>
  inline void record(S& state, std::size_t bucket, bool alloc_in, std::int64_t free_ns, bool temporary,
              std::optional<std::int64_t> alloc_ns, std::uint32_t n);
  // record() for the layouts that count every type apart.
  template <class S>
  inline void record_by_type(S& state, std::size_t bucket, bool alloc_in, bool freed_in, std::int64_t free_ns,
                             bool temporary, std::optional<std::int64_t> alloc_ns, std::uint32_t n);
  template <class S> inline void before_live_change(S& state, std::int64_t now_ns);
  inline void after_live_change(std::uint64_t size, bool up, std::int64_t now_ns);
  template <class S> void finish_buckets();
  void enter_window();
  inline void note_level(std::int64_t now_ns);
  void new_peak(std::int64_t now_ns);
  inline void series_advance(std::int64_t now_ns);
  void series_grow(std::int64_t now_ns);
  // Calls add(row, measures) for each row a bucket adds to.
  template <class S, class Add> void contributions(const S& state, std::size_t bucket, Add&& add) const;
  // Calls visit(row, impacting type, blocks) for each row a bucket adds to.
  template <class S, class Visit> void rows_of(const S& state, Visit&& visit) const;
  template <class S> void roll_up(Result& r);
  // Chooses, orders and renders the rows shown among the rows with blocks
  // (numbered densely: `sort_values` has one per row), then the rest. The
  // caller says how: key_values_of(row, out) writes a row's key values;
  // measures_of(rows shown, in order) returns their measures (it may free
  // the sort values: they are not read after it is called).
  void show_rows(Result& r, std::span<const std::uint64_t> sort_values,
                 const std::function<void(std::uint32_t row, std::uint64_t* values)>& key_values_of,
                 const std::function<std::vector<Measures>(std::span<const std::uint32_t> rows)>& measures_of);
  // Whether the query is of the whole trace and needs no block's own times:
  // what the bucket sums and the stack view can answer.
  bool of_whole_trace_without_times() const;
  // `check_sums` runs before the sums are read, when they will be.
  bool answer_from_sums(const StoreColumns& columns, const std::function<void()>& check_sums = {});
  // Calls add(row, measures) for each row a bucket adds to (the whole-trace
  // layout's buckets: the stack view's roll-up).
  void each_whole_trace_contribution(const std::function<void(std::size_t row, const Measures&)>& add) const;
  // From the store's stack view, when the query is the view's (then result()
  // reads its rows: roll_up_from_view). In aggregator_stack_view.cpp.
  bool answer_from_view(const TraceStore& store);
  void roll_up_from_view(Result& r);
  // answer_from_sums in parts: whether every bucket of these sums passes
  // the filters (planning them), then adding them to the states.
  bool sums_all_pass(std::span<const BucketSum> sums);
  void add_sums(std::span<const BucketSum> sums);
  template <class S> void apply_sums(std::span<const BucketSum> sums);

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

  Layout layout_;
  ChunkedVector<WholeTraceState> whole_trace_states_;
  ChunkedVector<OpenWindowState> open_window_states_;
  ChunkedVector<FullState> full_states_;
  ChunkedVector<PeakState> peak_states_;
  // Partial group keys (one value per level; the impacting level's is 0):
  // numbered densely by rank_keys(), before the roll-up.
  GroupKeyTable keys_;
  std::vector<std::uint32_t> key_scratch_;
  std::uint64_t excluded_blocks_ = 0, excluded_bytes_ = 0;
  std::uint64_t temporary_blocks_ = 0;  // among the counted blocks

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
  const TraceStore* view_store_ = nullptr;  // answered from its stack view
};

}  // namespace heapql
