// Recipes from the command line: the sandbox (every escape a shared recipe
// might try ends in a clear message and exit 3), the exit codes (0 ok, 1 a
// gate failed, 2 a bad trace, 3 a recipe error), typed --param overrides,
// list and help, a `by` function, derived columns, the imperative API, the
// xperf translation (its JSON equals `heapql query`'s and the xperf-default
// recipe's), and `require "heapql"` from stock lua5.4.
#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <sstream>
#include <string>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

constexpr int kOk = 0, kGate = 1, kBadTrace = 2, kRecipeError = 3;

// A recipe whose top-level chunk starts with `prelude`, then declares a
// plain query (by frame).
std::string recipe_with(const std::string& prelude, const std::string& query = "{ by = \"frame\" }") {
  return prelude + "\nlocal hq = require \"heapql\"\nreturn hq.recipe { name = \"t\", doc = \"a test\", " +
         "query = function(p) return " + query + " end }\n";
}

class Recipes : public ::testing::Test {
 protected:
  CommandResult run(const std::string& recipe_text, const std::string& options = "",
                    const std::string& trace = worked_example()) {
    const std::string path = dir_.file("recipe.lua");
    write_file(path, recipe_text);
    CommandResult r = run_command(heapql() + " run " + shell_quote(path) + " " + shell_quote(trace) + " " + options);
    expect_no_crash(r);
    return r;
  }
  TempDir dir_;
};

// --- the sandbox -----------------------------------------------------------

struct Escape {
  const char* name;
  const char* code;
  const char* message;
};

void PrintTo(const Escape& e, std::ostream* os) { *os << e.name; }

class RecipeSandbox : public Recipes, public ::testing::WithParamInterface<Escape> {};

TEST_P(RecipeSandbox, EscapeFailsWithAClearMessageAndExit3) {
  const Escape& e = GetParam();
  // The deadline is wall-clock: a memory bomb gets a long one, so that on a
  // loaded machine it still meets the memory limit first.
  const bool held_by_memory = std::string(e.message).find("memory limit") != std::string::npos;
  const CommandResult r =
      run(recipe_with(e.code), held_by_memory ? "--timeout 60s --memory 64MiB" : "--timeout 2s --memory 64MiB");
  EXPECT_EQ(r.exit_code, kRecipeError) << e.name << "\nstdout: " << r.out << "\nstderr: " << r.err;
  EXPECT_EQ(r.out, "") << "a failed recipe writes no report";
  expect_contains(r.err, e.message);
  expect_contains(r.err, "heapql run: ");
}

