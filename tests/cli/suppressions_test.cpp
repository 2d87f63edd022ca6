// semantics.md §11 through the command line and recipes: --exclude,
// --suppressions (files and the shipped heaptrack list) and
// --embedded-suppressions, checked against heaptrack_print's "total memory
// leaked" and "suppressed leaks" on heaptrack's own sample files
// (shared/data/heaptrack/README.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/flat_json.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

// `heapql query TRACE --totals --format json OPTIONS`, flattened.
FlatJson totals(const std::string& trace, const std::string& options) {
  const CommandResult r =
      run_command(heapql() + " query " + shell_quote(trace) + " --totals --no-progress --format json " + options);
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, 0) << options << "\nstderr: " << r.err;
  return r.exit_code == 0 ? flatten_json(r.out) : FlatJson{};
}

std::uint64_t so_of(const FlatJson& json) { return std::stoull(json_get(json, "totals.so")); }

std::string sample(const std::string& file) {
  const std::string dir = shared_data("heaptrack");
  return dir.empty() ? std::string() : (std::filesystem::path(dir) / file).string();
}

#define SAMPLE_OR_SKIP(var, file)                                                                       \
  const std::string var = sample(file);                                                                \
  if (var.empty()) GTEST_SKIP() << "heaptrack sample folder " HEAPQL_SHARED_DATA_DIR "/heaptrack is absent"

TEST(Suppressions, EmbeddedSuppressionsMatchHeaptrackPrint) {
  SAMPLE_OR_SKIP(trace, "heaptrack.embedded_lsan_suppressions.84207.zst");
  // README: leaked 5 (5 suppressed) with embedded suppressions, 10 without.
  EXPECT_EQ(so_of(totals(trace, "")), 10u);
  const FlatJson with = totals(trace, "--embedded-suppressions");
  EXPECT_EQ(so_of(with), 5u);
  EXPECT_EQ(json_get(with, "excluded.blocks"), "2");
}

TEST(Suppressions, ShippedHeaptrackListMatchesHeaptrackPrintsDefaults) {
  // README: leaked with heaptrack's default (built-in) suppressions, and suppressed.
  struct Case {
    const char* file;
    std::uint64_t leaked, suppressed;
  };
  for (const Case& c : {Case{"heaptrack.heaptrack_gui.99454.zst", 491090, 556289},
                        Case{"heaptrack.heaptrack_gui.99529.zst", 490088, 556289}}) {
    SAMPLE_OR_SKIP(trace, c.file);
    SCOPED_TRACE(c.file);
    const std::uint64_t all = so_of(totals(trace, ""));
    const std::uint64_t kept = so_of(totals(trace, "--suppressions heaptrack-builtin"));
    EXPECT_EQ(kept, c.leaked);
    EXPECT_EQ(all - kept, c.suppressed);
  }
}

TEST(Suppressions, AFileOfFunctionPatternsMatchesHeaptrackPrint) {
  SAMPLE_OR_SKIP(trace, "heaptrack.david.18594.gz");
  TempDir dir;
  // heaptrack_print --disable-builtin-suppressions --suppressions FILE (1.4.0):
  // leaked 25.19K, suppressed 5.27K of 30,463 bytes.
  write_file(dir.file("s.txt"), "# Qt's dispatcher lives for the program\nleak:QEventDispatcherGlibPrivate::QEventDispatcherGlibPrivate\n");
  const FlatJson r = totals(trace, "--suppressions " + shell_quote(dir.file("s.txt")));
  EXPECT_EQ(so_of(r), 25191u) << "heaptrack_print: 25.19K";
}

TEST(Suppressions, IgnoredLinesAreNotedAndEmptyPatternsRefused) {
  TempDir dir;
  write_file(dir.file("s.txt"), "leak:nothing_matches_this\nthis line is invalid\n");
  const std::string trace = HEAPQL_SOURCE_DIR "/tests/data/worked_example.txt";
  CommandResult r = run_command(heapql() + " query " + shell_quote(trace) + " --totals --no-progress --suppressions " +
                                shell_quote(dir.file("s.txt")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("s.txt:2: ignored, not a leak suppression: this line is invalid"), std::string::npos) << r.err;
  write_file(dir.file("empty.txt"), "leak:\n");
  r = run_command(heapql() + " query " + shell_quote(trace) + " --no-progress --suppressions " +
                  shell_quote(dir.file("empty.txt")));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("empty.txt:1: suppression '': an empty pattern would suppress every leak"), std::string::npos)
      << r.err;
  r = run_command(heapql() + " query " + shell_quote(trace) + " --no-progress --suppressions no-such-list");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no-such-list: cannot open suppressions file"), std::string::npos) << r.err;
}

