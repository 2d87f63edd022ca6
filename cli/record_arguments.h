// What `heapql record` takes: `[-o NAME] [--keep-raw] -- PROGRAM [ARGS...]`
// or `--pid PID`, read the same
// by the Linux command (record_command.cpp) and the Windows one
// (record_on_windows.cpp), which then do different things with it.
#pragma once

#include <string>
#include <vector>

#include "cli/arguments.h"

namespace heapql::cli {

inline constexpr const char* kRecordUsage =
    "heapql record [-o NAME] [--keep-raw] -- PROGRAM [ARGS...]  or  heapql record [-o NAME] [--keep-raw] --pid PID";

struct RecordArguments {
  std::string output_name;           // -o NAME; empty when not given
  std::vector<std::string> program;  // after `--`; may be empty
  bool keep_raw = false;             // --keep-raw: NAME.raw.zst too
  std::string pid;                   // --pid PID: a running process to attach to; empty when not given
};

// Throws UsageError for an unknown option, a missing value, or a trace
// given where the program belongs.
RecordArguments parse_record_arguments(Arguments& args);

// NAME of the recording NAME.zst: `-o`'s value without a .zst or .gz
// suffix, or heaptrack.WHAT.ID as heaptrack names its own (WHAT: the
// program's file name, or "pid"; ID: this process's, or the attached one's).
std::string recording_name(std::string output_name, const std::string& what, const std::string& id);

}  // namespace heapql::cli