const Escape kEscapes[] = {
    {"os_execute", "os.execute('touch /tmp/heapql-escaped')", "'os' is not available in a recipe"},
    {"io_popen", "io.popen('id')", "'io' is not available in a recipe"},
    {"io_open_write", "io.open('/tmp/heapql-escaped', 'w')", "'io' is not available in a recipe"},
    {"debug_library", "debug.sethook()", "'debug' is not available in a recipe"},
    {"package_loadlib", "package.loadlib('libc.so.6', 'system')", "'package' is not available in a recipe"},
    {"dofile", "dofile('/etc/passwd')", "'dofile' is not available in a recipe"},
    {"loadfile", "loadfile('/etc/passwd')", "'loadfile' is not available in a recipe"},
    {"load_bytecode_mode", "load('return 1', 'x', 'b')", "binary chunks are not allowed"},
    {"load_bytecode_text", "load('\\27Lua\\84\\0')", "binary chunks are not allowed"},
    {"string_dump", "string.dump(function() end)", "attempt to call a nil value (field 'dump')"},
    {"require_os", "require 'os'", "module 'os' is not available in a recipe"},
    {"require_io", "require 'io'", "module 'io' is not available in a recipe"},
    {"require_path_traversal", "require '../../etc/passwd'", "not a module name"},
    {"write_global", "x = 1", "cannot set 'x': globals are read-only in a recipe"},
    {"write_global_function", "function helper() end", "cannot set 'helper': globals are read-only"},
    {"rawset_globals", "rawset(_G, 'x', 1)", "rawset: the globals and library tables are read-only"},
    {"replace_library_function", "string.rep = nil", "library tables are read-only"},
    {"remove_protection", "setmetatable(_G, nil)", "cannot change a protected metatable"},
    {"string_rep_too_large", "local s = string.rep('x', 1 << 40)", "resulting string too large"},
    {"string_rep_memory_bomb", "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1 << 16) .. i end",
     "the recipe used more than its memory limit of 64 MiB (--memory)"},
    {"table_memory_bomb", "local t = {} for i = 1, 1e9 do t[i] = {i} end",
     "the recipe used more than its memory limit of 64 MiB (--memory)"},
    {"infinite_loop", "while true do end", "the recipe ran longer than its time limit of 2s (--timeout)"},
    {"infinite_loop_in_pcall", "while true do pcall(function() while true do end end) end",
     "the recipe ran longer than its time limit of 2s (--timeout)"},
    {"pcall_swallowing_the_deadline", "while true do local ok = pcall(error, 'x') end",
     "the recipe ran longer than its time limit of 2s (--timeout)"},
    {"read_outside_cull_file", "require('heapql').cull.file('/etc/passwd')",
     "a recipe may read files beside it, in the shipped queries/ folder, or named on the command line"},
    {"read_outside_core", "require('heapql.core').read_text('/etc/shadow')", "module 'heapql.core' is heapql's own"},
    {"include_outside", "require('heapql').include('/etc/passwd')", "a recipe may read files beside it"},
    {"open_other_trace", "require('heapql').open('/etc/passwd')", "a recipe may open only the trace named"},
};

INSTANTIATE_TEST_SUITE_P(Escapes, RecipeSandbox, ::testing::ValuesIn(kEscapes),
                         [](const ::testing::TestParamInfo<Escape>& info) { return std::string(info.param.name); });

TEST_F(Recipes, ZeroTurnsTheLimitsOff) {
  const CommandResult r = run(recipe_with("local s = 0 for i = 1, 1e6 do s = s + i end"), "--timeout 0 --memory 0");
  EXPECT_EQ(r.exit_code, kOk) << r.err;
}

TEST_F(Recipes, TrustedOpensTheFullStandardLibrary) {
  const CommandResult r = run(recipe_with("assert(os.time() > 0); assert(io.open)"), "--trusted");
  EXPECT_EQ(r.exit_code, kOk) << r.err;
}

TEST_F(Recipes, FilesBesideTheRecipeMayBeRead) {
  write_file(dir_.file("mine.txt"), "# mine\nmemory_test_app!Nothing\n");
  write_file(dir_.file("helpers.lua"), "return { by = 'frame' }\n");
  const CommandResult r =
      run("local hq = require 'heapql'\nlocal helpers = require 'helpers'\n"
          "local extra = hq.include 'helpers.lua'\n"
          "return hq.recipe { name = 't', doc = 'd', query = function() return { by = helpers.by, "
          "cull = hq.cull.defaults + hq.cull.file 'mine.txt' } end }\n");
  EXPECT_EQ(r.exit_code, kOk) << r.err;
}

// --- errors and exit codes --------------------------------------------------

TEST_F(Recipes, ASyntaxErrorNamesTheFileAndLine) {
  const CommandResult r = run("local hq = require 'heapql'\nreturn hq.recipe {\n  name = 'x' doc = 'y'\n}\n");
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "recipe.lua:3:");
}

TEST_F(Recipes, ARuntimeErrorHasFileAndLineAndATracebackWithVerbose) {
  const CommandResult r = run(recipe_with("", "(function() error('boom') end)()"));
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "recipe.lua:3: boom");
  EXPECT_EQ(r.err.find("stack traceback:"), std::string::npos) << r.err;
  const CommandResult verbose = run(recipe_with("", "(function() error('boom') end)()"), "--verbose");
  expect_contains(verbose.err, "recipe.lua:3: boom");
  expect_contains(verbose.err, "stack traceback:");
}

