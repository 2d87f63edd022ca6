// The aggregator's answers from a store (engine/store/trace_store.h), each
// the answer the event stream would give: from the stack view when the
// query is the view's own (stack_view_query.h), from the bucket sums when
// the query needs no block's own times, else by replaying the events up to
// T2. Also the view itself, built at ingest with the same roll-up a query
// does: its rows are those the query over the bucket sums would number, in
// that order, so the answers are byte-identical (tests/cli/store_test.cpp
// compares them).
#include <algorithm>

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/query/aggregator_count_steps.h"
#include "engine/query/byte_sums.h"
#include "engine/query/cull_list.h"
#include "engine/query/row_selection.h"
#include "engine/query/stack_view_query.h"
#include "engine/query/whole_trace_views.h"
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

std::array<std::uint64_t, kViewMeasures> view_values(const StackView& view, std::size_t row) {
  std::array<std::uint64_t, kViewMeasures> v;
  for (std::size_t k = 0; k < kViewMeasures; ++k) v[k] = view.value(k, row);
  return v;
}

Measures measures_of_row(const StackView& view, std::size_t row) { return view_measures(view_values(view, row)); }

constexpr unsigned kAifiBit = 1u << static_cast<unsigned>(Impacting::kAifi);
constexpr unsigned kAifoBit = 1u << static_cast<unsigned>(Impacting::kAifo);

// A row's or the totals' measures counting only the blocks of `types` (AIFI,
// AIFO): over the whole trace the outstanding ones (so, soc) are AIFO and
// the rest AIFI, measured as block_measures() measures them. Every src is 0
// (stack_view_impacting_subset).
Measures subset_measures(const std::array<std::uint64_t, kViewMeasures>& v, unsigned types) {
  const std::uint64_t so = v[0], soc = v[1], st = v[2], stc = v[3];
  if (soc > stc || so > st) throw Error("store is inconsistent: a stack view row with more outstanding than allocated");
  Measures m;
  if ((types & kAifoBit) != 0) {
    m.so = m.st = m.size = so;
    m.soc = m.stc = m.count = m.blocks = soc;
    m.impacting = static_cast<std::int64_t>(so);
  }
  if ((types & kAifiBit) != 0) {
    m.st += st - so;
    m.size += st - so;
    m.stc += stc - soc;
    m.count += stc - soc;
    m.blocks += stc - soc;
  }
  return m;
}

}  // namespace

void Aggregator::answer_from(const TraceStore& store, const WindowIndex* window_index,
                             const WholeTraceViews* views) {
  if (answer_from_view(store)) return;
  if (views != nullptr && answer_from_session_view(store, *views)) return;
  if (answer_from_sums(store.columns_but_blocks(), [&] { store.check_bucket_sums(); })) return;
  if (window_index != nullptr && answer_from_window_index(store, *window_index)) return;
  // Nothing at or after the window's end changes the answer but how the
  // blocks alive then end (record(): freed after T2 is not freed in it).
  // The states of the buckets the replay may meet are set at once, while
  // the store's checks start on the other core: a chunk of them that the
  // replay meets none of stays a stand-in, which takes no memory, and those
  // it meets lie side by side in one block (docs/store.md, "From T1 to T2").
  store.replay(*this, plan_.t2(), [&] {
    with_layout([&]<class S>() {
      const std::size_t met = store.buckets_met_before(plan_.t2());
      ChunkedVector<S>& all = states<S>();
      if (!all.empty()) return all.grow_at_once_to(met);  // set by sums that could not answer
      auto unplanned = std::make_shared<std::vector<S>>(ChunkedVector<S>::kChunkSize);
      all.grow_sparse_to(met, unplanned->data());
      unplanned_chunk_ = std::move(unplanned);
    });
  });
}

bool Aggregator::answer_from_sums(const StoreColumns& columns, const std::function<void()>& check_sums) {
  // The sums describe the whole trace: every block is allocated inside
  // (AIFI when freed, AIFO when not).
  if (!plan_.of_whole_trace_without_times()) return false;
  // The peak layout keeps no per-type counts for the block filters to choose from.
  if (plan_.layout() == BucketLayout::kPeak && plan_.has_block_filters()) return false;
  if (!columns.has_bucket_sums()) return false;
  if (check_sums) check_sums();
  // Every bucket with blocks gets a state: all of them at once.
  with_layout([&]<class S>() { states<S>().grow_at_once_to(tables_.bucket_count()); });
  // The stored peak is over every bucket: each one with blocks must pass.
  bool all_pass = true;
  columns.bucket_sums.each_chunk([&](std::span<const BucketSum> chunk) { all_pass = all_pass && sums_all_pass(chunk); });
  if (!all_pass) return false;
  columns.bucket_sums.each_chunk([&](std::span<const BucketSum> chunk) { add_sums(chunk); });
  in_window_ = true;
  peak_seen_ = true;
  peak_ = Peak{columns.peak.bytes, columns.peak.blocks, columns.peak.time_ns};
  end_ns_ = columns.end_ns;
  return true;
}

