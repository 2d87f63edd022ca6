// A command line as the tests write it for /bin/sh, parsed for the Windows
// build, which has no shell: the small part of sh the tests use to run heapql
// (quoted words, `cd DIR &&`, NAME=value before the program, `timeout SECONDS`,
// and the redirections <, >, 2>, 2>&1). Anything else is refused by name, so a
// test that needs more of sh fails with a message saying so instead of running
// something else.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace heapql::test {

struct ShellCommand {
  std::string working_dir;  // from a leading `cd DIR &&`; empty: the caller's
  std::vector<std::pair<std::string, std::string>> environment;  // NAME=value before the program
  double timeout_seconds = 0;  // from `timeout SECONDS` before the program; 0: none
  std::vector<std::string> words;  // the program and its arguments
  std::string stdin_path, stdout_path, stderr_path;  // redirections ("/dev/null" as written)
  bool stderr_to_stdout = false;  // 2>&1
};

// The command, or what in `text` is beyond the part of sh above.
struct ParsedShellCommand {
  std::optional<ShellCommand> command;
  std::string error;
};
ParsedShellCommand parse_shell_command(const std::string& text);

}  // namespace heapql::test