// `return hq.recipe {...}` is a tail call: a mistake in the declaration is
// still named at the recipe's file and the line of its declaration, by run
// and by help.
TEST_F(Recipes, AMistakeInTheDeclarationNamesTheFileAndLine) {
  const std::string both = "-- two ways to run\nlocal hq = require 'heapql'\nreturn hq.recipe {\n  name = 'x', doc = 'd',\n"
                           "  query = function() return {} end,\n  run = function() end,\n}\n";
  const CommandResult r = run(both);
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, dir_.file("recipe.lua") + ":3: hq.recipe: give 'query' (with an optional 'report') or 'run', not both");
  const CommandResult help = run_command(heapql() + " help " + shell_quote(dir_.file("recipe.lua")));
  EXPECT_EQ(help.exit_code, kRecipeError);
  expect_contains(help.err, dir_.file("recipe.lua") + ":3: hq.recipe: give 'query'");
  const CommandResult field = run("local hq = require 'heapql'\nreturn hq.recipe { name = 'x', doc = 'd', colour = 1 }\n");
  expect_contains(field.err, dir_.file("recipe.lua") + ":2: hq.recipe: unknown field 'colour'");
}

// A recipe's own mistake inside a library call is shown at the recipe's
// line, without heapql's library files (they come with --verbose).
TEST_F(Recipes, AMistakeInALibraryCallPointsAtTheRecipe) {
  const CommandResult r = run("local hq = require 'heapql'\nlocal c = hq.cull.file 'missing.txt'\n"
                              "return hq.recipe { name = 't', doc = 'd', query = function() return {} end }\n");
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "recipe.lua:2: ");
  expect_contains(r.err, "missing.txt: cannot open file: No such file or directory");
  EXPECT_EQ(r.err.find("lua/heapql/"), std::string::npos) << r.err;
}

// An installed heapql's user has no build tree: a traceback names the
// library's files by their module (heapql/init.lua:42), not by where the
// build machine read them from.
TEST_F(Recipes, ATracebackNamesLibraryFilesByTheirModule) {
  const CommandResult r = run("local hq = require 'heapql'\nlocal c = hq.cull.file 'missing.txt'\n"
                              "return hq.recipe { name = 't', doc = 'd', query = function() return {} end }\n",
                              "--verbose");
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "stack traceback:");
  expect_contains(r.err, "\n\theapql/init.lua:");
  EXPECT_EQ(r.err.find(std::string(HEAPQL_SOURCE_DIR) + "/lua/"), std::string::npos) << r.err;
}

TEST_F(Recipes, AnUnknownQueryFieldIsNamedWithASuggestion) {
  const CommandResult r = run(recipe_with("", "{ sortt = 'so' }"));
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "query field 'sortt': unknown field (did you mean 'sort'?)");
  expect_contains(r.err, "(query at line 3)");
}

TEST_F(Recipes, ABadValueNamesFieldGivenAndAllowed) {
  const CommandResult r = run(recipe_with("", "{ sort = 'biggest' }"));
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "query field 'sort': expected one of so|soc|st|stc|src|impacting (outstanding size, "
                         "outstanding count, total size, total count, realloc count, impacting size); got \"biggest\"");
}

TEST_F(Recipes, AGrammarErrorPointsAtTheColumn) {
  const CommandResult r = run(recipe_with("", "{ window = '1s..2x' }"));
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "query field 'window'");
  expect_contains(r.err, "at column 6");
}

TEST_F(Recipes, ABadTraceIsExit2NamingTheFile) {
  const std::string bad = dir_.file("bad.txt");
  write_file(bad, "v 10400 3\nthis is not a trace\n");
  const CommandResult r = run(recipe_with(""), "", bad);
  EXPECT_EQ(r.exit_code, kBadTrace) << r.err;
  expect_contains(r.err, "bad.txt");
}