bool Aggregator::sums_all_pass(std::span<const BucketSum> sums) {
  return with_layout([&]<class S>() {
    for (const BucketSum& sum : sums) {
      if (plan<S>(BucketId(sum.bucket)).key < 0) return false;
    }
    return true;
  });
}

void Aggregator::add_sums(std::span<const BucketSum> sums) {
  with_layout([&]<class S>() { apply_sums<S>(sums); });
}

template <class S>
void Aggregator::apply_sums(std::span<const BucketSum> sums) {
  ChunkedVector<S>& all = states<S>();
  for (const BucketSum& sum : sums) {
    S& state = all[sum.bucket];
    if (sum.allocs > 0xFFFFFFFFu) bucket_block_count_overflow();
    if constexpr (S::kPeak) {
      // Every bucket's blocks at the peak, saved in the peak's epoch (1).
      state.saved_epoch = 1;
      state.live_at_peak = sum.live_at_peak;
    } else {
      // The bucket's blocks in three groups that end alike: freed
      // temporarily, freed otherwise (AIFI), alive at the end (AIFO). The
      // sums have no times: a group is counted as its blocks would be as
      // they end.
      const struct {
        BlockEnd end;
        std::uint64_t blocks;
      } groups[] = {{BlockEnd{.alloc_in = true, .freed_in = true, .temporary = true}, sum.temporary_frees},
                    {BlockEnd{.alloc_in = true, .freed_in = true}, sum.frees - sum.temporary_frees},
                    {BlockEnd{.alloc_in = true}, sum.allocs - sum.frees}};
      for (const auto& group : groups) {
        if (group.blocks == 0) continue;
        const auto blocks = static_cast<std::uint32_t>(group.blocks);
        if (S::kLiveAreAifo && !group.end.freed_in) {
          add_live(state, WindowPart::kInside, blocks);  // this layout's AIFO blocks are its live ones
        } else {
          record(state, sum.bucket, group.end, blocks, tallies_);
        }
      }
    }
  }
  if constexpr (S::kPeak) peak_epoch_ = 1;
}

void Aggregator::build_stack_view(const TraceTables& tables, const BucketSumChunks& sums,
                                  const std::function<void()>& sums_read, StackViewSink& sink) {
  build_whole_trace_view(tables, stack_view_query(), sums, {}, sink, sums_read);
}

void Aggregator::build_whole_trace_view(const TraceTables& tables, const Query& query, const BucketSumChunks& sums,
                                        std::span<const StackId> default_culled, StackViewSink& sink,
                                        const std::function<void()>& sums_read) {
  Aggregator aggregator(tables, query);
  aggregator.use_default_culled(default_culled);
  const auto not_from_sums = [] {
    return Error("internal error: the stack view's query is not answered from the bucket sums");
  };
  if (!aggregator.plan_.of_whole_trace_without_times() || aggregator.plan_.layout() != BucketLayout::kWholeTrace) {
    throw not_from_sums();
  }
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
  head.temporary_blocks = aggregator.tallies_.temporary_blocks;
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
    aggregator.each_whole_trace_contribution(
        [&](std::size_t row, const Measures& m) { column[row] += m.value(static_cast<Measure>(k)); });
    if (k == static_cast<std::size_t>(Measure::kStc) && std::find(column.begin(), column.end(), 0) != column.end()) {
      throw Error("internal error: a stack view row without blocks");
    }
    sink.measure(column);
  }
}

bool Aggregator::answer_from_view(const TraceStore& store) {
  const StackView* view = store.stack_view();
  if (view == nullptr || view->cull_fingerprint != default_cull_fingerprint()) return false;
  unsigned types = 0;
  if (!stack_view_answers(plan_.query())) {
    // The view's query but for its impacting types: its rows split, where
    // no src needs splitting (its check sees that the rows add up to this).
    types = stack_view_impacting_subset(plan_.query());
    if (types == 0 || view->totals[static_cast<std::size_t>(Measure::kSrc)] != 0) return false;
  }
  view_store_ = &store;
  view_types_ = types;
  read_view(*view, store.columns_but_blocks());
  return true;
}

