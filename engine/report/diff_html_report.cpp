// The diff's HTML page (docs/reports.md, "The diff page"): the same page as a
// query's, holding diff_json's document instead of result_json's; the page
// draws a differential flame graph and a delta table from it. Large diffs are
// pruned as large results are (html_report.h), with the pruned rows summed
// into `other` on both sides, so rows + other still equal the totals.
#include <algorithm>

#include "engine/report/diff_reports.h"
#include "engine/report/html_report.h"
#include "engine/report/json_measures.h"
#include "engine/report/json_writer.h"

namespace heapql {

namespace {

constexpr Measure kPageMeasures[] = {Measure::kSo, Measure::kSoc, Measure::kSt, Measure::kStc, Measure::kSrc};

// A diff row matters when either side matters on its own (as a query row
// does) or its change does: |delta| against the larger of the two totals.
bool diff_row_passes_share(const ResultDiff& d, const DiffRow& row, std::uint32_t per_million) {
  for (Measure m : kPageMeasures) {
    if (m == Measure::kSrc && !d.realloc_known) continue;
    const std::uint64_t a = row.a.value(m), b = row.b.value(m);
    const std::uint64_t change = a > b ? a - b : b - a;
    const std::uint64_t larger_total = std::max(d.totals.a.value(m), d.totals.b.value(m));
    if (share_at_least(a, d.totals.a.value(m), per_million) || share_at_least(b, d.totals.b.value(m), per_million) ||
        share_at_least(change, larger_total, per_million)) {
      return true;
    }
  }
  return false;
}

// As the query page's heapql-page element, with the pruned rows' measures on
// each side (`pruned.a`, `pruned.b`).
std::string diff_page_info_json(const PrunedDiff& pruned, const PagePruning& pruning, std::size_t rows_before,
                                const DisplayOptions& display) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("pruning").begin_object();
  write_pruning_counts(w, pruning, rows_before, pruned.diff.rows.size(), pruned.rows_pruned, pruned.other_rows_before);
  w.key("pruned").begin_object();
  w.key("a").begin_object();
  write_measure_fields(w, pruned.pruned.a, pruned.diff.realloc_known);
  w.end_object();
  w.key("b").begin_object();
  write_measure_fields(w, pruned.pruned.b, pruned.diff.realloc_known);
  w.end_object();
  w.end_object();
  w.end_object();
  write_page_filters(w, pruned.diff.a.query);
  write_page_display(w, display, pruned.short_names);
  w.end_object();
  return out;
}

}  // namespace

PrunedDiff prune_diff_for_page(const ResultDiff& diff, const PagePruning& pruning) {
  PrunedDiff pruned;
  pruned.other_rows_before = diff.other_rows;
  ResultDiff& kept = pruned.diff;
  // Everything but the rows, whole (whole_a and whole_b hold the kept rows'
  // keys): a field added to the summary reaches the page.
  static_cast<DiffSummary&>(kept) = diff;
  PageRowKeeper keeper(pruning);
  for (const DiffRow& row : diff.rows) {
    if (keeper.keep(*row.key, diff_row_passes_share(diff, row, pruning.min_share_per_million))) {
      kept.rows.push_back(row);
      continue;
    }
    pruned.pruned.a.add(row.a);
    pruned.pruned.b.add(row.b);
    ++pruned.rows_pruned;
  }
  if (pruned.rows_pruned > 0) {
    if (!kept.other) kept.other = DiffRow{};
    kept.other->a.add(pruned.pruned.a);
    kept.other->b.add(pruned.pruned.b);
    kept.other_rows += pruned.rows_pruned;
  }
  pruned.short_names = keeper.take_short_names();
  return pruned;
}

std::string diff_html(const ResultDiff& diff, const SourceInfo& a, const SourceInfo& b, const DisplayOptions& display) {
  require_html_report();  // before any work
  const PagePruning pruning;
  const PrunedDiff pruned = prune_diff_for_page(diff, pruning);
  return html_page(diff_json(pruned.diff, a, b), diff_page_info_json(pruned, pruning, diff.rows.size(), display));
}

}  // namespace heapql
