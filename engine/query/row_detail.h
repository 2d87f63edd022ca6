// The drill-down (`--detail N`, Query::detail): row N of an answer, described
// by the blocks it counts - their full (unculled) stacks, power-of-two size
// bins and decade lifetime bins (semantics.md §4's lifetime) - in a pass of
// its own over the store's events once the rows are chosen, since which
// blocks those are is known only then. The blocks are exactly the row's:
// the query's window, filters and block set (the window's blocks by the
// query's keep rule, query_plan.h; or those alive at the peak), so the
// bins add up to the row's blocks and bytes (docs/semantics.md, "The
// drill-down").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/query/query.h"
#include "engine/query/result.h"
#include "engine/query/stack_plan.h"
#include "engine/store/trace_store.h"

namespace heapql {

// The detail of row `query.detail` of `result` (the answer to `query` from
// `store`, whose tables its keys are of); `filters` are the query's
// patterns, compiled as the answer's were. None when the query asks for no
// detail or the result has fewer rows (detail_beyond_rows says so).
std::optional<RowDetail> describe_row(const TraceStore& store, const Query& query, StackFilters filters,
                                      const Result& result);

// "--detail 12: the answer has 10 rows": what a door says when the row asked
// for is not listed.
std::string detail_beyond_rows(std::uint64_t row, std::size_t rows);

}  // namespace heapql
