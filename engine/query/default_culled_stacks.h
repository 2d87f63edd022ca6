// Each bucket's stack culled by the built-in cull list alone (semantics.md
// §6): what every query that culls by default works out again for each
// bucket it meets, worked out once for a session that answers many
// (TraceSession::prepare_for_many_queries; Aggregator::use_default_culled).
#pragma once

#include <vector>

#include "engine/store/trace_tables.h"

namespace heapql {

// By bucket id.
std::vector<StackId> default_culled_stacks(const TraceTables& tables);

}  // namespace heapql
