// The ETL reader's part of `heapql info`: what it saw (container, events by
// header kind and hook, what it skipped, stacks, symbols), the processes,
// modules and heaps it named, as generic details. JSON keys are documented in
// docs/json.md.
#pragma once

#include "engine/ingest/etl/etw_info.h"
#include "engine/store/source_details.h"

namespace heapql {

// The "etw", "processes", "modules" and "heaps" members of `info`'s JSON,
// and the lines its table ends with.
SourceDetails etw_details(const EtwInfo& etw);

}  // namespace heapql
