// `heapql record` on Windows: heaptrack is Linux-only, so it prints the WPR
// commands that record a heap trace of the program with the shipped profile
// (wpr_recording.h) and exits 2 (record_command.cpp is the Linux command).
#ifdef _WIN32

#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/record_arguments.h"
#include "cli/wpr_recording.h"
#include "engine/platform/utf8_wide.h"
#include "lua/host/recipe_runner.h"

namespace heapql::cli {

int run_record(Arguments& args) {
  const RecordArguments parsed = parse_record_arguments(args);
  if (!parsed.pid.empty()) {
    std::fputs("heapql record: --pid attaches heaptrack with gdb, which is Linux-only: not available on Windows\n",
               stderr);
    return kExitNotOnThisSystem;
  }
  const std::string profile = utf8_from_path((lua::queries_folder() / "windows" / "heapql-heap.wprp").make_preferred());
  const std::string text = wpr_recording_instructions(parsed.program, parsed.output_name, profile);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  std::fputs("heapql record: not available on Windows: run the WPR commands above on a Windows machine\n", stderr);
  return kExitNotOnThisSystem;
}

}  // namespace heapql::cli

#endif  // _WIN32
