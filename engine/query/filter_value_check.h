// --process, --heap and --thread values that name nothing in a trace: such a
// filter keeps no block and the answer is an empty table, most often for a
// typo (`--process memory_test_ap`). Each comes with the names it nearly is,
// or the ones the trace has, for a warning. (Frame patterns: pattern_check.h.)
#pragma once

#include <string>
#include <vector>

#include "engine/query/query.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// One warning text (no newline) per value of query.processes, query.heaps
// and query.threads that matches no process, heap or thread of `tables`.
std::vector<std::string> unmatched_filter_values(const TraceTables& tables, const Query& query);

}  // namespace heapql