TEST(Suppressions, ExcludeAndRequireSplitTheTotals) {
  const std::string trace = HEAPQL_SOURCE_DIR "/tests/data/worked_example.txt";
  const FlatJson all = totals(trace, "");
  const FlatJson kept = totals(trace, "--require 'demo!main'");
  const FlatJson dropped = totals(trace, "--exclude 'demo!main'");
  for (const char* m : {"totals.so", "totals.st", "totals.stc"}) {
    EXPECT_EQ(std::stoull(json_get(kept, m)) + std::stoull(json_get(dropped, m)), std::stoull(json_get(all, m))) << m;
  }
  EXPECT_GT(std::stoull(json_get(dropped, "totals.stc")), 0u);
  EXPECT_GT(std::stoull(json_get(kept, "totals.stc")), 0u);
}

TEST(Suppressions, RecipesGetTheSameFields) {
  SAMPLE_OR_SKIP(trace, "heaptrack.heaptrack_gui.99454.zst");
  TempDir dir;
  write_file(dir.file("r.lua"), R"(local hq = require "heapql"
return hq.recipe {
  name = "suppressed", doc = "leaks without heaptrack's built-in suppressions, nor Qt's event loop",
  query = function() return { totals = true, suppressions = hq.suppressions.shipped "heaptrack-builtin",
                               exclude = "QEventLoop::exec*" } end,
}
)");
  const CommandResult r = run_command(heapql() + " run " + shell_quote(dir.file("r.lua")) + " " + shell_quote(trace) +
                                      " --format json --no-progress");
  expect_no_crash(r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FlatJson cli = totals(trace, "--suppressions heaptrack-builtin --exclude 'QEventLoop::exec*'");
  const FlatJson recipe = flatten_json(r.out);
  for (const char* m : {"totals.so", "totals.st", "totals.stc", "excluded.blocks", "excluded.bytes"}) {
    EXPECT_EQ(json_get(recipe, m), json_get(cli, m)) << m;
  }
  EXPECT_LT(so_of(cli), 491090u) << "the exclude removes more than the suppressions alone";
}

TEST(Suppressions, EmbeddedSuppressionsFromAStoreAndFromARecipe) {
  SAMPLE_OR_SKIP(trace, "heaptrack.embedded_lsan_suppressions.84207.zst");
  TempDir dir;
  const std::string store = dir.file("t.hqdb");
  CommandResult r = run_command(heapql() + " ingest " + shell_quote(trace) + " -o " + shell_quote(store) + " --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(so_of(totals(store, "--embedded-suppressions")), 5u);
  write_file(dir.file("r.lua"), R"(local hq = require "heapql"
return hq.recipe { name = "embedded", doc = "the trace's own suppressions",
                   query = function() return { totals = true, embedded_suppressions = true } end }
)");
  r = run_command(heapql() + " run " + shell_quote(dir.file("r.lua")) + " " + shell_quote(trace) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(so_of(flatten_json(r.out)), 5u);
}

TEST(Suppressions, AHostileTracesEmbeddedSuppressionsAreRefusedNamingIt) {
  TempDir dir;
  const std::string trace = dir.file("hostile.txt");
  write_file(trace, "v 10250 2\nX ./a\nI 1000 1\nS leak:" + std::string(5000, 'a') + "\n");
  CommandResult r = run_command(heapql() + " query " + shell_quote(trace) + " --totals --no-progress");
  EXPECT_EQ(r.exit_code, 0) << "not asked for, they are not read: " << r.err;
  r = run_command(heapql() + " query " + shell_quote(trace) + " --totals --no-progress --embedded-suppressions");
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(trace + ": embedded suppression 1 is 5005 bytes long"), std::string::npos) << r.err;
  write_file(dir.file("r.lua"), R"(local hq = require "heapql"
return hq.recipe { name = "e", doc = "d", query = function() return { totals = true, embedded_suppressions = true } end }
)");
  r = run_command(heapql() + " run " + shell_quote(dir.file("r.lua")) + " " + shell_quote(trace));
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(trace + ": embedded suppression 1 is 5005 bytes long"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace heapql::test
