// The aggregator's roll-up: bucket counts to rows, once, at the end. The
// group keys are numbered, each bucket's counts become measures of the
// rows it adds to, and row_selection.h picks the rows shown.
#include <algorithm>
#include <utility>

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/query/block_measures.h"
#include "engine/query/byte_sums.h"
#include "engine/query/row_selection.h"
#include "engine/util/dense_rank.h"
#include "engine/util/on_both_cores.h"

namespace heapql {

void Aggregator::rank_keys() {
  if (!keys_.rank()) return;
  with_layout([&]<class S>() {
    ChunkedVector<S>& all = states<S>();
    in_two_halves(all.size(), kSplitRollUpFrom, [&](std::size_t begin, std::size_t end) {
      for (std::size_t b = begin; b < end; ++b) {
        if (all[b].key >= 0) all[b].key = keys_.ranked(all[b].key);
      }
    });
  });
}

template <class S, class Visit>
void Aggregator::rows_of(const S& state, Visit&& visit) const {
  // Without the bucket's size or measures: the roll-up finds the rows with
  // blocks from this alone, and contributions() adds to exactly these.
  const bool impacting_level = plan_.impacting_level();
  const std::size_t per_key = impacting_level ? 4 : 1;
  const std::size_t first = std::size_t(state.key) * per_key;
  if constexpr (S::kPeak) {
    const std::uint64_t alive = state.saved_epoch == peak_epoch_ ? state.live_at_peak : state.live();
    const std::size_t aifo = impacting_level ? static_cast<std::size_t>(Impacting::kAifo) : 0;
    if (alive != 0) visit(first + aifo, Impacting::kAifo, alive);
  } else {
    constexpr std::size_t kTypes = sizeof(S::blocks_by_type) / sizeof(std::uint32_t);
    for (std::size_t t = 0; t < kTypes; ++t) {
      const std::uint32_t n = state.blocks_by_type[t];
      if (n != 0) visit(first + (impacting_level ? t : 0), static_cast<Impacting>(t), std::uint64_t{n});
    }
    if constexpr (S::kLiveAreAifo) {
      constexpr auto aifo = static_cast<std::size_t>(Impacting::kAifo);
      if (state.live_inside != 0)
        visit(first + (impacting_level ? aifo : 0), Impacting::kAifo, std::uint64_t{state.live_inside});
    }
  }
}

template <class S, class Add>
void Aggregator::contributions(const S& state, std::size_t b, Add&& add) const {
  const Bucket& bucket = tables_.bucket(BucketId(static_cast<std::uint32_t>(b)));
  const bool impacting_mode = plan_.impacting_mode();
  rows_of(state, [&](std::size_t row, Impacting type, std::uint64_t n) {
    add(row, block_measures(n, type, bucket, S::kPeak, impacting_mode));
  });
}

template <class S>
void Aggregator::roll_up(Result& r) {
  // Two passes over the buckets, so that only the rows shown are ever held
  // whole: the first sums totals and each row's sort measure, the second the
  // measures of the rows shown. The rest ([other]) is the totals minus those.
  const Query& query = plan_.query();
  const ChunkedVector<S>& all = states<S>();
  const std::size_t per_key = plan_.impacting_level() ? 4 : 1;
  const bool keyed = !query.totals_only && !query.by.empty();
  const std::size_t row_count = keyed ? keys_.count() * per_key : 0;
  const Measure sort = query.sort;
  const bool by_impacting = sort == Measure::kImpacting;

  // The rows with blocks, numbered densely: a row's number is how many rows
  // with blocks come before it (a bit per row, and a count per 64 rows). The
  // arrays below then hold those rows only, not every key times every
  // impacting type (millions of rows, most of them empty, in a window).
  // Each half of the buckets marks its own bits; the upper half's are
  // merged after.
  std::vector<std::uint64_t> present((row_count + 63) / 64, 0);
  if (keyed) {
    std::vector<std::uint64_t> upper_present;
    in_two_halves(all.size(), kSplitRollUpFrom, [&](std::size_t begin, std::size_t end) {
      std::vector<std::uint64_t>* bits = &present;
      if (begin != 0) {  // the upper half, beside
        upper_present.assign(present.size(), 0);
        bits = &upper_present;
      }
      for (std::size_t b = begin; b < end; ++b) {
        const S& state = all[b];
        if (state.key < 0) continue;
        rows_of(state, [&](std::size_t row, Impacting, std::uint64_t) {
          (*bits)[row / 64] |= std::uint64_t{1} << (row % 64);
        });
      }
    });
    for (std::size_t w = 0; w < upper_present.size(); ++w) present[w] |= upper_present[w];
  }
  const DenseRank dense(std::move(present));
  // The present rows, ascending (index = dense number); not needed, nor its
  // megabytes of fresh pages, when every row is present (a whole-trace query
  // grouped by one level: its keys were numbered densely).
  std::vector<std::uint32_t> rows;
  if (!dense.identity()) {
    rows.reserve(dense.count());
    dense.each([&](std::size_t row) { rows.push_back(static_cast<std::uint32_t>(row)); });
  }
  const auto row_of = [&](std::uint32_t dense_row) -> std::size_t {
    return dense.identity() ? dense_row : rows[dense_row];
  };

  // One thread: split in halves (atomic additions to the sort values, or
  // each thread adding only its keys' buckets), this pass took longer.
  std::vector<std::uint64_t> sort_values(dense.count(), 0);
  for (std::size_t b = 0; b < all.size(); ++b) {
    const S& state = all[b];
    if (state.key == kUnplanned) continue;
    if (state.key == kFilteredOut) {
      std::uint64_t inside = state.blocks_by_type[0];
      if constexpr (!S::kPeak && !S::kLiveAreAifo) inside += state.blocks_by_type[1];
      r.excluded_blocks += inside;
      add_bytes(r.excluded_bytes, bytes_times(inside, size_of(state, b)));
      continue;
    }
    contributions(state, b, [&](std::size_t row, const Measures& m) {
      r.totals.add(m);
      // Each byte measure's every part is at most these two sums.
      checked_bytes(r.totals.st);
      checked_bytes(r.totals.size);
      // Impacting sizes are summed signed (as two's complement, wrapping
      // as int64 addition does) and ranked by the sum's magnitude below: a
      // row's parts may have either sign.
      if (keyed) sort_values[dense(row)] += by_impacting ? static_cast<std::uint64_t>(m.impacting) : m.value(sort);
    });
  }
  if (!keyed) return;
  if (by_impacting) {
    for (std::uint64_t& v : sort_values) v = Measures::magnitude(static_cast<std::int64_t>(v));
  }

  const std::size_t width = query.by.size();
  const auto key_values_of = [&](std::uint32_t dense_row, std::uint64_t* values) {
    const std::size_t row = row_of(dense_row);
    const std::size_t key = row / per_key;
    for (std::size_t level = 0; level < width; ++level) {
      values[level] = query.by[level] == GroupBy::kImpacting ? row % per_key : keys_.value(key, level);
    }
  };
  // The measures of the rows shown: a second pass over the buckets.
  const auto measures_of = [&](std::span<const std::uint32_t> shown_rows) {
    sort_values = std::vector<std::uint64_t>();
    // Each shown row's place in shown_rows, by dense row: a few rows, looked
    // up only for the buckets of a shown key.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> shown_index(shown_rows.size());
    // A bit per key with a row shown: the other buckets are passed over
    // without reading their size.
    std::vector<std::uint64_t> key_shown((keys_.count() + 63) / 64, 0);
    for (std::size_t i = 0; i < shown_rows.size(); ++i) {
      shown_index[i] = {shown_rows[i], static_cast<std::uint32_t>(i)};
      const std::size_t key = row_of(shown_rows[i]) / per_key;
      key_shown[key / 64] |= std::uint64_t{1} << (key % 64);
    }
    std::sort(shown_index.begin(), shown_index.end());
    std::vector<Measures> measures(shown_rows.size());
    for (std::size_t b = 0; b < all.size(); ++b) {
      const S& state = all[b];
      if (state.key < 0) continue;
      const auto key = static_cast<std::size_t>(state.key);
      if ((key_shown[key / 64] & (std::uint64_t{1} << (key % 64))) == 0) continue;
      contributions(state, b, [&](std::size_t row, const Measures& m) {
        const std::uint32_t dense_row = dense(row);
        const auto at =
            std::lower_bound(shown_index.begin(), shown_index.end(), std::pair{dense_row, std::uint32_t{0}});
        if (at != shown_index.end() && at->first == dense_row) measures[at->second].add(m);
      });
    }
    return measures;
  };
  show_rows(r, tables_, query, sort_values, key_values_of, measures_of);
}

void Aggregator::each_whole_trace_contribution(const std::function<void(std::size_t row, const Measures&)>& add) const {
  for (std::size_t b = 0; b < whole_trace_states_.size(); ++b) {
    const WholeTraceState& state = whole_trace_states_[b];
    if (state.key == kFilteredOut) throw Error("internal error: a bucket filtered out of the stack view");
    if (state.key >= 0) contributions(state, b, add);
  }
}

void Aggregator::roll_up_buckets(Result& r) {
  rank_keys();
  with_layout([&]<class S>() { roll_up<S>(r); });
}

}  // namespace heapql
