// Report writers for a diff of two results (semantics.md §10): a table for
// people, JSON (docs/json.md), CSV, folded stacks with A's and B's values
// as flamegraph.pl draws a differential flame graph from, and an HTML page.
#pragma once

#include <string>

#include "engine/query/result_diff.h"
#include "engine/report/reports.h"
#include "engine/store/source_info.h"

namespace heapql {

std::string diff_table(const ResultDiff& diff, const SourceInfo& a, const SourceInfo& b,
                       const DisplayOptions& display = {});
std::string diff_json(const ResultDiff& diff, const SourceInfo& a, const SourceInfo& b);
std::string diff_csv(const ResultDiff& diff);
std::string diff_folded(const ResultDiff& diff);
// One self-contained, offline HTML page (docs/reports.md): diff_json's
// document (pruned to stay small), a differential flame graph and the delta
// table (diff_html_report.cpp). Throws Error in a build without the report.
std::string diff_html(const ResultDiff& diff, const SourceInfo& a, const SourceInfo& b,
                      const DisplayOptions& display = {});

}  // namespace heapql
