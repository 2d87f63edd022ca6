// --sort impacting (docs/queries.md, "Sorting by impacting size"): rows rank by
// the magnitude of their impacting size; a query without impacting types,
// and the outputs that cannot show a signed measure, are refused before the
// trace is read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/flat_json.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

const std::string kTrace = HEAPQL_SOURCE_DIR "/tests/data/two_phase.txt";

CommandResult heapql(const std::string& command_and_options) {
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " " + command_and_options + " --no-progress");
  expect_no_crash(r);
  return r;
}

std::string impacting_query(const std::string& extra) {
  return "query " + shell_quote(kTrace) + " --no-store --window 1s.. --impacting AIFO,AOFI " + extra;
}

// two_phase.txt from 1 s: main's block freed in the window (AOFI, -65.54 KB)
// and session_new's kept one (AIFO, +48 B). By so, session_new comes first.
// The rows' top frames in the order a JSON report lists them.
std::vector<std::string> top_frames(const std::string& json) {
  std::vector<std::string> frames;
  const std::string marker = "\"key\":[[\"";
  for (std::size_t at = json.find(marker); at != std::string::npos; at = json.find(marker, at + 1)) {
    const std::size_t begin = at + marker.size();
    frames.push_back(json.substr(begin, json.find('"', begin) - begin));
  }
  return frames;
}

TEST(SortByImpacting, TheBiggestChangeEitherWayComesFirst) {
  const CommandResult by_so = heapql(impacting_query("--format json"));
  ASSERT_EQ(by_so.exit_code, 0) << by_so.err;
  EXPECT_EQ(top_frames(by_so.out), (std::vector<std::string>{"server!session_new", "server!main"}));

  const CommandResult r = heapql(impacting_query("--sort impacting --format json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(top_frames(r.out), (std::vector<std::string>{"server!main", "server!session_new"}));
  const FlatJson j = flatten_json(r.out);
  EXPECT_EQ(json_get(j, "query.sort"), "impacting");
  EXPECT_EQ(json_get(j, "totals.impacting"), "-65488");

  const CommandResult table = heapql(impacting_query("--sort impacting"));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("impacting*"), std::string::npos) << table.out;
}

TEST(SortByImpacting, WithoutImpactingTypesItIsRefused) {
  const CommandResult r = heapql("query " + shell_quote(kTrace) + " --no-store --sort impacting");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--sort impacting needs impacting types"), std::string::npos) << r.err;
  const CommandResult grouped =
      heapql("query " + shell_quote(kTrace) + " --no-store --window 1s.. --by impacting,stack --sort impacting");
  EXPECT_EQ(grouped.exit_code, 0) << grouped.err;
}

TEST(SortByImpacting, FoldedAndDiffCannotShowItAndSaySoFirst) {
  const CommandResult folded = heapql(impacting_query("--sort impacting --format folded"));
  EXPECT_EQ(folded.exit_code, 3);
  EXPECT_NE(folded.err.find("--format folded: a stack's width cannot be its impacting size"), std::string::npos)
      << folded.err;
  const CommandResult diff = heapql("diff " + shell_quote(kTrace) + " " + shell_quote(kTrace) +
                                    " --no-store --impacting AIFO --sort impacting");
  EXPECT_EQ(diff.exit_code, 3);
  EXPECT_NE(diff.err.find("cannot be diffed"), std::string::npos) << diff.err;
}

// A recipe's result goes through the engine's own refusals, and its tree
// weighs by so.
TEST(SortByImpacting, ARecipesResultTreeWeighsBySoAndDiffIsRefused) {
  TempDir dir;
  const std::string recipe = dir.file("by_change.lua");
  write_file(recipe, R"(local hq = require "heapql"
return hq.recipe {
  name = "by_change", doc = "test",
  run = function(trace, p, out)
    local q = { window = { first = 1000000000 }, impacting = { "AIFO", "AOFI" }, sort = "impacting" }
    local r = trace:query(q)
    out:line("sort %s first %s", r:info().sort, r:rows()[1].stack[1])
    out:line("tree %s", r:tree().inclusive.so)
    local ok, err = pcall(hq.diff, r, r)
    out:line("diff %s", ok and "allowed" or err)
  end,
})");
  const CommandResult r = heapql("run " + shell_quote(recipe) + " " + shell_quote(kTrace) + " --no-store");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("first server!main"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tree 48"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cannot be diffed"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace heapql::test
