// Where reports go (cli/report_output.h, docs/cli.md "Output"): a report
// that cannot be written in full is exit 2 and a message naming where it was
// going, never a short report with exit 0; a -o file appears whole or not at
// all, and an older one stays as it was.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

constexpr int kExitCannotWrite = 2;
// A file size limit (32 KiB) fails a write part way (EFBIG), as a full disk would.
const std::string kFileSizeLimit = "trap '' XFSZ; ulimit -f 64; ";

// A heaptrack text trace of `stacks` one-frame stacks, one leaked block each:
// its folded report is 14 bytes a stack, its CSV 23.
std::string many_stacks_trace(int stacks) {
  std::string text = "v 10400 3\ns 4 /bin\n";
  for (int k = 1; k <= stacks; ++k) {
    text += fmt::format("i {:x} 1\nt {:x} 0\na 10 {:x}\n+ {:x}\n", 0x1000 + k, k, k, k - 1);
  }
  return text;
}

class ReportOutput : public ::testing::Test {
 protected:
  void SetUp() override { write_file(trace_, many_stacks_trace(100000)); }

  // Every stack, unless `options` names a --top.
  std::string query(const std::string& options) {
    return "query " + shell_quote(trace_) + " --by stack " +
           (options.find("--top") == std::string::npos ? "--top 1000000 " : "") + options;
  }
  // `command` (heapql's arguments) run with its standard output redirected to
  // `redirect` (run_command's own redirection would replace it otherwise).
  CommandResult heapql_to(const std::string& command, const std::string& redirect, const std::string& before = "") {
    const CommandResult r = run_command("{ " + before + heapql() + " " + command + " > " + redirect + "; }");
    expect_no_crash(r);
    return r;
  }

  // Nothing in the folder but the trace and `kept`: no temporary left behind.
  void expect_only_trace_and(const std::string& kept) {
    for (const auto& entry : fs::directory_iterator(dir_.path())) {
      const std::string name = entry.path().filename().string();
      EXPECT_TRUE(name == "many.txt" || name == kept) << "left behind: " << name;
    }
  }

  TempDir dir_;
  std::string trace_ = dir_.file("many.txt");
};

TEST_F(ReportOutput, FullStandardOutputIsAnErrorNotAShortReport) {
  for (const std::string& command :
       {query("--format csv"), query("--format json"), "info " + shell_quote(trace_),
        "diff " + shell_quote(trace_) + " " + shell_quote(trace_) + " --by stack --format csv",
        "run leaks " + shell_quote(trace_), std::string("list"), std::string("xperf -a heap -stacks so"),
        std::string("help"), std::string("help leaks"), std::string("--version")}) {
    SCOPED_TRACE(command);
    const CommandResult r = heapql_to(command, "/dev/full");
    EXPECT_EQ(r.exit_code, kExitCannotWrite) << r.err;
    EXPECT_NE(r.err.find("standard output: cannot write the report: No space left on device"), std::string::npos)
        << r.err;
  }
}

TEST_F(ReportOutput, FileCutShortKeepsTheOlderReport) {
  const std::string out = dir_.file("report.csv");
  write_file(out, "an older report\n");
  const CommandResult r = heapql_to(query("--format csv -o " + shell_quote(out)), "/dev/null", kFileSizeLimit);
  EXPECT_EQ(r.exit_code, kExitCannotWrite) << r.err;
  EXPECT_NE(r.err.find(out), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(out), "an older report\n");
  expect_only_trace_and("report.csv");
}

TEST_F(ReportOutput, CutShortOnStandardOutputIsAnError) {
  const std::string out = dir_.file("report.csv");
  const CommandResult r = heapql_to(query("--format csv"), shell_quote(out), kFileSizeLimit);
  EXPECT_EQ(r.exit_code, kExitCannotWrite) << r.err;
  EXPECT_NE(r.err.find("standard output: cannot write the report: File too large"), std::string::npos) << r.err;
}

