// Where the engine's warnings go: appended to the caller's collection when it
// keeps one (recipes, tests), else to stderr as "heapql: warning: ...".
#pragma once

#include <string>
#include <string_view>

namespace heapql {

// `line` ends with its newline.
void emit_warning(std::string* collected, std::string_view line);

}  // namespace heapql
