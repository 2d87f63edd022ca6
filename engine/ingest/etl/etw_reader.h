// Reads ETW heap and VirtualAlloc traces (.etl, etw-heap.md): heap events
// become exact blocks keyed by process, heap handle and address; VirtualAlloc
// commits become page-exact `virtual` blocks in the pseudo heap VirtualAlloc;
// stack walks (and stack-cache keys) give each block its allocation stack,
// resolved against the process's modules at the event's time, and through PDBs
// when symbol paths are given. Events of every buffer are merged by time.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/store/events.h"
#include "engine/store/source_info.h"
#include "engine/store/trace_tables.h"

namespace heapql {

struct EtwReadOptions {
  bool show_progress = true;
  // A file cut short is refused (Error) instead of read up to the cut.
  bool strict = false;
  // Warnings (a cut file) go here; null = stderr.
  std::string* warnings = nullptr;
  // In-memory input (tests, fuzzing): these bytes are the file `path` names.
  std::optional<std::string_view> bytes;
  // Folders of PDBs, or symbol stores (name.pdb/GUIDAGE/name.pdb).
  std::vector<std::string> symbol_paths;
  // A recipe's run: PDBs are opened only as walked beneath their folder.
  bool confined = false;
};

// Reads the whole file (the events of a trace must be ordered by time before
// blocks can be built), then feeds `consumer` in time order.
SourceInfo read_etw(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                    const EtwReadOptions& options = {});

}  // namespace heapql