TEST_F(Recipes, AMissingTraceIsExit2) {
  const CommandResult r = run(recipe_with(""), "", dir_.file("missing.zst"));
  EXPECT_EQ(r.exit_code, kBadTrace) << r.err;
  expect_contains(r.err, "missing.zst");
}

TEST_F(Recipes, AFailedGateIsExit1AndTheReportIsStillWritten) {
  const CommandResult r =
      run("local hq = require 'heapql'\nreturn hq.recipe { name = 'budget', doc = 'd', params = { budget = '100' },\n"
          "  query = function(p) return { totals = true } end,\n"
          "  report = function(result, out, p)\n"
          "    out:result(result)\n"
          "    hq.fail_if(result:totals().so > tonumber(p.budget), 'outstanding ' .. result:totals().so .. ' B is over "
          "the budget of ' .. p.budget .. ' B')\n"
          "  end }\n");
  EXPECT_EQ(r.exit_code, kGate) << r.err;
  expect_contains(r.err, "gate failed: outstanding 424 B is over the budget of 100 B");
  expect_contains(r.out, "[total]");
}

TEST_F(Recipes, APassingGateIsExit0) {
  const CommandResult r = run(
      "local hq = require 'heapql'\nreturn hq.recipe { name = 'b', doc = 'd', params = { budget = 1000 },\n"
      "  query = function() return { totals = true } end,\n"
      "  report = function(result, out, p) out:result(result); hq.fail_if(result:totals().so > p.budget, 'over') end }\n",
      "--param budget=500");
  EXPECT_EQ(r.exit_code, kOk) << r.err;
}

TEST_F(Recipes, ParamsAreTypedByTheDeclaration) {
  const std::string recipe =
      "local hq = require 'heapql'\nreturn hq.recipe { name = 't', doc = 'd',\n"
      "  params = { top = { type = 'integer', default = 2, doc = 'rows' }, window = { type = 'duration_range', "
      "default = 'all', doc = 'w' } },\n"
      "  query = function(p) assert(math.type(p.top) == 'integer'); return { by = 'frame', top = p.top, window = "
      "p.window } end }\n";
  CommandResult r = run(recipe, "--param top=1 --param window=0s..1s");
  EXPECT_EQ(r.exit_code, kOk) << r.err;
  expect_contains(r.out, "top 1");
  r = run(recipe, "--param top=many");
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "--param top=many: expected a whole number (type integer)");
  r = run(recipe, "--param window=1s..2q");
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "--param window=1s..2q: '1s..2q' at column");
  r = run(recipe, "--param colour=red");
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "unknown param 'colour' (params: top, window)");
}

// --- extending without recompiling -----------------------------------------

TEST_F(Recipes, AByFunctionRunsOncePerUniqueStackAndMergesRows) {
  // Key = the module of the first frame: merges rows like --by image would.
  const CommandResult by_function = run(
      "local hq = require 'heapql'\nreturn hq.recipe { name = 't', doc = 'd',\n"
      "  query = function() return { by = function(frames) return (frames[1] or '?'):match('^[^!]*') end } end,\n"
      "  report = function(result, out) out:json(result) end }\n",
      "");
  ASSERT_EQ(by_function.exit_code, kOk) << by_function.err;
  const CommandResult by_image = run_command(heapql() + " query " + shell_quote(worked_example()) +
                                             " --by image --format json --no-progress");
  ASSERT_EQ(by_image.exit_code, kOk);
  // The same rows and numbers; only the level's name differs.
  std::string expected = by_image.out;
  const std::string image_level = "\"by\":[\"image\"]";
  expected.replace(expected.find(image_level), image_level.size(), "\"by\":[\"custom\"]");
  EXPECT_EQ(by_function.out, expected);
}

TEST_F(Recipes, DerivedColumnsAppearInTheTable) {
  const CommandResult r = run(
      "local hq = require 'heapql'\nreturn hq.recipe { name = 't', doc = 'd',\n"
      "  columns = { { 'avg', function(row) return row.stc > 0 and row.st // row.stc or 0 end } },\n"
      "  query = function() return { by = 'frame' } end }\n");
  ASSERT_EQ(r.exit_code, kOk) << r.err;
  expect_contains(r.out, "avg  key");
  expect_contains(r.out, "234  demo!Buffer::append");
}

