// A new user's mistakes: arguments swapped, a file given to the wrong
// command, a typo in a name or an option. Each must end in a message that
// names the mistake and the fix (never a Lua syntax error about a compressed
// trace, a binary dump, or an empty table without a word). The list of
// mistakes and their messages is in docs/cli.md ("Mistakes and what heapql
// says").
#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <string>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

constexpr int kBadTrace = 2;
constexpr int kBadQuery = 3;

// Exit `code`, nothing on stdout, each of `parts` in the message and none of
// `wrong` (what the message said before it was fixed).
void expect_message(const CommandResult& r, int code, std::initializer_list<std::string> parts,
                    std::initializer_list<std::string> wrong = {}) {
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("heapql", 0), 0u) << "messages start with the program name: " << r.err;
  for (const std::string& part : parts)
    EXPECT_NE(r.err.find(part), std::string::npos) << "missing '" << part << "' in: " << r.err;
  for (const std::string& part : wrong)
    EXPECT_EQ(r.err.find(part), std::string::npos) << "'" << part << "' in: " << r.err;
}

// An answer (exit 0, a report) with each of `warnings` on stderr.
void expect_answer_warning(const CommandResult& r, std::initializer_list<std::string> warnings) {
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[total]"), std::string::npos) << r.out;
  for (const std::string& part : warnings)
    EXPECT_NE(r.err.find(part), std::string::npos) << "missing '" << part << "' in: " << r.err;
}

class UserMistakes : public ::testing::Test {
 protected:
  // The bundled example (process memory_test_app, heap default, thread 0)
  // with its raw twin, in the test's folder.
  std::string example() {
    const std::string trace = dir_.file("prog.zst");
    if (!fs::exists(trace)) {
      fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.zst", trace);
      fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.raw.zst",
                    dir_.file("prog.raw.zst"));
    }
    return trace;
  }
  std::string q(const std::string& path) { return shell_quote(path); }

  TempDir dir_;
};

// ---- heapql top ----

TEST_F(UserMistakes, TopSaysWhatItWatches) {
#ifdef _WIN32
  GTEST_SKIP() << "heapql top is Linux-only (WprRecording.OnWindowsTopIsNotAvailableAndExits2)";
#else
  expect_message(run_heapql("top"), kBadQuery, {"usage: heapql top TRACE, or heapql top [-o NAME] -- PROGRAM"});
  expect_message(run_heapql("top " + q(example()) + " -- true"), kBadQuery, {"usage: heapql top TRACE"});
  expect_message(run_heapql("top " + q(example()) + " " + q(example())), kBadQuery, {"heapql top watches one trace"});
  expect_message(run_heapql("top -o name " + q(example())), kBadQuery, {"-o names the recording heapql top makes"});
  expect_message(run_heapql("top --interval 10ms " + q(example())), kBadQuery, {"--interval '10ms': at least 100ms"});
  expect_message(run_heapql("top --top 0 " + q(example())), kBadQuery, {"--top '0': expected a whole number above 0"});
  expect_message(run_heapql("top " + q(dir_.file("absent.zst"))), kBadTrace, {"absent.zst: no such trace or recording"});
#endif
}

TEST_F(UserMistakes, TopOfAFinishedTraceShowsItOnceAndEnds) {
#ifdef _WIN32
  GTEST_SKIP() << "heapql top is Linux-only";
#else
  const CommandResult r = run_heapql("top --top 3 " + q(example()));
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const CommandResult query = run_heapql("query " + q(example()) + " --by stack --top 3 --no-progress");
  EXPECT_EQ(r.out.find("heapql top: " + example() + ": the recording is over"), 0u) << r.out;
  EXPECT_NE(r.out.find("\n\n" + query.out), std::string::npos) << r.out;
#endif
}

// ---- the five ----

TEST_F(UserMistakes, RunWithTraceAndRecipeSwappedSaysWhichIsWhich) {
  // Before: "prog.zst:1: unexpected symbol near '<\181>'" (the trace read as Lua).
  const std::string trace = example();
  expect_message(
      run_heapql("run " + q(trace) + " leaks"), kBadQuery,
      {"'" + trace + "' is a heaptrack trace, not a recipe", "the recipe comes first", "heapql run leaks " + trace},
      {"unexpected symbol"});
}

