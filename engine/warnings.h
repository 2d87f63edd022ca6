// Where the engine's warnings go: appended to the caller's collection when it
// keeps one (recipes, tests), else to stderr as "heapql: warning: ...".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace heapql {

// `line` ends with its newline.
void emit_warning(std::string* collected, std::string_view line);

// Told the size of each warning before it is written to stderr (a recipe's
// run bounds what it writes there: lua/host/run_limits.h); null: nobody.
using StderrMeter = void (*)(std::size_t bytes);
void set_stderr_meter(StderrMeter meter);

}  // namespace heapql
