// Helpers shared by the test binaries: temporary folders, writing plain and
// compressed files, running a command (heapql above all) and capturing what
// it says, and checks of text.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

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
std::string read_file(const std::string& path);
// Writes `text` compressed with zstd or gzip (through the zstd / zlib libraries).
void write_zstd(const std::string& path, const std::string& text);
void write_gzip(const std::string& path, const std::string& text);

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs `command` through /bin/sh; stdout and stderr captured separately.
CommandResult run_command(const std::string& command);
std::string shell_quote(const std::string& text);
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
// In a forked child whose standard streams are set: becomes heapql with
// `arguments` (no shell); exits 127 when it cannot.
[[noreturn]] void exec_heapql(const std::vector<std::string>& arguments);

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
