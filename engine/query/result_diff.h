// A diff of two results of the same query (semantics.md §10): rows matched by
// their rendered key, each with A's and B's measures and B - A, sorted by the
// absolute delta of the sort measure, cut at top N like any result.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/query/result.h"

namespace heapql {

enum class DiffPresence { kBoth, kNew, kGone };  // new: only in B; gone: only in A

struct DiffRow {
  // The key of a row of ResultDiff::whole_a or whole_b (null for the totals
  // and the other row): a diff of every stack of two big traces copies none.
  const std::vector<KeyValue>* key = nullptr;
  Measures a, b;  // absent measures count as 0
  DiffPresence presence = DiffPresence::kBoth;

  std::int64_t delta(Measure m) const {
    return static_cast<std::int64_t>(b.value(m)) - static_cast<std::int64_t>(a.value(m));
  }
};

// Everything a diff says but its rows, as ResultSummary is to Result: what
// the diff's HTML page copies whole when it prunes rows.
struct DiffSummary {
  // The two results as answered, without their rows (they are in `rows`):
  // totals, peaks, windows, excluded counts, the query with the diff's top.
  ResultSummary a, b;
  std::shared_ptr<const Result> whole_a, whole_b;  // the rows' keys point into these
  std::optional<DiffRow> other;  // the rows beyond top N, summed
  std::uint64_t other_rows = 0;
  DiffRow totals;              // the two results' totals and their delta
  bool realloc_known = false;  // both sides mark reallocs
  std::vector<std::string> notes;

  Measure sort() const { return a.query.sort; }
};

struct ResultDiff : DiffSummary {
  std::vector<DiffRow> rows;
};

// Why results sorted by impacting are not diffed (diff_results throws it,
// and heapql diff says it before reading the traces).
inline constexpr const char* kDiffImpactingRefused =
    "diff: a result sorted by impacting cannot be diffed; sort both by so, soc, st, stc or src";

// `a` and `b` must have been answered with no top limit (so that every key is
// matched), on the same grouping, neither sorted by impacting. Throws Error
// otherwise.
ResultDiff diff_results(std::shared_ptr<const Result> a, std::shared_ptr<const Result> b, std::uint64_t top);

}  // namespace heapql
