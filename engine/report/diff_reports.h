// Report writers for a diff of two results (semantics.md §10): a table for
// people, JSON (docs/json.md), CSV, and folded stacks with A's and B's values
// as flamegraph.pl draws a differential flame graph from.
#pragma once

#include <string>

#include "engine/query/result_diff.h"
#include "engine/store/source_info.h"

namespace heapql {

std::string diff_table(const ResultDiff& diff, const SourceInfo& a, const SourceInfo& b);
std::string diff_json(const ResultDiff& diff, const SourceInfo& a, const SourceInfo& b);
std::string diff_csv(const ResultDiff& diff);
std::string diff_folded(const ResultDiff& diff);

}  // namespace heapql
