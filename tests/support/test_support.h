// Helpers shared by the test binaries: temporary folders, writing plain and
// compressed files, running a command (heapql above all) and capturing what
// it says, and checks of text.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/command_result.h"

// Skips the test on Windows, saying why: what it needs that only Linux has (a
// Linux program, fork, a pseudo-terminal). Nothing on Linux.
#ifdef _WIN32
#define HEAPQL_SKIP_ON_WINDOWS(why) GTEST_SKIP() << "not on Windows: " << (why)
#else
#define HEAPQL_SKIP_ON_WINDOWS(why) static_cast<void>(0)
#endif

namespace heapql::test {

// A fresh folder under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

void write_file(const std::string& path, const std::string& bytes);
// Sets an environment variable of this process (nullopt: removes it), on
// both systems (Windows has no setenv).
void set_environment_variable(const std::string& name, const std::optional<std::string>& value);
// Copies a folder whole with its files' modification times, as cp -a and
// rsync -a do (on both systems; Windows has no cp).
void copy_folder_keeping_times(const std::filesystem::path& from, const std::filesystem::path& to);
std::string read_file(const std::string& path);
// Writes `text` compressed with zstd or gzip (through the zstd / zlib libraries).
void write_zstd(const std::string& path, const std::string& text);
void write_gzip(const std::string& path, const std::string& text);

// Runs `command` through /bin/sh; stdout and stderr captured separately. On
// Windows, which has no sh, the command is parsed (shell_command.h: quoted
// words, `cd DIR &&`, NAME=value, `timeout N`, redirections) and started with
// CreateProcessW; a command needing more of sh fails the test, naming what.
CommandResult run_command(const std::string& command);
std::string shell_quote(const std::string& text);
// `text` as a Lua string literal ('...', its backslashes and quotes escaped):
// a path in a recipe the test writes, where C:\users would be an escape.
std::string lua_quote(const std::string& text);
// `text` as it stands inside a JSON string (backslashes and quotes escaped):
// a Windows path looked for in heapql's JSON.
std::string as_json_text(const std::string& text);
// What every run of heapql must satisfy whatever it says (gtest checks): it
// ended by itself, and printed no sanitizer, undefined-behaviour or
// unprotected-Lua-error report.
void expect_no_crash(const CommandResult& r);

// The heapql binary and the example under test (set by CMake).
std::string heapql_binary();
std::string example_binary();
// ../shared/data/<sub> if present, else empty (tests skip with a message).
std::string shared_data(const std::string& sub);
// The bundled example's trace (examples/traces/) and tests/data's worked example.
std::string example_trace();
std::string worked_example();

// heapql_binary() shell-quoted: the first word of a command line.
std::string heapql();
// Runs heapql with `arguments` (shell words) after `shell_prefix` (such as
// `cd DIR &&` or `VAR=value`), and checks that it did not crash.
CommandResult run_heapql(const std::string& arguments, const std::string& shell_prefix = "");
// `heapql COMMAND PATH OPTIONS`, the path quoted (run_heapql).
CommandResult heapql_on(const std::string& command, const std::string& path, const std::string& options = "");
#ifndef _WIN32
// In a forked child whose standard streams are set: becomes heapql with
// `arguments` (no shell); exits 127 when it cannot. (Windows has no fork.)
[[noreturn]] void exec_heapql(const std::vector<std::string>& arguments);
#endif

// gtest check that `text` holds `part`; the message shows the whole text.
void expect_contains(const std::string& text, const std::string& part);
// `text` with every `from` (not empty) replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to);
// The lines of `text`, without their line ends.
std::vector<std::string> lines_of(const std::string& text);
// `text` as a parameterized test's name: every character but ASCII letters
// and digits becomes '_'.
std::string as_test_name(std::string text);

}  // namespace heapql::test
