// What the result and diff tables share: a window as they show it, and a
// row's key: the non-stack levels joined with " > ", then the stack's frames
// one per line (at most kFramesShown), indented past the measure columns.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/query/result.h"
#include "engine/report/reports.h"

namespace heapql {

constexpr std::size_t kFramesShown = 16;

// "1s..3s", "0s..end".
std::string window_text(const TimeWindow& window);

// A frame as tables show it: shortened (short_name.h) unless full names.
std::string shown_frame(const std::string& frame, const DisplayOptions& display);

// Appends a header line (`trace ...`, `query ...`, without its newline),
// cut to the display's width as the rows are.
void append_header_line(std::string& out, std::string line, const DisplayOptions& display);
// Appends a note (`note     ...`, whose text may already run over lines),
// wrapped at the display's width under its label: a caveat is not cut.
void append_header_note(std::string& out, std::string_view note, const DisplayOptions& display);

// Appends the key (from its first line's text on) and its frame lines, each
// cut to the display's width.
void append_table_key(std::string& out, const std::vector<KeyValue>& key, std::size_t indent,
                      const DisplayOptions& display);

}  // namespace heapql