TEST_F(Recipes, TheImperativeApiComposesTwoWindowsSideBySide) {
  const CommandResult r = run(
      "local hq = require 'heapql'\nreturn hq.recipe { name = 't', doc = 'd',\n"
      "  run = function(trace, p, out)\n"
      "    local first = trace:query { window = '0s..300ms', by = 'frame', totals = true }\n"
      "    local second = trace:query { window = '300ms..', by = 'frame', totals = true }\n"
      "    local whole = trace:summary()\n"
      "    out:line('first %d second %d whole %d', first:totals().stc, second:totals().stc, whole.blocks)\n"
      "  end }\n");
  ASSERT_EQ(r.exit_code, kOk) << r.err;
  // The two halves add up to the whole (semantics.md §2: windows are half-open).
  expect_contains(r.out, "whole 11");
  const auto first = std::stoi(r.out.substr(r.out.find("first ") + 6));
  const auto second = std::stoi(r.out.substr(r.out.find("second ") + 7));
  EXPECT_EQ(first + second, 11) << r.out;
}

TEST_F(Recipes, TheStackTreeHasTopDownAndBottomUp) {
  const CommandResult r = run(
      "local hq = require 'heapql'\nreturn hq.recipe { name = 't', doc = 'd',\n"
      "  query = function() return { by = 'stack', sort = 'st' } end,\n"
      "  report = function(result, out) out:tree(result, { threshold = 0 }); out:tree(result, { direction = "
      "'bottom-up', threshold = 0.05 }) end }\n");
  ASSERT_EQ(r.exit_code, kOk) << r.err;
  expect_contains(r.out, "top-down");
  expect_contains(r.out, "bottom-up");
  expect_contains(r.out, "[total]");
}

// --- list, help, run by name -------------------------------------------------

TEST(RecipeCommands, ListShowsEveryShippedRecipeWithItsDoc) {
  const CommandResult r = run_command(heapql() + " list");
  ASSERT_EQ(r.exit_code, kOk) << r.err;
  for (const char* name : {"leaks", "transient", "growth", "top-images", "top-frames", "realloc-churn", "peak",
                           "temporary", "heaps", "xperf-default"}) {
    expect_contains(r.out, std::string("  ") + name + " ");
  }
}

TEST(RecipeCommands, HelpShowsParamsAndDefaults) {
  const CommandResult r = run_command(heapql() + " help leaks");
  ASSERT_EQ(r.exit_code, kOk) << r.err;
  expect_contains(r.out, "leaks — ");
  expect_contains(r.out, "params (override with --param NAME=VALUE):");
  expect_contains(r.out, "window");
}

TEST(RecipeCommands, AnUnknownRecipeIsExit3) {
  const CommandResult r = run_command(heapql() + " run no-such-recipe " + shell_quote(worked_example()));
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "no recipe 'no-such-recipe'");
}

// --- xperf -------------------------------------------------------------------

