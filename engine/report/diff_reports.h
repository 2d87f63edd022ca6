// Report writers for a diff of two results (semantics.md §10): a table for
// people, JSON (docs/json.md), CSV, folded stacks with A's and B's values
// as flamegraph.pl draws a differential flame graph from, and an HTML page.
// Like the result's writers (reports.h), the first four write into a TextOut
// or return the whole text.
#pragma once

#include <string>

#include "engine/query/result_diff.h"
#include "engine/report/reports.h"
#include "engine/store/source_info.h"

namespace heapql {

void diff_table(TextOut& out, const ResultDiff& diff, const SourceInfo& a, const SourceInfo& b,
                const DisplayOptions& display = {});
inline std::string diff_table(const ResultDiff& diff, const SourceInfo& a, const SourceInfo& b,
                              const DisplayOptions& display = {}) {
  return whole_text([&](TextOut& out) { diff_table(out, diff, a, b, display); });
}
void diff_json(TextOut& out, const ResultDiff& diff, const SourceInfo& a, const SourceInfo& b);
inline std::string diff_json(const ResultDiff& diff, const SourceInfo& a, const SourceInfo& b) {
  return whole_text([&](TextOut& out) { diff_json(out, diff, a, b); });
}
void diff_csv(TextOut& out, const ResultDiff& diff);
inline std::string diff_csv(const ResultDiff& diff) {
  return whole_text([&](TextOut& out) { diff_csv(out, diff); });
}
void diff_folded(TextOut& out, const ResultDiff& diff);
inline std::string diff_folded(const ResultDiff& diff) {
  return whole_text([&](TextOut& out) { diff_folded(out, diff); });
}
// One self-contained, offline HTML page (docs/reports.md): diff_json's
// document (pruned to stay small), a differential flame graph and the delta
// table (diff_html_report.cpp). Throws Error in a build without the report.
std::string diff_html(const ResultDiff& diff, const SourceInfo& a, const SourceInfo& b,
                      const DisplayOptions& display = {});

}  // namespace heapql
