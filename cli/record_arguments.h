// What `heapql record` takes: `[-o NAME] -- PROGRAM [ARGS...]`, read the same
// by the Linux command (record_command.cpp) and the Windows one
// (record_on_windows.cpp), which then do different things with it.
#pragma once

#include <string>
#include <vector>

#include "cli/arguments.h"

namespace heapql::cli {

inline constexpr const char* kRecordUsage = "heapql record [-o NAME] -- PROGRAM [ARGS...]";

struct RecordArguments {
  std::string output_name;           // -o NAME; empty when not given
  std::vector<std::string> program;  // after `--`; may be empty
};

// Throws UsageError for an unknown option, a missing value, or a trace
// given where the program belongs.
RecordArguments parse_record_arguments(Arguments& args);

}  // namespace heapql::cli
