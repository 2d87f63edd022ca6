// Golden tests of the command line: each tests/golden/NAME.golden file holds
// one case, input, command and expectation together:
//
//   # command: heapql ARGS
//   <the exact expected stdout>
//
// ARGS go through /bin/sh (so quote patterns: --require 'operator new*'), and
// `{data}` in them stands for the tests/data folder, where the hand-written
// traces live; `{example}` for examples/traces (the recorded example program);
// `{shared}` for ../shared/data (a case using it skips when that is absent). Every run must exit 0 and print exactly the expected stdout
// (stderr is not compared). heapql echoes the trace path it was given, so the
// data folder's absolute path in the output is written back as `{data}`
// before comparing: the files do not depend on where the tree is checked out.
//
// To (re)write the expectations from what heapql prints now:
//
//   HEAPQL_UPDATE_GOLDEN=1 ./tests/heapql_cli_tests --gtest_filter='Golden*'
//
// then read the diff: every number in a golden must have been checked by hand
// against docs/semantics.md (the traces in tests/data explain, in their
// comments, the program and the timeline behind each block). A new .golden
// file becomes a test case at the next build (test discovery lists them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kHeader = "# command: heapql ";

struct GoldenCase {
  std::string name;  // file stem, for the test name
  std::string path;  // the .golden file
};

// gtest prints a parameter when a case fails: the file name says it all.
void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name << ".golden"; }

std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> cases;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(HEAPQL_GOLDEN_DIR, ec)) {
    if (entry.path().extension() != ".golden") continue;
    cases.push_back(GoldenCase{entry.path().stem().string(), entry.path().string()});
  }
  std::sort(cases.begin(), cases.end(), [](const GoldenCase& a, const GoldenCase& b) { return a.name < b.name; });
  return cases;
}

bool update_mode() {
  const char* v = std::getenv("HEAPQL_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

class GoldenFile : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenFile, StdoutMatches) {
  const GoldenCase& c = GetParam();
  const std::string text = read_file(c.path);
  const std::size_t newline = text.find('\n');
  ASSERT_EQ(text.rfind(kHeader, 0), 0u) << c.path << ":1: expected a first line '" << kHeader << "ARGS'";
  ASSERT_NE(newline, std::string::npos) << c.path << ":1: the header line has no end";
  const std::string header = text.substr(0, newline + 1);
  const std::string args = text.substr(kHeader.size(), newline - kHeader.size());
  const std::string expected = text.substr(newline + 1);

  const std::string data_dir = HEAPQL_TEST_DATA_DIR;
  const std::string example_dir = std::string(HEAPQL_SOURCE_DIR) + "/examples/traces";
  std::string shared_dir = shared_data("");
  while (shared_dir.size() > 1 && shared_dir.back() == '/') shared_dir.pop_back();
  if (args.find("{shared}") != std::string::npos && shared_dir.empty()) {
    GTEST_SKIP() << "../shared/data is absent: " << c.name << " needs it";
  }
  std::string expanded = replace_all(args, "{data}", shell_quote(data_dir));
  expanded = replace_all(expanded, "{example}", shell_quote(example_dir));
  if (!shared_dir.empty()) expanded = replace_all(expanded, "{shared}", shell_quote(shared_dir));
  const CommandResult r = run_command("cd " + shell_quote(HEAPQL_SOURCE_DIR) + " && " + shell_quote(heapql_binary()) +
                                      " " + expanded);
  ASSERT_EQ(r.exit_code, 0) << c.path << ": `heapql " << args << "` failed:\n" << r.err;
  std::string actual = replace_all(r.out, data_dir, "{data}");
  actual = replace_all(actual, example_dir, "{example}");
  if (!shared_dir.empty()) actual = replace_all(actual, shared_dir, "{shared}");

  if (update_mode()) {
    if (actual != expected) write_file(c.path, header + actual);
    return;
  }
  EXPECT_EQ(actual, expected) << c.path << ": `heapql " << args
                              << "` printed something else (HEAPQL_UPDATE_GOLDEN=1 rewrites the file; "
                                 "check every number by hand first)";
}

// `--store` loads the trace into the store and replays it: the same answers
// (heapql help), so every query golden must come out the same that way too.
class GoldenStoreReplay : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenStoreReplay, StdoutMatches) {
  const GoldenCase& c = GetParam();
  const std::string text = read_file(c.path);
  const std::size_t newline = text.find('\n');
  ASSERT_NE(newline, std::string::npos);
  const std::string args = text.substr(kHeader.size(), newline - kHeader.size());
  const std::string data_dir = HEAPQL_TEST_DATA_DIR;
  if (args.find("{data}") == std::string::npos) GTEST_SKIP() << "store replays are checked on the tests/data traces";
  const CommandResult r =
      run_command(shell_quote(heapql_binary()) + " " + replace_all(args, "{data}", shell_quote(data_dir)) + " --store");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(replace_all(r.out, data_dir, "{data}"), text.substr(newline + 1)) << c.path << " with --store";
}

