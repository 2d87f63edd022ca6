// The part of sh the Windows test build understands (tests/support/
// shell_command.h) and the Windows command line it joins words into
// (windows_command_line.h). Portable code, tested on both systems; the
// Windows round trip through a real child is tests/unit/windows_process_test.cpp.
#include <gtest/gtest.h>

#include "tests/support/shell_command.h"
#include "tests/support/test_support.h"
#include "tests/support/windows_command_line.h"

namespace heapql::test {
namespace {

ShellCommand parsed(const std::string& text) {
  ParsedShellCommand p = parse_shell_command(text);
  EXPECT_TRUE(p.command.has_value()) << text << ": " << p.error;
  return p.command.value_or(ShellCommand{});
}

std::string refused(const std::string& text) {
  ParsedShellCommand p = parse_shell_command(text);
  EXPECT_FALSE(p.command.has_value()) << text;
  return p.error;
}

TEST(ShellCommand, QuotedWordsAreUnquotedAsShDoes) {
  const ShellCommand c = parsed("'/b d/heapql' query \"a \\\"b\\\" \\\\c\" --require 'operator new*' x\\ y '' it''s");
  EXPECT_EQ(c.words, (std::vector<std::string>{"/b d/heapql", "query", "a \"b\" \\c", "--require", "operator new*", "x y",
                                               "", "its"}));
  const std::string path = "/tmp/it's here/trace.txt";
  EXPECT_EQ(parsed("heapql " + shell_quote(path)).words.at(1), path);
}

TEST(ShellCommand, FolderEnvironmentTimeoutAndRedirections) {
  const ShellCommand c = parsed("cd '/a b' && XDG_CACHE_HOME='/c d' LANG=C timeout 20 heapql ingest t <in >out "
                                "2>/dev/null");
  EXPECT_EQ(c.working_dir, "/a b");
  EXPECT_EQ(c.environment, (std::vector<std::pair<std::string, std::string>>{{"XDG_CACHE_HOME", "/c d"}, {"LANG", "C"}}));
  EXPECT_EQ(c.timeout_seconds, 20);
  EXPECT_EQ(c.words, (std::vector<std::string>{"heapql", "ingest", "t"}));
  EXPECT_EQ(c.stdin_path, "in");
  EXPECT_EQ(c.stdout_path, "out");
  EXPECT_EQ(c.stderr_path, "/dev/null");
  EXPECT_FALSE(c.stderr_to_stdout);
  EXPECT_TRUE(parsed("heapql help 2>&1").stderr_to_stdout);
  // After the program, NAME=value is an argument; `--param a=1` stays one.
  EXPECT_EQ(parsed("heapql run r --param budget=10").words.back(), "budget=10");
  EXPECT_EQ(parsed("'A'=1 heapql").words.front(), "A=1");  // a quoted name is no assignment
}

TEST(ShellCommand, WhatNeedsARealShellIsRefusedByName) {
  expect_contains(refused("{ cat f | heapql query -; }"), "reserved word `{`");
  expect_contains(refused("cat f | heapql query -"), "operator `|`");
  expect_contains(refused("heapql a; heapql b"), "operator `;`");
  expect_contains(refused("heapql query $HOME/t"), "expansion ($)");
  expect_contains(refused("heapql query \"$HOME\""), "expansion in double quotes");
  expect_contains(refused("heapql query *.txt"), "unquoted pattern character (*)");
  expect_contains(refused("heapql help >> log"), "operator `>>`");
  expect_contains(refused("heapql 'unclosed"), "unclosed ' quote");
  expect_contains(refused("cd /tmp; heapql"), "`cd DIR &&`");
  expect_contains(refused("A=1"), "no program");
}

// Microsoft's documented examples of how the C runtime splits a command line
// ("Parsing C++ command-line arguments"), read backwards.
TEST(WindowsCommandLine, QuotesOnlyWhatTheRuntimeWouldSplitOrUnescape) {
  EXPECT_EQ(windows_command_line({"a b c", "d", "e"}), "\"a b c\" d e");
  EXPECT_EQ(windows_command_line({"ab\"c", "\\", "d"}), "\"ab\\\"c\" \\ d");
  EXPECT_EQ(windows_command_line({"a\\\\\\b", "de fg", "h"}), "a\\\\\\b \"de fg\" h");
  EXPECT_EQ(windows_command_line({"a\\\"b", "c", "d"}), "\"a\\\\\\\"b\" c d");
  EXPECT_EQ(windows_command_line({"a\\\\b c", "d", "e"}), "\"a\\\\b c\" d e");
  EXPECT_EQ(windows_command_line({""}), "\"\"");
  EXPECT_EQ(windows_command_line({"C:\\dir with\\"}), "\"C:\\dir with\\\\\"");
}

}  // namespace
}  // namespace heapql::test
