// Frame patterns that match no frame of a trace: a `--require` that keeps
// nothing, or a `--cull` that culls nothing, is most often a pattern written
// without the `()` or the template arguments of the symbol it meant. Each
// comes with the frames that nearly match it, for the message.
#pragma once

#include <string>
#include <vector>

#include "engine/store/trace_tables.h"

namespace heapql {

struct UnmatchedPattern {
  std::string pattern;
  std::vector<std::string> near;  // up to three frames (module!symbol) holding the pattern's literal text
};

// The patterns among `patterns` (valid pattern texts) that match no frame
// of `tables`.
std::vector<UnmatchedPattern> unmatched_patterns(const TraceTables& tables, const std::vector<std::string>& patterns);

// "PATTERN matches no frame of the trace; frames like it: a!b(), c!d (a pattern
// matches the whole symbol: add * to match its start)" (no newline).
std::string describe_unmatched(const UnmatchedPattern& unmatched, const std::string& option);

}  // namespace heapql