std::vector<GoldenCase> query_cases() {
  std::vector<GoldenCase> cases;
  for (const GoldenCase& c : golden_cases()) {
    if (read_file(c.path).rfind(std::string(kHeader) + "query ", 0) == 0) cases.push_back(c);
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<GoldenCase>& info) { return as_test_name(info.param.name); }

INSTANTIATE_TEST_SUITE_P(Golden, GoldenFile, ::testing::ValuesIn(golden_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Golden, GoldenStoreReplay, ::testing::ValuesIn(query_cases()), case_name);

// Guards against a golden folder that is missing or empty (which would make
// the suite above pass with nothing in it).
TEST(GoldenFolder, HoldsCasesWithValidHeaders) {
  const std::vector<GoldenCase> cases = golden_cases();
  EXPECT_GE(cases.size(), 20u) << "expected the golden cases in " << HEAPQL_GOLDEN_DIR;
  for (const GoldenCase& c : cases) {
    const std::string text = read_file(c.path);
    EXPECT_EQ(text.rfind(kHeader, 0), 0u) << c.path;
    const bool names_a_trace = text.find("{data}/") != std::string::npos ||
                               text.find("{example}/") != std::string::npos ||
                               text.find("{shared}/") != std::string::npos;
    EXPECT_TRUE(names_a_trace) << c.path << ": the command should read a trace from {data}, {example} or {shared}";
  }
}

// A trace compressed as heaptrack writes it (zstd, gzip) gives the same rows
// as the plain text.
TEST(GoldenCompressed, ZstdAndGzipGiveTheSameRows) {
  TempDir dir;
  const std::string text = read_file(std::string(HEAPQL_TEST_DATA_DIR) + "/worked_example.txt");
  write_file(dir.file("demo.txt"), text);
  write_zstd(dir.file("demo.zst"), text);
  write_gzip(dir.file("demo.gz"), text);
  write_zstd(dir.file("zstd_named.txt"), text);  // recognized by its first bytes, not its name
  for (const std::string& query :
       {std::string(" --format csv"), std::string(" --window 100ms..400ms --by impacting,frame --format csv"),
        std::string(" --at-peak --by image --format csv")}) {
    const CommandResult plain =
        run_command(shell_quote(heapql_binary()) + " query " + shell_quote(dir.file("demo.txt")) + query);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_GE(std::count(plain.out.begin(), plain.out.end(), '\n'), 3) << query << "\n" << plain.out;
    for (const std::string& name : {std::string("demo.zst"), std::string("demo.gz"), std::string("zstd_named.txt")}) {
      const CommandResult r =
          run_command(shell_quote(heapql_binary()) + " query " + shell_quote(dir.file(name)) + query);
      ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
      EXPECT_EQ(r.out, plain.out) << name << query;
    }
  }
}

// ---- regressions: bugs found while writing the goldens ----

// `--totals --format csv` used to print the header line and nothing else (the
// CSV report had no totals line, and --totals leaves it no rows): the header
// and one line with the whole-trace totals.
TEST(GoldenFixedBugs, TotalsAsCsvPrintsTheTotals) {
  const CommandResult r =
      run_command(shell_quote(heapql_binary()) + " query " +
                  shell_quote(std::string(HEAPQL_TEST_DATA_DIR) + "/worked_example.txt") + " --totals --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "so,soc,st,stc,src\r\n424,4,75936,11,\r\n");
}

// The series of a closed window that ends before the trace does: buckets
// after the window's last event used to get the level at the end of the whole
// trace instead of the level at the window's end. two_phase.txt, 300 ms
// buckets over [0, 1.5s): 8192 B from 200 ms; 73,828 B at most at 600 ms
// (index + config line), then 73,728 B until 2 s (heapql printed 8240, the
// level after the last free at 2.9 s, for the last two buckets).
TEST(GoldenFixedBugs, SeriesOfAClosedWindowKeepsTheLevelAtItsEnd) {
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " query " +
                                      shell_quote(std::string(HEAPQL_TEST_DATA_DIR) + "/two_phase.txt") +
                                      " --window 0s..1500ms --series 5 --totals --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"series\":{\"start_ns\":0,\"bucket_ns\":300000000,"
                       "\"max_bytes\":[8192,8192,73828,73728,73728]}"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace heapql::test