TEST_F(UserMistakes, RunWithOnlyATraceSaysTheRecipeIsMissing) {
  // Before: "needs a trace file" (the trace was taken as the recipe).
  const std::string trace = example();
  expect_message(run_heapql("run " + q(trace)), kBadQuery,
                 {"is a heaptrack trace, not a recipe", "heapql run RECIPE " + trace}, {"needs a trace file"});
}

TEST_F(UserMistakes, ARecipeFileWithoutLuaSuffixIsStillARecipe) {
  // The trace check looks at content: a recipe file named without .lua runs.
  const std::string recipe = dir_.file("my-leaks");
  fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/queries/leaks.lua", recipe);
  const CommandResult r = run_heapql("run " + q(recipe) + " " + q(example()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(UserMistakes, ImportOfAHeaptrackTraceNamesTheCommandThatReadsIt) {
  // Before: "zstd-compressed: ... decompress it first", and with a store
  // beside the trace a warning that contradicted itself before that.
  const std::string trace = example();
  ASSERT_EQ(run_heapql("ingest --no-progress " + q(trace)).exit_code, 0);
  expect_message(run_heapql("import " + q(trace)), kBadQuery,
                 {"'" + trace + "' is a heaptrack trace, not an event CSV", "heapql query " + trace},
                 {"decompress", "warning"});
}

TEST_F(UserMistakes, ImportOfAnIngestedCsvUsesItsStoreWithoutAWarning) {
  // Before: "not used, it was read with other options (its raw twin where
  // there is one, not its raw twin where there is one, as event CSV)": the
  // store, written with the format detected, passed over for the same format named.
  const std::string csv = dir_.file("events.csv");
  fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/tests/data/csv/example.csv", csv);
  ASSERT_EQ(run_heapql("ingest --no-progress " + q(csv)).exit_code, 0);
  const CommandResult r = run_heapql("import --no-progress " + q(csv));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("not used"), std::string::npos) << r.err;
}

TEST_F(UserMistakes, ImportOfAPlainHeaptrackTraceToo) {
  write_file(dir_.file("plain.txt"), "v 10400 3\ns 4 /bin\ni 1000 1\nt 1 0\na 10 1\n+ 0\n");
  expect_message(run_heapql("import " + q(dir_.file("plain.txt"))), kBadQuery,
                 {"is a heaptrack trace, not an event CSV"});
}

TEST_F(UserMistakes, ProcessTypoNamesTheNearProcess) {
  // Before: an empty table, exit 0, nothing on stderr.
  expect_answer_warning(
      run_heapql("query " + q(example()) + " --process memory_test_ap"),
      {"--process 'memory_test_ap' names no process of the trace", "did you mean 'memory_test_app' (pid 0)?"});
}

TEST_F(UserMistakes, ProcessNumberNotInTheTraceListsItsProcesses) {
  expect_answer_warning(run_heapql("query " + q(example()) + " --process 12"),
                        {"--process '12' names no process", "the trace's processes: 'memory_test_app' (pid 0)"});
}

TEST_F(UserMistakes, HeapTypoNamesTheNearHeap) {
  expect_answer_warning(run_heapql("query " + q(example()) + " --heap defualt"),
                        {"--heap 'defualt' names no heap of the trace", "did you mean 'default' (0x0)?"});
}

TEST_F(UserMistakes, ThreadNotInTheTraceListsItsThreads) {
  expect_answer_warning(run_heapql("query " + q(example()) + " --thread 99"),
                        {"--thread 99 is no thread of the trace", "the trace's threads: 0"});
}

TEST_F(UserMistakes, FiltersThatMatchSayNothing) {
  const CommandResult r = run_heapql("query " + q(example()) + " --process MEMORY_TEST_APP --heap 0x0 --thread 0");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST_F(UserMistakes, BlockIdentityFileGivenAsTheTraceNamesTheTrace) {
  // Before: "not a heaptrack file: expected the 'v' record first, got 'HEAPQLBI\x01..."
  const std::string trace = example();
  ASSERT_EQ(run_heapql("ingest --no-progress " + q(trace)).exit_code, 0);
  ASSERT_TRUE(fs::exists(trace + ".hqid"));
  for (const char* command : {"info ", "query ", "run leaks "}) {
    expect_message(run_heapql(command + q(trace + ".hqid")), kBadTrace,
                   {trace + ".hqid: a heapql block-identity file, not a trace", "give the trace itself: " + trace},
                   {"HEAPQLBI", "not a heaptrack file"});
  }
}

// ---- more mistakes ----

TEST_F(UserMistakes, RecipeNameTypoSuggestsTheNearRecipe) {
  expect_message(run_heapql("run leak " + q(example())), kBadQuery, {"no recipe 'leak'", "did you mean 'leaks'"});
}

TEST_F(UserMistakes, LongOptionWithOneDashSuggestsTwo) {
  expect_message(run_heapql("query " + q(example()) + " -top 5"), kBadQuery,
                 {"unknown option '-top'", "did you mean '--top'?"});
}

TEST_F(UserMistakes, MisspeltOptionSuggestsTheNearOne) {
  expect_message(run_heapql("query " + q(example()) + " --tpo 5"), kBadQuery,
                 {"unknown option '--tpo'", "did you mean '--top'?"});
}

TEST_F(UserMistakes, ParamGivenToQuerySaysItIsForRecipes) {
  expect_message(run_heapql("query " + q(example()) + " --param top=5"), kBadQuery,
                 {"unknown option '--param'", "heapql run RECIPE TRACE --param NAME=VALUE"});
}

TEST_F(UserMistakes, QueryOptionGivenToRunSaysRecipesTakeParams) {
  expect_message(run_heapql("run leaks " + q(example()) + " --by image"), kBadQuery,
                 {"'--by' is an option of heapql query", "--param NAME=VALUE", "heapql help RECIPE"});
  // leaks has a param `top`: the option's name is the param's to try.
  expect_message(run_heapql("run leaks " + q(example()) + " --top 1"), kBadQuery, {"--param top=..."});
}

TEST_F(UserMistakes, CommandTypoSuggestsTheNearCommand) {
  expect_message(run_heapql("qeury " + q(example())), kBadQuery, {"unknown command 'qeury'", "did you mean 'query'?"});
}

TEST_F(UserMistakes, EmptyCullPatternSaysWhatTurnsCullingOff) {
  // Before: "--cull: item 1: frame pattern '': empty pattern; got a table".
  expect_message(run_heapql("query " + q(example()) + " --cull ''"), kBadQuery,
                 {"--cull '': an empty pattern culls nothing", "--no-default-cull"}, {"got a table", "item 1"});
}

TEST_F(UserMistakes, BadSecondCullPatternIsNamedNotTheList) {
  expect_message(run_heapql("query " + q(example()) + " --cull malloc --cull '!'"), kBadQuery,
                 {"--cull: frame pattern '!'", "expected a module name"}, {"got a table", "item 2"});
}

TEST_F(UserMistakes, TraceGivenToRecordSaysItIsNoProgram) {
  // Before: heaptrack's "Debuggee ... is not an executable" after "heaptrack wrote no raw trace".
  const std::string trace = example();
  expect_message(run_heapql("record -- " + q(trace)), kBadQuery,
                 {"'" + trace + "' is a heaptrack trace, not a program", "heapql query " + trace},
                 {"wrote no raw trace"});
}

TEST_F(UserMistakes, GroupingKeyInTheWrongCaseIsNamed) {
  expect_message(run_heapql("query " + q(example()) + " --by Stack"), kBadQuery,
                 {"--by 'Stack'", "did you mean 'stack'?"});
}

TEST_F(UserMistakes, WindowWithADashShowsTheRangeMeant) {
  expect_message(run_heapql("query " + q(example()) + " --window 2-8s"), kBadQuery,
                 {"--window", "a range is written with '..', each end with its unit ('2s..8s')"});
}

TEST_F(UserMistakes, SizeWithoutDotsShowsBothOpenRanges) {
  expect_message(run_heapql("query " + q(example()) + " --size 10MB"), kBadQuery,
                 {"--size", "'10MB..' is from 10MB on, '..10MB' is below 10MB"});
}

TEST_F(UserMistakes, MisspeltShippedSuppressionsNameIsNamed) {
  // Before: "heaptrack-bultin: cannot open suppressions file".
  expect_message(run_heapql("query " + q(example()) + " --suppressions heaptrack-bultin"), kBadQuery,
                 {"--suppressions 'heaptrack-bultin'", "did you mean 'heaptrack-builtin'?"});
}

}  // namespace
}  // namespace heapql::test
