// Runs a parsed command (shell_command.h) as a Windows process: CreateProcessW
// with the words joined per Windows' rules (windows_command_line.h), the
// standard output and error read through pipes, the environment and working
// folder set as sh would. The Windows build's run_command; Windows only.
#pragma once

#ifdef _WIN32

#include "tests/support/command_result.h"
#include "tests/support/shell_command.h"

namespace heapql::test {

// exit_code: the program's; 124 when it outlived timeout_seconds (as
// timeout(1)); 127 with a message in `err` when it could not be started (as sh).
CommandResult run_windows_process(const ShellCommand& command);

}  // namespace heapql::test

#endif
