// The tables of an export (docs/export.md): the trace summary, modules,
// frames, the stack tree, the frames of every allocating stack as rows, and
// every block with its bucket's size, stack, process, heap and thread.
#pragma once

#include "engine/export/table_sink.h"
#include "engine/store/trace_store.h"

namespace heapql {

// Throws Error (from the store, or the sink naming its file).
void export_tables(const TraceStore& store, TableSink& sink);

}  // namespace heapql
