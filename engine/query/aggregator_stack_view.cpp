// The aggregator and the store's stack view (stack_view.h): building the
// view at ingest with the same roll-up a query does, and answering the
// view's query from it. Its rows are those the query over the bucket sums
// would number, in that order, so the two answers are byte-identical
// (tests/cli/store_test.cpp compares them).
#include <algorithm>

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/query/byte_sums.h"
#include "engine/query/cull_list.h"
#include "engine/util/on_both_cores.h"

namespace heapql {

static_assert(static_cast<std::size_t>(Measure::kSo) == 0 && static_cast<std::size_t>(Measure::kSoc) == 1 &&
                  static_cast<std::size_t>(Measure::kSt) == 2 && static_cast<std::size_t>(Measure::kStc) == 3 &&
                  static_cast<std::size_t>(Measure::kSrc) == 4 && kViewMeasures == 5,
              "the view's columns are indexed by Measure");

namespace {

// A row's or the totals' measures, from the view's values (in Measure order).
Measures view_measures(const std::array<std::uint64_t, kViewMeasures>& v) {
  Measures m;
  m.so = v[0], m.soc = v[1], m.st = v[2], m.stc = v[3], m.src = v[4];
  m.blocks = m.stc;  // every block of the whole trace is allocated inside it
  return m;
}

Measures measures_of_row(const StackView& view, std::size_t row) {
  std::array<std::uint64_t, kViewMeasures> v;
  for (std::size_t k = 0; k < kViewMeasures; ++k) v[k] = view.measures[k][row];
  return view_measures(v);
}

}  // namespace

void Aggregator::build_stack_view(const TraceTables& tables, const BucketSumChunks& sums,
                                  const std::function<void()>& sums_read, StackViewSink& sink) {
  Query query;  // the whole trace, the built-in cull list, no filter
  query.by = {GroupBy::kStack};
  Aggregator aggregator(tables, query);
  const auto not_from_sums = [] { return Error("internal error: the stack view's query is not answered from the bucket sums"); };
  if (!aggregator.of_whole_trace_without_times() || aggregator.layout_ != Layout::kWholeTrace) throw not_from_sums();
  // Planned and added a chunk at a time; the rows are then numbered by
  // stack id (GroupKeyTable), whatever order the buckets came in.
  sums([&](std::span<const BucketSum> chunk) {
    if (!aggregator.sums_all_pass(chunk)) throw not_from_sums();
    aggregator.add_sums(chunk);
  });
  if (sums_read) sums_read();  // the aggregator's states hold what they said

  // Every key is a row: each came from a bucket with blocks, and none is
  // filtered out. The totals go in the head, before the columns; then one
  // column at a time is made and handed over.
  aggregator.rank_keys();
  StackViewHead head;
  head.cull_fingerprint = default_cull_fingerprint();
  head.temporary_blocks = aggregator.temporary_blocks_;
  const std::size_t rows = aggregator.keys_.count();
  head.rows = rows;
  aggregator.each_whole_trace_contribution([&](std::size_t, const Measures& m) {
    for (std::size_t k = 0; k < kViewMeasures; ++k) head.totals[k] += m.value(static_cast<Measure>(k));
    checked_bytes(head.totals[static_cast<std::size_t>(Measure::kSt)]);  // so's every part is at most it
  });
  sink.head(head);
  {
    std::vector<std::uint32_t> stacks(rows);
    for (std::size_t row = 0; row < rows; ++row) stacks[row] = aggregator.keys_.value(row, 0);
    sink.stacks(stacks);
  }
  std::vector<std::uint64_t> column;
  for (std::size_t k = 0; k < kViewMeasures; ++k) {
    column.assign(rows, 0);
    aggregator.each_whole_trace_contribution([&](std::size_t row, const Measures& m) {
      column[row] += m.value(static_cast<Measure>(k));
    });
    if (k == static_cast<std::size_t>(Measure::kStc) && std::find(column.begin(), column.end(), 0) != column.end()) {
      throw Error("internal error: a stack view row without blocks");
    }
    sink.measure(column);
  }
}

bool Aggregator::answer_from_view(const TraceStore& store) {
  const StackView* view = store.stack_view();
  if (view == nullptr || view->cull_fingerprint != default_cull_fingerprint()) return false;
  // The view's query and nothing else: the whole trace, every block, the
  // built-in cull list alone, grouped by stack or not grouped at all.
  const Query& q = query_;
  const bool keyed = !q.totals_only && !q.by.empty();
  if (keyed && (q.by.size() != 1 || q.by[0] != GroupBy::kStack)) return false;
  if (!of_whole_trace_without_times() || layout_ != Layout::kWholeTrace || has_block_filters_) return false;
  if (q.size_min != 0 || q.size_end || !q.kinds.empty() || !q.threads.empty() || !q.processes.empty() ||
      !q.heaps.empty()) {
    return false;
  }
  const StackFilters& filters = stack_plan_.filters();
  if (!q.default_cull || !q.cull.empty() || !q.cull_files.empty() || !filters.require.empty() ||
      !filters.exclude.empty() || !filters.suppressions.empty()) {
    return false;
  }
  const StoreColumns& columns = store.columns();
  view_store_ = &store;
  temporary_blocks_ = view->temporary_blocks;
  in_window_ = true;
  peak_seen_ = true;
  peak_ = Peak{columns.peak.bytes, columns.peak.blocks, columns.peak.time_ns};
  end_ns_ = columns.end_ns;
  return true;
}

void Aggregator::roll_up_from_view(Result& r) {
  const TraceStore& store = *view_store_;
  const StackView& view = *store.stack_view();
  r.totals = view_measures(view.totals);
  if (query_.totals_only || query_.by.empty()) {
    store.check_stack_view();
    return;
  }
  // The section's check runs on the other core while this one chooses the
  // rows; an error from it is thrown first. Rows are rendered only from
  // stacks that exist, so a damaged view cannot make this side misbehave.
  const std::size_t stack_count = tables_.stack_count();
  const auto key_values_of = [&](std::uint32_t row, std::uint64_t* values) {
    const std::uint32_t stack = view.stacks[row];
    if (stack != StackId().value && stack >= stack_count) throw Error("the stack view names a stack out of range");
    values[0] = stack;
  };
  const auto measures_of = [&](std::span<const std::uint32_t> rows) {
    std::vector<Measures> measures;
    measures.reserve(rows.size());
    for (const std::uint32_t row : rows) measures.push_back(measures_of_row(view, row));
    return measures;
  };
  on_both_cores([&] { store.check_stack_view(); },
                [&] {
                  store.check_stack_tree();  // the rows shown are rendered from it
                  show_rows(r, view.measures[static_cast<std::size_t>(query_.sort)], key_values_of, measures_of);
                });
}

}  // namespace heapql