TEST(RecipeXperf, PrintsARecipeThatRunsToTheSameJsonAsHeapqlQuery) {
  const TempDir dir;
  write_file(dir.file("crt.txt"), "# extra cull\ndemo!new_buf\n");
  const std::string flags = "-stacks st -range 0 500000 -cullLists crt.txt -requireFrames 'demo!*' -top 3";
  const std::string cd = "cd " + shell_quote(dir.path().string()) + " && ";
  const CommandResult printed = run_command(cd + heapql() + " xperf " + flags);
  ASSERT_EQ(printed.exit_code, kOk) << printed.err;
  expect_contains(printed.out, "hq.recipe");
  // The cull list's patterns are in the recipe: it needs no file beside it.
  expect_contains(printed.out, "cull = hq.cull.defaults + hq.cull.set { \"demo!new_buf\" },");

  // The printed recipe, saved in another folder and run from there, equals
  // --run, which equals heapql query.
  const TempDir elsewhere;
  write_file(elsewhere.file("saved.lua"), printed.out);
  const std::string trace = shell_quote(worked_example());
  const CommandResult saved = run_command("cd " + shell_quote(elsewhere.path().string()) + " && " + heapql() +
                                          " run saved.lua " + trace + " --format json");
  const CommandResult direct = run_command(cd + heapql() + " xperf " + flags + " --run " + trace + " --format json");
  const CommandResult query =
      run_command(cd + heapql() + " query " + trace +
                  " --by stack --sort st --window 0s..500ms --cull-list crt.txt --require 'demo!*' --top 3 "
                  "--format json --no-progress");
  ASSERT_EQ(saved.exit_code, kOk) << saved.err;
  ASSERT_EQ(direct.exit_code, kOk) << direct.err;
  ASSERT_EQ(query.exit_code, kOk) << query.err;
  EXPECT_EQ(direct.out, query.out);
  EXPECT_EQ(saved.out, query.out);
}

TEST(RecipeXperf, AMissingCullListIsNamedAsMissing) {
  const TempDir dir;
  const CommandResult r = run_command("cd " + shell_quote(dir.path().string()) + " && " + heapql() +
                                      " xperf -cullLists absent.txt --run " + shell_quote(worked_example()));
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "absent.txt: cannot open -cullLists file: No such file or directory");
}

TEST(RecipeXperf, BareHeapActionEqualsTheXperfDefaultRecipe) {
  const std::string trace = shell_quote(example_trace());
  const CommandResult xperf = run_command(heapql() + " xperf --run " + trace + " --format json");
  const CommandResult canned = run_command(heapql() + " run xperf-default " + trace + " --format json");
  const CommandResult query = run_command(heapql() + " query " + trace + " --format json --no-progress");
  ASSERT_EQ(xperf.exit_code, kOk) << xperf.err;
  ASSERT_EQ(canned.exit_code, kOk) << canned.err;
  EXPECT_EQ(xperf.out, query.out);
  EXPECT_EQ(canned.out, query.out);
}

TEST(RecipeXperf, BadFlagsAreExit3NamingTheFlag) {
  CommandResult r = run_command(heapql() + " xperf -stacks so -range 10 x");
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "-range");
  r = run_command(heapql() + " xperf -frobnicate");
  EXPECT_EQ(r.exit_code, kRecipeError);
  expect_contains(r.err, "-frobnicate");
}

// --- stock Lua ---------------------------------------------------------------

TEST(RecipeStockLua, RequireHeapqlWorksFromLua54) {
  if (run_command("command -v lua5.4").exit_code != 0) GTEST_SKIP() << "lua5.4 is not installed";
  if (HEAPQL_SANITIZED) GTEST_SKIP() << "stock lua5.4 cannot load a sanitized heapql.so";
  const std::string module_dir = std::filesystem::path(heapql_binary()).parent_path().string();
  const TempDir dir;
  write_file(dir.file("report.lua"),
             "local hq = require 'heapql'\n"
             "local trace = hq.open(arg[1])\n"
             "local r = trace:query { by = 'frame', top = 2 }\n"
             "for _, row in ipairs(r:rows()) do print(row.frame, row.so, row.stc) end\n"
             "print('total', r:totals().stc, trace:summary().blocks)\n");
  const CommandResult r = run_command("lua5.4 -e " + shell_quote("package.cpath='" + module_dir + "/?.so;'..package.cpath") +
                                      " " + shell_quote(dir.file("report.lua")) + " " + shell_quote(worked_example()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_contains(r.out, "demo!new_buf\t256\t1\n");
  expect_contains(r.out, "total\t11\t11\n");
}

}  // namespace
}  // namespace heapql::test

