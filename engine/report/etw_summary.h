// The ETW part of `heapql info`: what the ETL reader saw (container, events by
// header kind and hook, what it skipped, stacks, symbols), the processes,
// modules and heaps it named. JSON keys are documented in docs/json.md.
#pragma once

#include <string>

#include "engine/report/json_writer.h"
#include "engine/store/source_info.h"

namespace heapql {

// Writes "etw", "processes", "modules" and "heaps" keys into the open object.
void write_etw_summary_json(JsonWriter& w, const EtwInfo& etw);
std::string etw_summary_table(const EtwInfo& etw);

}  // namespace heapql