void Aggregator::subset_totals_from_view(Result& r) const {
  const StackView& view = *view_;
  r.totals = subset_measures(view.totals, view_types_);
  // The temporary blocks are all freed (AIFI); the blocks of the other type
  // are allocated in the window and filtered out.
  if ((view_types_ & kAifiBit) == 0) r.temporary_blocks = 0;
  const Measures all = subset_measures(view.totals, kAifiBit | kAifoBit);
  r.excluded_blocks = all.count - r.totals.count;
  r.excluded_bytes = all.size - r.totals.size;
}

bool Aggregator::answer_from_session_view(const TraceStore& store, const WholeTraceViews& views) {
  const StackView* view = views.answering(plan_.query());
  if (view == nullptr) return false;
  read_view(*view, store.columns_but_blocks());
  return true;
}

void Aggregator::read_view(const StackView& view, const StoreColumns& columns) {
  view_ = &view;
  tallies_.temporary_blocks = view.temporary_blocks;
  in_window_ = true;
  peak_seen_ = true;
  peak_ = Peak{columns.peak.bytes, columns.peak.blocks, columns.peak.time_ns};
  end_ns_ = columns.end_ns;
}

void Aggregator::roll_up_from_view(Result& r) {
  const StackView& view = *view_;
  const Query& query = plan_.query();
  r.totals = view_measures(view.totals);
  if (view_store_ == nullptr) {
    // A session's view, made in memory from checked sums: its keys are
    // the level's values as the aggregator found them.
    if (query.totals_only || query.by.empty()) return;
    show_rows(
        r, tables_, query, view.rows(),
        [&](const auto& visit) { view.each_value_chunk(static_cast<std::size_t>(query.sort), visit); },
        [&](std::uint32_t row, std::uint64_t* values) { values[0] = view.stack(row); },
        [&](std::span<const std::uint32_t> rows) {
          std::vector<Measures> measures;
          measures.reserve(rows.size());
          for (const std::uint32_t row : rows) measures.push_back(measures_of_row(view, row));
          return measures;
        });
    return;
  }
  const TraceStore& store = *view_store_;
  if (query.totals_only || query.by.empty()) {
    store.check_stack_view();
    if (view_types_ != 0) subset_totals_from_view(r);  // from totals checked: damage is reported as damage
    return;
  }
  // The section's check runs on the other core while this one chooses the
  // rows; an error from it is thrown first. Rows are rendered only from
  // stacks that exist, so a damaged view cannot make this side misbehave.
  const std::size_t stack_count = tables_.stack_count();
  const auto key_values_of = [&](std::uint32_t row, std::uint64_t* values) {
    const std::uint32_t stack = view.stack(row);
    if (stack != StackId().value && stack >= stack_count) throw Error("the stack view names a stack out of range");
    values[0] = stack;
  };
  // A view row's measures as the query counts them: the five, or split to
  // the impacting types view_types_.
  const auto measures_at = [&](std::uint32_t row) {
    return view_types_ != 0 ? subset_measures(view_values(view, row), view_types_) : measures_of_row(view, row);
  };
  on_both_cores([&] { store.check_stack_view(); },
                [&] {
                  store.check_stack_tree();  // the rows shown are rendered from it
                  // Split, the rows are those with blocks of the types counted (`present`),
                  // ranked by their split measure; else every row, by its column.
                  std::vector<std::uint64_t> split_values;
                  std::vector<std::uint32_t> present;
                  if (view_types_ != 0) {
                    // An inconsistency found here is reported after the check's damage, which explains it.
                    subset_totals_from_view(r);
                    view.each_block([&](std::size_t first, std::size_t n, const StackView::Block& block) {
                      for (std::size_t j = 0; j < n; ++j) {
                        std::array<std::uint64_t, kViewMeasures> v;
                        for (std::size_t k = 0; k < kViewMeasures; ++k) v[k] = StackView::value_in(block, k, j);
                        const Measures m = subset_measures(v, view_types_);
                        if (m.blocks == 0) continue;
                        present.push_back(static_cast<std::uint32_t>(first + j));
                        split_values.push_back(m.value(query.sort));
                      }
                    });
                  }
                  const auto row_of = [&](std::uint32_t i) { return view_types_ != 0 ? present[i] : i; };
                  const SortValueChunks sort_values = [&](const auto& visit) {
                    if (view_types_ != 0) return visit(split_values);
                    view.each_value_chunk(static_cast<std::size_t>(query.sort), visit);
                  };
                  show_rows(
                      r, tables_, query, view_types_ != 0 ? present.size() : view.rows(), sort_values,
                      [&](std::uint32_t i, std::uint64_t* values) { key_values_of(row_of(i), values); },
                      [&](std::span<const std::uint32_t> shown) {
                        std::vector<Measures> measures;
                        measures.reserve(shown.size());
                        for (const std::uint32_t i : shown) measures.push_back(measures_at(row_of(i)));
                        return measures;
                      });
                });
}

}  // namespace heapql