namespace heapql::test {
namespace {

// README's recipe, saved where a team keeps its recipes, works from there:
// the shipped cull list is named, not found beside the recipe.
TEST(RecipesFromDocs, TheReadmeRecipeWorksSavedInAnotherFolder) {
  const std::string readme = read_file(std::string(HEAPQL_SOURCE_DIR) + "/README.md");
  const std::size_t intro = readme.find("A recipe:");
  ASSERT_NE(intro, std::string::npos);
  const std::size_t start = readme.find("```lua\n", intro) + 7;
  const std::size_t end = readme.find("```", start);
  ASSERT_LT(start, end);
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "my-team");
  write_file(dir.file("my-team/budget.lua"), readme.substr(start, end - start));
  const CommandResult r = run_command("cd " + shell_quote(dir.path().string()) + " && " +
                                      shell_quote(heapql_binary()) + " run my-team/budget.lua " +
                                      shell_quote(example_trace()));
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, kGate) << r.err;  // 21.77 MB leak, over the 1 MiB budget
  expect_contains(r.err, "heapql run: gate failed: leaked more than 1MiB");
  expect_contains(r.out, "InnerLoopOperation");
}

}  // namespace
}  // namespace heapql::test

namespace heapql::test {
namespace {

// The same query through both doors: `heapql query` options and a recipe's
// query fields give the same answer, or both refuse it (exit 3). `{dir}` in
// the options is the folder the recipe and its files are in.
struct SameQuery {
  const char* name;
  const char* options;  // heapql query
  const char* fields;   // the recipe's query table
};

void PrintTo(const SameQuery& q, std::ostream* os) { *os << q.name; }

class QueryThroughBothDoors : public ::testing::TestWithParam<SameQuery> {};

TEST_P(QueryThroughBothDoors, GivesTheSameAnswerOrTheSameRefusal) {
  const SameQuery& q = GetParam();
  const TempDir dir;
  write_file(dir.file("q.lua"), std::string("local hq = require 'heapql'\nreturn hq.recipe { name = 'q', doc = 'd', "
                                            "query = function() return { ") +
                                    q.fields + " } end }\n");
  write_file(dir.file("cull.txt"), "# the example's own allocator\ndemo!new_buf\n");
  write_file(dir.file("supp.txt"), "leak:make_node\n");
  std::string options = q.options;
  // With '/' (generic): the options are shell words, where '\\' would escape.
  for (std::size_t at; (at = options.find("{dir}")) != std::string::npos;) options.replace(at, 5, dir.path().generic_string());
  const std::string trace = shell_quote(worked_example());
  const CommandResult cli =
      run_command(heapql() + " query " + trace + " " + options + " --format json --no-progress");
  const CommandResult recipe =
      run_command(heapql() + " run " + shell_quote(dir.file("q.lua")) + " " + trace + " --format json");
  EXPECT_EQ(cli.exit_code, recipe.exit_code) << "cli: " << cli.err << "\nrecipe: " << recipe.err;
  EXPECT_EQ(cli.out, recipe.out);
  EXPECT_TRUE(cli.exit_code == 0 || cli.exit_code == 3) << cli.err;
}

const SameQuery kSameQueries[] = {
    {"top_0", "--top 0", "top = 0"},
    {"top_2", "--top 2", "top = 2"},
    {"top_not_a_number", "--top x", "top = 'x'"},
    {"series_0", "--series 0", "series = 0"},
    {"series_5", "--series 5", "series = 5"},
    {"series_too_many", "--series 100001", "series = 100001"},
    {"window", "--window 100ms..300ms", "window = '100ms..300ms'"},
    {"window_open", "--window 200ms..", "window = '200ms..'"},
    {"bad_window", "--window 300ms..100ms", "window = '300ms..100ms'"},
    {"sort_and_by", "--by frame --sort stc", "by = 'frame', sort = 'stc'"},
    {"bad_sort", "--sort big", "sort = 'big'"},
    {"by_nested", "--by process,stack", "by = 'process,stack'"},
    {"by_list", "--by frame,image", "by = {'frame', 'image'}"},
    {"bad_by", "--by colour", "by = 'colour'"},
    {"size", "--size 100..1KB", "size = '100..1KB'"},
    {"bad_size", "--size 1KB..10", "size = '1KB..10'"},
    {"lifetime", "--lifetime 100ms..", "lifetime = '100ms..'"},
    {"bad_lifetime", "--lifetime 5parsecs..", "lifetime = '5parsecs..'"},
    {"at_peak", "--at-peak --by frame", "at_peak = true, by = 'frame'"},
    {"at_peak_with_lifetime", "--at-peak --lifetime 1ms..", "at_peak = true, lifetime = '1ms..'"},
    {"at_peak_with_temporary", "--at-peak --temporary", "at_peak = true, temporary = true"},
    {"at_peak_with_impacting", "--at-peak --impacting AIFO", "at_peak = true, impacting = 'AIFO'"},
    {"at_peak_by_impacting", "--at-peak --by impacting", "at_peak = true, by = 'impacting'"},
    {"process", "--process demo --process 4242", "process = {'demo', 4242}"},
    {"processes_by_comma", "--process demo,other", "process = 'demo,other'"},
    {"heap", "--heap 0x10", "heap = '0x10'"},
    {"kind", "--kind heap", "kind = 'heap'"},
    {"bad_kind", "--kind disk", "kind = 'disk'"},
    {"thread", "--thread 7,8", "thread = {7, 8}"},
    {"bad_thread", "--thread x", "thread = 'x'"},
    {"impacting", "--impacting aifo,AIFI --by impacting,stack", "impacting = 'aifo,AIFI', by = {'impacting', 'stack'}"},
    {"bad_impacting", "--impacting XX", "impacting = 'XX'"},
    {"temporary", "--temporary", "temporary = true"},
    {"require", "--require 'demo!make_node'", "require = 'demo!make_node'"},
    {"bad_require", "--require ''", "require = ''"},
    {"exclude", "--exclude 'demo!scratch' --by frame", "exclude = 'demo!scratch', by = 'frame'"},
    {"suppressions", "--suppressions {dir}/supp.txt", "suppressions = hq.suppressions.file 'supp.txt'"},
    {"embedded_suppressions", "--embedded-suppressions", "embedded_suppressions = true"},
    {"cull", "--cull 'demo!new_buf' --by frame", "cull = 'demo!new_buf', by = 'frame'"},
    {"cull_list", "--cull-list {dir}/cull.txt --by frame", "cull = hq.cull.defaults + hq.cull.file 'cull.txt', by = 'frame'"},
    {"no_default_cull", "--no-default-cull --by frame", "default_cull = false, by = 'frame'"},
    {"totals", "--totals", "totals = true"},
    {"detail", "--detail 2 --by frame", "detail = 2, by = 'frame'"},
    {"detail_beyond_the_rows", "--detail 99 --by frame", "detail = 99, by = 'frame'"},
    {"bad_detail", "--detail 0", "detail = 0"},
};

// Every query option `heapql help` lists (the schema's) is among the cases
// above, so a new field cannot skip this test.
TEST(QueryThroughBothDoors, CoversEveryQueryOption) {
  const CommandResult help = run_command(heapql() + " help");
  ASSERT_EQ(help.exit_code, 0);
  const std::size_t begin = help.out.find("query options");
  const std::size_t end = help.out.find("reading and output options");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  std::istringstream lines(help.out.substr(begin, end - begin));
  int options = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("  --")) continue;
    const std::string option = line.substr(2, line.find(' ', 2) - 2);
    ++options;
    bool covered = false;
    for (const SameQuery& q : kSameQueries) {
      const std::string given = std::string(" ") + q.options + " ";
      covered = covered || given.find(" " + option + " ") != std::string::npos;
    }
    EXPECT_TRUE(covered) << option << " has no case in kSameQueries";
  }
  EXPECT_GE(options, 20);
}

INSTANTIATE_TEST_SUITE_P(Options, QueryThroughBothDoors, ::testing::ValuesIn(kSameQueries),
                         [](const ::testing::TestParamInfo<SameQuery>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace heapql::test