TEST_F(ReportOutput, UnwritableFolderIsSaidBeforeTheTraceIsRead) {
  const std::string out = dir_.file("no-such-folder/report.csv");
  write_file(dir_.file("bad.txt"), "not a trace\n");
  for (const std::string& command :
       {query("-o " + shell_quote(out)), "query " + shell_quote(dir_.file("bad.txt")) + " -o " + shell_quote(out),
        "run leaks " + shell_quote(dir_.file("bad.txt")) + " -o " + shell_quote(out)}) {
    SCOPED_TRACE(command);
    const CommandResult r = run_heapql(command);
    EXPECT_EQ(r.exit_code, kExitCannotWrite) << r.err;
    EXPECT_NE(r.err.find(out + ": cannot write in its folder: No such file or directory"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  fs::remove(dir_.file("bad.txt"));
  expect_only_trace_and("");
}

// A typo that names the input as the output would replace the recording
// with the report: refused before anything is read (exit 3, a usage error).
TEST_F(ReportOutput, AnOutputThatIsAnInputIsRefused) {
  const std::string trace_text = read_file(trace_);
  write_file(dir_.file("mine.lua"), read_file(HEAPQL_SOURCE_DIR "/queries/leaks.lua"));
  fs::create_symlink("many.txt", dir_.file("link.txt"));
  const std::string t = shell_quote(trace_);
  for (const auto& [command, output] :
       {std::pair{"query " + t + " -o ", trace_}, std::pair{"info " + t + " -o ", dir_.file("link.txt")},
        std::pair{"diff " + t + " " + t + " -o ", trace_}, std::pair{"ingest " + t + " -o ", trace_},
        std::pair{"export " + t + " --to sqlite ", trace_}, std::pair{"run leaks " + t + " -o ", trace_},
        std::pair{"run " + shell_quote(dir_.file("mine.lua")) + " " + t + " -o ", dir_.file("mine.lua")}}) {
    SCOPED_TRACE(command);
    const CommandResult r = run_heapql(command + shell_quote(output));
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("the output " + output + " is "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(", which this command reads; name another file"), std::string::npos) << r.err;
  }
  EXPECT_EQ(read_file(trace_), trace_text);
  EXPECT_EQ(read_file(dir_.file("mine.lua")), read_file(HEAPQL_SOURCE_DIR "/queries/leaks.lua"));
}

TEST_F(ReportOutput, FolderIsRefused) {
  fs::create_directory(dir_.file("reports"));
  const CommandResult r = run_heapql(query("-o " + shell_quote(dir_.file("reports"))));
  EXPECT_EQ(r.exit_code, kExitCannotWrite) << r.err;
  EXPECT_NE(r.err.find("reports: is a folder"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir_.file("reports")));
}

TEST_F(ReportOutput, FileHoldsWhatStandardOutputShows) {
  for (const std::string format : {"csv", "json", "table", "folded"}) {
    SCOPED_TRACE(format);
    const std::string out = dir_.file("report." + format);
    const CommandResult shown = run_heapql(query("--format " + format));
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_GT(shown.out.size(), std::size_t{1} << 20) << "long enough to be written in pieces";
    const CommandResult written = run_heapql(query("--format " + format + " -o " + shell_quote(out)));
    ASSERT_EQ(written.exit_code, 0) << written.err;
    EXPECT_EQ(written.out, "");
    EXPECT_EQ(read_file(out), shown.out);
  }
  const std::string diff =
      "diff " + shell_quote(trace_) + " " + shell_quote(trace_) + " --by stack --top 1000000 --format csv";
  const CommandResult shown = run_heapql(diff);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  ASSERT_EQ(run_heapql(diff + " -o " + shell_quote(dir_.file("diff.csv"))).exit_code, 0);
  EXPECT_EQ(read_file(dir_.file("diff.csv")), shown.out);
}

TEST_F(ReportOutput, LinkIsFollowedAndDevicesAreWrittenAsStreams) {
  write_file(dir_.file("real.csv"), "old\n");
  fs::create_symlink("real.csv", dir_.file("link.csv"));
  const CommandResult shown = run_heapql(query("--format csv --top 3"));
  ASSERT_EQ(run_heapql(query("--format csv --top 3 -o " + shell_quote(dir_.file("link.csv")))).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(dir_.file("link.csv")));
  EXPECT_EQ(read_file(dir_.file("real.csv")), shown.out);
  const CommandResult to_stdout = run_heapql(query("--format csv --top 3 -o /dev/stdout"));
  EXPECT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
  EXPECT_EQ(to_stdout.out, shown.out);
  // A pipe is written to, not replaced.
  const std::string pipe = dir_.file("pipe");
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  const CommandResult to_pipe = run_command(
      "cat " + shell_quote(pipe) + " > " + shell_quote(dir_.file("got")) + " & " + shell_quote(heapql_binary()) + " " +
      query("--format csv --top 3 -o " + shell_quote(pipe)) + "; status=$?; wait; exit $status");
  expect_no_crash(to_pipe);
  EXPECT_EQ(to_pipe.exit_code, 0) << to_pipe.err;
  EXPECT_TRUE(fs::is_fifo(pipe));
  EXPECT_EQ(read_file(dir_.file("got")), shown.out);
}

// heapql with `arguments` and a standard output whose reader has gone (the
// pipe's read end closed before it starts), SIGPIPE ignored or as it comes:
// how it ended (waitpid's status) and what it said on stderr.
std::pair<int, std::string> heapql_into_a_closed_pipe(const std::vector<std::string>& arguments, bool ignore_sigpipe,
                                                      const std::string& stderr_file) {
  int ends[2];
  if (::pipe(ends) != 0) return {-1, "no pipe"};
  ::close(ends[0]);
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGPIPE, ignore_sigpipe ? SIG_IGN : SIG_DFL);
    ::dup2(ends[1], STDOUT_FILENO);
    const int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(err, STDERR_FILENO);
    exec_heapql(arguments);
  }
  ::close(ends[1]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {status, read_file(stderr_file)};
}

// `heapql query ... | head`: a reader that stops reading ends heapql quietly,
// with the status a shell shows for standard tools the pipe's signal ends
// (141), whether SIGPIPE was ignored by whoever started heapql or not. A full
// disk is still exit 2 with a message (FullStandardOutputIsAnErrorNotAShortReport).
TEST_F(ReportOutput, AClosedPipeEndsTheCommandQuietly) {
  const std::string trace = example_trace();
  const std::vector<std::vector<std::string>> commands = {
      {"query", trace, "--format", "csv", "--no-progress"}, {"run", "leaks", trace}, {"help"}, {"list"}};
  for (const std::vector<std::string>& command : commands) {
    for (const bool ignored : {false, true}) {
      SCOPED_TRACE(command.front() + (ignored ? " with SIGPIPE ignored" : " with SIGPIPE as it comes"));
      const auto [status, err] = heapql_into_a_closed_pipe(command, ignored, dir_.file("err.txt"));
      const bool as_a_shell_shows_141 = (WIFEXITED(status) && WEXITSTATUS(status) == 141) ||
                                        (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE);
      EXPECT_TRUE(as_a_shell_shows_141) << "status " << status << ", stderr: " << err;
      EXPECT_EQ(err, "");
    }
  }
}

}  // namespace
}  // namespace heapql::test
