#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include "engine/platform/utf8_wide.h"
#include "tests/support/shell_command.h"
#include "tests/support/windows_process.h"
#else
#include <sys/wait.h>
#include <unistd.h>
#endif
#include <zlib.h>
#include <zstd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace heapql::test {

TempDir::TempDir() {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto candidate = std::filesystem::temp_directory_path() / ("heapql-test-" + std::to_string(rd()));
    if (std::filesystem::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("cannot create a temp dir");
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {
#ifdef _WIN32
// The test programs write LF, as heapql.exe does: in the C runtime's text
// mode gtest's "\n" would become CRLF, and CMake's gtest_discover_tests would
// take the CR into every test name it reads from --gtest_list_tests.
const bool kBinaryStandardStreams = [] {
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
  return true;
}();
#endif

// Paths are UTF-8 (on Windows a narrow name would be read in the ANSI code page).
std::filesystem::path file_path(const std::string& path) {
#ifdef _WIN32
  return path_from_utf8(path);
#else
  return path;
#endif
}
}  // namespace

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(file_path(path), std::ios::binary);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_file(const std::string& path) {
  std::ifstream in(file_path(path), std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_zstd(const std::string& path, const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
  if (ZSTD_isError(n)) throw std::runtime_error("zstd failed");
  out.resize(n);
  write_file(path, out);
}

void write_gzip(const std::string& path, const std::string& text) {
#ifdef _WIN32
  gzFile f = gzopen_w(path_from_utf8(path).c_str(), "wb");
#else
  gzFile f = gzopen(path.c_str(), "wb");
#endif
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  if (!text.empty()) gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
}

void set_environment_variable(const std::string& name, const std::optional<std::string>& value) {
#ifdef _WIN32
  // An empty value removes the variable (_putenv_s's rule).
  ::_putenv_s(name.c_str(), value ? value->c_str() : "");
#else
  if (value) {
    ::setenv(name.c_str(), value->c_str(), 1);
  } else {
    ::unsetenv(name.c_str());
  }
#endif
}

namespace {
// The modification time of `from` given to `to`, to the file system's
// precision: on Windows through the handles (mingw's std::filesystem sets it
// to whole seconds).
void copy_modification_time(const std::filesystem::path& from, const std::filesystem::path& to) {
#ifdef _WIN32
  auto open = [](const std::filesystem::path& path, DWORD access) {
    return ::CreateFileW(path.c_str(), access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                         OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  };
  const HANDLE source = open(from, FILE_READ_ATTRIBUTES), target = open(to, FILE_WRITE_ATTRIBUTES);
  FILETIME written{};
  const bool ok = source != INVALID_HANDLE_VALUE && target != INVALID_HANDLE_VALUE &&
                  ::GetFileTime(source, nullptr, nullptr, &written) && ::SetFileTime(target, nullptr, nullptr, &written);
  if (source != INVALID_HANDLE_VALUE) ::CloseHandle(source);
  if (target != INVALID_HANDLE_VALUE) ::CloseHandle(target);
  if (!ok) throw std::runtime_error("cannot copy the modification time of " + from.string() + " to " + to.string());
#else
  std::filesystem::last_write_time(to, std::filesystem::last_write_time(from));
#endif
}
}  // namespace

void copy_folder_keeping_times(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(from)) {
    copy_modification_time(entry.path(), to / std::filesystem::relative(entry.path(), from));
  }
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string lua_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\\' || c == '\'') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "'";
}

std::string as_json_text(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

#ifdef _WIN32
CommandResult run_command(const std::string& command) {
  const ParsedShellCommand parsed = parse_shell_command(command);
  if (!parsed.command) {
    ADD_FAILURE() << "the Windows test build runs commands without a shell and cannot run this one ("
                  << parsed.error << "): the test should skip on Windows (GTEST_SKIP) or not need a shell";
    return CommandResult{-1, "", parsed.error};
  }
  return run_windows_process(*parsed.command);
}
#else
CommandResult run_command(const std::string& command) {
  TempDir dir;
  const std::string out_path = dir.file("out"), err_path = dir.file("err");
  const std::string full = command + " >" + shell_quote(out_path) + " 2>" + shell_quote(err_path) + " </dev/null";
  const int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}
#endif

std::string heapql_binary() { return HEAPQL_BINARY; }
std::string example_binary() { return HEAPQL_EXAMPLE_BINARY; }

std::string shared_data(const std::string& sub) {
  // The folder itself without a separator after it (Windows' would be '\\').
  const std::filesystem::path p =
      sub.empty() ? std::filesystem::path(HEAPQL_SHARED_DATA_DIR) : std::filesystem::path(HEAPQL_SHARED_DATA_DIR) / sub;
  return std::filesystem::exists(p) ? p.string() : std::string();
}

std::string example_trace() { return std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.zst"; }
std::string worked_example() { return std::string(HEAPQL_TEST_DATA_DIR) + "/worked_example.txt"; }

std::string heapql() { return shell_quote(heapql_binary()); }

CommandResult run_heapql(const std::string& arguments, const std::string& shell_prefix) {
  CommandResult r = run_command(shell_prefix + (shell_prefix.empty() ? "" : " ") + heapql() + " " + arguments);
  expect_no_crash(r);
  return r;
}

CommandResult heapql_on(const std::string& command, const std::string& path, const std::string& options) {
  return run_heapql(command + " " + shell_quote(path) + (options.empty() ? "" : " " + options));
}

#ifndef _WIN32
void exec_heapql(const std::vector<std::string>& arguments) {
  std::vector<char*> argv;
  const std::string binary = heapql_binary();
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  ::_exit(127);
}
#endif

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing '" << part << "' in:\n" << text;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::string as_test_name(std::string text) {
  for (char& c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void expect_no_crash(const CommandResult& r) {
  EXPECT_GE(r.exit_code, 0);
  EXPECT_LT(r.exit_code, 128) << "killed by a signal\n" << r.err;
  for (const char* report : {"AddressSanitizer", "LeakSanitizer", "runtime error", "unprotected Lua error"}) {
    EXPECT_EQ(r.err.find(report), std::string::npos) << r.err;
  }
}

}  // namespace heapql::test
