// A table printed to a terminal is cut to its width (docs/cli.md): its rows,
// and its header lines too (`trace`, `query`, diff's `A` and `B`); a note is
// wrapped under its label instead, so that no caveat is cut off.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

constexpr unsigned short kColumns = 100;

// What heapql with `arguments` prints on a terminal `kColumns` wide (a
// pseudo-terminal as its standard output; stderr to /dev/null), without
// the terminal's carriage returns.
std::string on_a_terminal(const std::vector<std::string>& arguments) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) return "no pseudo-terminal";
  const std::string slave_name = ::ptsname(master);
  const int slave = ::open(slave_name.c_str(), O_RDWR | O_NOCTTY);
  winsize size{};
  size.ws_col = kColumns;
  size.ws_row = 50;
  ::ioctl(slave, TIOCSWINSZ, &size);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(master);
    ::dup2(slave, STDOUT_FILENO);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDERR_FILENO);
    exec_heapql(arguments);
  }
  ::close(slave);
  std::string shown;
  char buffer[4096];
  for (ssize_t n; (n = ::read(master, buffer, sizeof buffer)) > 0;) shown.append(buffer, static_cast<std::size_t>(n));
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::string lines;
  for (char c : shown) {
    if (c != '\r') lines.push_back(c);
  }
  return lines;
}

std::size_t columns_of(const std::string& line) {
  std::size_t n = 0;
  for (char c : line) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

void expect_every_line_fits(const std::string& shown) {
  std::istringstream in(shown);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    EXPECT_LE(columns_of(line), kColumns) << line;
  }
  EXPECT_GT(lines, 5u) << shown;
}

TEST(TerminalWidth, HeaderLinesAreCutAndNotesWrappedToTheTerminal) {
  TempDir dir;
  // A path longer than the terminal is wide; no raw twin beside the trace, so
  // the table has its (long) bucket-LIFO note.
  const fs::path folder = dir.path() / std::string(120, 'f');
  fs::create_directories(folder);
  const std::string trace = (folder / "memory_test_app.zst").string();
  fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.zst", trace);

  const std::string query = on_a_terminal({"query", trace, "--no-progress", "--window", "0s..", "--top", "3"});
  EXPECT_TRUE(query.starts_with("trace    " + folder.string().substr(0, 20))) << query;
  expect_every_line_fits(query);
  // The note is all there, over two lines or more.
  std::string flat;
  for (char c : query) flat.push_back(c == '\n' ? ' ' : c);
  for (std::size_t at; (at = flat.find("  ")) != std::string::npos;) flat.erase(at, 1);
  EXPECT_NE(flat.find("note no block addresses in this trace: which block a free ended is attributed (last in, first out "
                      "per size and stack); window outstanding counts, lifetimes and impacting types are attributions"),
            std::string::npos)
      << query;

  const std::string diff = on_a_terminal({"diff", trace, trace, "--no-progress", "--top", "3"});
  EXPECT_TRUE(diff.starts_with("A        " + folder.string().substr(0, 20))) << diff;
  expect_every_line_fits(diff);
}

}  // namespace
}  // namespace heapql::test
