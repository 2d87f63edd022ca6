// Grouping by a key computed from each culled stack (a recipe's `by`
// function): the query is answered by stack with no top limit, then each
// row's stack is mapped to its key once, rows with equal keys are merged
// (every measure adds), and the rows are sorted and cut again exactly as the
// aggregator does (semantics.md §3, §6). The work is per unique culled stack,
// never per block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "engine/query/result.h"

namespace heapql {

using StackKeyFunction = std::function<std::string(const KeyValue& stack)>;

// `result` must have been answered with a stack level at `level` and no top
// limit. Returns rows keyed with GroupBy::kCustom at `level`, at most `top`.
Result regroup_by_stack_key(Result result, std::size_t level, const StackKeyFunction& key_of, std::uint64_t top);

}  // namespace heapql
