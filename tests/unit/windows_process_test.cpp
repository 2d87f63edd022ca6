// The Windows build's run_command (tests/support/windows_process.h): the
// words, the environment, the folder, standard input and the exit code reach
// the child and come back as sh would give them on Linux. The child is
// tests/support/print_arguments.cpp. Windows only: Linux runs commands with sh.
#ifdef _WIN32

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/shell_command.h"
#include "tests/support/test_support.h"
#include "tests/support/windows_process.h"

namespace heapql::test {
namespace {

std::string child() { return shell_quote(HEAPQL_PRINT_ARGUMENTS); }

TEST(WindowsProcess, WordsArriveAsQuotedForSh) {
  const std::vector<std::string> words = {"plain", "two words", "", "a\"quote", "back\\slash", "ends\\",
                                          "ends with space\\\\", "\"\"", "tab\there", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac",
                                          "100%", "a'b", "--window=1s..2s", "C:\\dir with\\"};
  std::string command = child();
  std::string expected;
  for (const std::string& w : words) {
    command += " " + shell_quote(w);
    expected += w + "\n";
  }
  const CommandResult r = run_command(command);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expected);
}

TEST(WindowsProcess, ExitCodeEnvironmentAndFolder) {
  TempDir dir;
  const CommandResult r = run_command("cd " + shell_quote(dir.path().string()) +
                                      " && HEAPQL_PRINT_ARGUMENTS_ENV='x y' " + child() + " --exit 3");
  EXPECT_EQ(r.exit_code, 3);
  expect_contains(r.err, "env=x y\n");
  EXPECT_EQ(std::filesystem::equivalent(lines_of(r.err).at(0).substr(4), dir.path()), true) << r.err;
  const CommandResult unset = run_command(child());
  expect_contains(unset.err, "env=(unset)\n");
}

TEST(WindowsProcess, RedirectionsAndStandardInput) {
  TempDir dir;
  write_file(dir.file("in.txt"), "fed\n");
  const CommandResult r = run_command(child() + " one < " + shell_quote(dir.file("in.txt")) + " > " +
                                      shell_quote(dir.file("out.txt")) + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(read_file(dir.file("out.txt")), "one\n");
  const CommandResult merged = run_command(child() + " two 2>&1");
  expect_contains(merged.out, "two\n");
  expect_contains(merged.out, "stdin=\n");  // standard input is empty (NUL), as sh's </dev/null
}

TEST(WindowsProcess, TimeoutEndsTheChildWith124) {
  const CommandResult r = run_command("timeout 1 " + child() + " --sleep 30");
  EXPECT_EQ(r.exit_code, 124);
}

TEST(WindowsProcess, MissingProgramIs127AsInSh) {
  const CommandResult r = run_command("no-such-program-heapql --version");
  EXPECT_EQ(r.exit_code, 127);
  expect_contains(r.err, "cannot run no-such-program-heapql");
}

}  // namespace
}  // namespace heapql::test

#endif
