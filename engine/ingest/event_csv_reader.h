// Reads the plain CSV event format of docs/import.md: one allocation, free or
// realloc a line, with process, thread, heap, address, size and stack, so
// that any tracer or script can feed heapql. Blocks are exact by (process,
// heap, address); reallocs are marked (semantics.md §1). Streams: interns
// into TraceTables and feeds events to a consumer as it reads, holding only
// live blocks, the tables and one line.
#pragma once

#include <cstdint>
#include <string>
#include <optional>
#include <string_view>

#include "engine/store/events.h"
#include "engine/store/source_info.h"
#include "engine/store/trace_tables.h"

namespace heapql {

struct EventCsvReadOptions {
  // A progress bar on stderr while reading (bytes read of the file size, rate,
  // time left), only when stderr is a terminal and the file is a regular file.
  bool show_progress = true;
  // Warnings (anomalies with their line, the first few) go here; null = stderr.
  std::string* warnings = nullptr;
  // An anomaly is refused (exit 2) instead of counted with a warning.
  bool strict = false;
  // In-memory input (tests, fuzzing): these bytes are the file the path names.
  std::optional<std::string_view> bytes;
};

// The header line the format requires, exactly.
inline constexpr std::string_view kEventCsvHeader = "time,event,process,thread,heap,address,size,old_address,stack";

// The longest line read (bytes, without the line break); longer is an error,
// and the reader never buffers more than this.
inline constexpr std::size_t kEventCsvMaxLineBytes = std::size_t{1} << 20;

// Reads the events at `path` into `tables`, feeding `consumer`; returns what
// was learned. Throws Error (file, line, column, what was expected) on
// malformed input.
SourceInfo read_event_csv(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                          const EventCsvReadOptions& options = {});

// True when the file's first line that is neither blank nor a `#` comment is
// the header above (looks at the first 64 KiB only; never throws).
bool looks_like_event_csv(const std::string& path);

}  // namespace heapql
