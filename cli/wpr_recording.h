// What `heapql record` says on Windows, where heaptrack does not exist: the
// WPR commands that record a heap trace of the program with heapql's shipped
// profile (queries/windows/heapql-heap.wprp). Portable text, so that the
// Linux tests check it too; only the Windows heapql prints it.
#pragma once

#include <string>
#include <vector>

namespace heapql::cli {

// `program` is the program and its arguments as given after `--` (empty:
// PROGRAM.exe stands in); `trace` the -o name (empty: the program's name).
// `profile` is the shipped .wprp's path.
std::string wpr_recording_instructions(const std::vector<std::string>& program, std::string trace,
                                       const std::string& profile);

}  // namespace heapql::cli
