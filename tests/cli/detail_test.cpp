// `--detail N` at the command line (docs/semantics.md §12, docs/json.md
// "detail"): the same detail from a store file and from the trace read
// without one, in JSON and in the table; a recipe's `detail` field; a row
// beyond the answer and the formats without a place for it refused (exit 3).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

// A copy of the worked example in a folder of its own, with its store file
// beside it (which `heapql query` then answers from).
class DetailTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::copy_file(worked_example(), trace_);
    const CommandResult ingest = run_heapql("ingest " + shell_quote(trace_));
    ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  }
  CommandResult query(const std::string& options) { return heapql_on("query", trace_, options); }

  TempDir dir_;
  const std::string trace_ = dir_.file("worked.txt");
};

TEST_F(DetailTest, FromTheStoreFileAsFromTheTraceReadWithoutOne) {
  for (const std::string options : {"--by stack --detail 1", "--by stack --sort st --detail 2",
                                    "--by frame --window 100ms.. --detail 1", "--by process --at-peak --detail 1",
                                    "--by impacting,frame --window 100ms..400ms --detail 2",
                                    "--by stack --lifetime 1ms.. --detail 1"}) {
    for (const std::string format : {"json", "table"}) {
      const CommandResult stored = query(options + " --format " + format);
      ASSERT_EQ(stored.exit_code, 0) << options << "\n" << stored.err;
      const CommandResult read = query(options + " --format " + format + " --no-store");
      ASSERT_EQ(read.exit_code, 0) << options << "\n" << read.err;
      EXPECT_EQ(stored.out, read.out) << options;
      expect_contains(stored.out, format == "json" ? "\"detail\":{\"row\":" : "\n\ndetail   row ");
    }
  }
}

TEST_F(DetailTest, ARecipeAsksForItWithItsQuery) {
  const std::string recipe = dir_.file("drill.lua");
  write_file(recipe,
             "local hq = require \"heapql\"\n"
             "return hq.recipe { name = \"drill\", doc = \"the second frame's detail\",\n"
             "  query = function(p) return { by = \"frame\", detail = 2 } end }\n");
  const CommandResult run = run_heapql("run " + shell_quote(recipe) + " " + shell_quote(trace_) + " --format json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const CommandResult asked = query("--by frame --detail 2 --format json");
  ASSERT_EQ(asked.exit_code, 0) << asked.err;
  EXPECT_EQ(run.out, asked.out);
  expect_contains(run.out, "\"detail\":{\"row\":2,");
}

TEST_F(DetailTest, ARowBeyondTheAnswerIsRefused) {
  const CommandResult rows = query("--by process --format json");
  ASSERT_EQ(rows.exit_code, 0) << rows.err;
  const CommandResult beyond = query("--by process --detail 12");
  EXPECT_EQ(beyond.exit_code, 3);
  expect_contains(beyond.err, "--detail 12: the answer has 1 row");
  EXPECT_TRUE(beyond.out.empty()) << beyond.out;
  const CommandResult totals = query("--totals --detail 1");
  EXPECT_EQ(totals.exit_code, 3);
  expect_contains(totals.err, "--detail 1: the answer has no rows");
  const CommandResult zero = query("--by stack --detail 0");
  EXPECT_EQ(zero.exit_code, 3);
  expect_contains(zero.err, "--detail");
}

TEST_F(DetailTest, FormatsWithoutAPlaceForItAndDiffRefuseIt) {
  for (const std::string format : {"csv", "folded", "pprof", "html"}) {
    const CommandResult r = query("--by stack --detail 1 --format " + format);
    EXPECT_EQ(r.exit_code, 3) << format;
    expect_contains(r.err, "--detail: the row's detail is shown by --format json and table");
  }
  const CommandResult diff =
      run_heapql("diff " + shell_quote(trace_) + " --window-a 0ms..200ms --window-b 200ms.. --detail 1");
  EXPECT_EQ(diff.exit_code, 3);
  expect_contains(diff.err, "--detail describes a row of one answer");
}

}  // namespace
}  // namespace heapql::test
