// Reading a whole small text file (a cull list, a recipe, a Lua module) with
// errors that name the file and what it was meant to be. Trace files have
// their own streaming reader (ingest/line_reader).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace heapql {

// Throws heapql::Error located at `path`: "cannot open WHAT: reason",
// "cannot read WHAT: reason", or "WHAT is larger than N bytes" (the read
// stops there, so a huge or endless file costs no more than the limit).
std::string read_text_file(const std::string& path, std::string_view what,
                           std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max());

}  // namespace heapql
