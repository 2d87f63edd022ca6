// Helpers shared by the test binaries: temporary folders, writing plain and
// compressed files, running a command and capturing what it says.
#pragma once

#include <filesystem>
#include <string>

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

}  // namespace heapql::test
