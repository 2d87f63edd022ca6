// The one entry point from a trace's file name to events: picks the reader
// for the file and streams it into a consumer (one-shot queries), or loads it
// into a TraceStore (repeated queries). New readers plug in here only. Store
// files are not read here: engine/session finds a trace's store and answers
// from it.
#pragma once

#include <memory>
#include <string>

#include "engine/ingest/open_options.h"
#include "engine/store/events.h"
#include "engine/store/source_info.h"
#include "engine/store/trace_store.h"
#include "engine/store/trace_tables.h"

namespace heapql {

TraceFormat detect_trace_format(const std::string& path);

// Reads the trace at `path` with its reader into `consumer`, interning into
// `tables`. Throws Error naming the file.
SourceInfo read_trace(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                      const OpenOptions& options = {});

// Reads the whole trace into a store in memory.
std::unique_ptr<TraceStore> load_trace(const std::string& path, const OpenOptions& options = {});

}  // namespace heapql
