// The sandbox against the attacks a shared recipe can make (docs/recipes.md,
// "The sandbox and its limits"), one test or more for each way it was shown
// to read files, crash heapql or pass its limits, and for each escape known
// from other Lua sandboxes (Redis scripting, Roblox's Luau). An attack that
// works prints "ESCAPED" in the report and exits 0; a held one exits 3 with
// the message that names what stopped it, within its time limit and under
// its memory cap. Run under ASan+UBSan too (the RecipeSandbox* suites).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <regex>
#include <string>

#ifdef _WIN32
#include <windows.h>

#include "engine/platform/utf8_wide.h"
#endif
#include "tests/support/symbolic_links.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;
constexpr int kOk = 0, kRecipeError = 3;

bool sanitized() { return HEAPQL_SANITIZED != 0; }

#ifdef _WIN32
constexpr bool kFifos = false;  // named pipes live in \\.\pipe\, which the sandbox refuses
#else
constexpr bool kFifos = true;
#endif

// How many of the two targets of a link out (one there, one missing) the
// sandbox can be shown: under Wine a link to a missing target reads as a
// missing name (symbolic_links.h), so only the first.
int link_target_variants() { return missing_link_targets_are_hidden() ? 1 : 2; }

std::string fmt_hex_line(const std::string& head, int value) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "%x\n", value);
  return head + hex;
}

// A recipe: `prelude` at its top level, then a `run` function with `body`
// (trace, p and out in scope) that writes "ESCAPED" if the attack worked.
std::string attack_recipe(const std::string& prelude, const std::string& body) {
  return "local hq = require 'heapql'\n" + prelude + "\nreturn hq.recipe { name = 'attack', doc = 'an attack', " +
         "run = function(trace, p, out)\n" + body + "\nout:write('ESCAPED') end }\n";
}

struct Outcome {
  CommandResult result;
  double seconds = 0;
  long peak_rss_kib = -1;  // from /usr/bin/time, -1 when it is not there
};

class RecipeSandboxTest : public ::testing::Test {
 protected:
  Outcome run_recipe(const std::string& text, const std::string& options, const std::string& trace = worked_example(),
                     const std::string& command = "run", const std::string& environment = "") {
    const std::string path = dir_.file("recipe.lua");
    write_file(path, text);
    std::string line = environment + heapql() + " " + command + " " + shell_quote(path);
    if (command == "run") line += " " + shell_quote(trace);
    line += " " + options;
#ifdef _WIN32
    const bool timed = false;  // /usr/bin/time is a Linux program (Wine would show it as Z:\usr\bin\time)
#else
    const bool timed = fs::exists("/usr/bin/time");
#endif
    if (timed) line = environment + "/usr/bin/time -f 'peak-rss-kib %M' " + line.substr(environment.size());
    const auto start = std::chrono::steady_clock::now();
    Outcome o;
    o.result = run_command(line);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    expect_no_crash(o.result);
    std::smatch m;
    if (timed && std::regex_search(o.result.err, m, std::regex("peak-rss-kib (\\d+)"))) {
      o.peak_rss_kib = std::stol(m[1]);
    }
    return o;
  }

  // The run was refused with `message`, wrote no report and escaped nothing.
  static void expect_held(const Outcome& o, const std::string& message) {
    EXPECT_EQ(o.result.exit_code, kRecipeError) << "stdout: " << o.result.out << "\nstderr: " << o.result.err;
    EXPECT_EQ(o.result.out.find("ESCAPED"), std::string::npos);
    EXPECT_EQ(o.result.out, "") << "a failed recipe writes no report";
    expect_contains(o.result.err, message);
  }

  // Ended by --timeout 2s: exit 3, the message, and soon after the deadline.
  static void expect_timed_out(const Outcome& o) {
    expect_held(o, "the recipe ran longer than its time limit of 2s (--timeout)");
    EXPECT_GE(o.seconds, 1.9);
    EXPECT_LT(o.seconds, sanitized() ? 8.0 : 4.0) << "the deadline held late";
  }

  // Ended by --memory 256MiB: exit 3, the message, and a peak RSS near the
  // cap (the binary and its baseline come on top; ASan adds its shadow
  // memory and a quarantine of freed blocks).
  static void expect_over_memory(const Outcome& o) {
    expect_held(o, "the recipe used more than its memory limit of 256 MiB (--memory)");
    if (o.peak_rss_kib < 0) GTEST_SKIP() << "/usr/bin/time is not installed: peak RSS not checked";
    const long bound_kib = sanitized() ? 1400L * 1024 : (256L + 96) * 1024;
    EXPECT_LT(o.peak_rss_kib, bound_kib) << "the cap was passed";
  }

  TempDir dir_;
};

// --- attacks made of recipe code alone ----------------------------------------

struct Attack {
  const char* name;
  const char* prelude;
  const char* body;
  const char* message;
};

void PrintTo(const Attack& a, std::ostream* os) { *os << a.name; }

class RecipeSandboxAttacks : public RecipeSandboxTest, public ::testing::WithParamInterface<Attack> {};

TEST_P(RecipeSandboxAttacks, IsHeldWithExit3) {
  const Attack& a = GetParam();
  // None of these is held by the (wall-clock) deadline: a long one keeps them
  // apart from the load of a busy machine.
  expect_held(run_recipe(attack_recipe(a.prelude, a.body), "--timeout 60s --memory 256MiB"), a.message);
}

const Attack kAttacks[] = {
    // Read-only tables stay read-only: pairs must not hand out the real table.
    {"pairs_of_a_module_hands_out_nothing", "local _, real = pairs(hq.cull); real.file = function() end", "",
     "attempt to index a nil value (local 'real')"},
    {"pairs_of_a_library_hands_out_nothing", "local _, real = pairs(string); real.sub = function() end", "",
     "attempt to index a nil value (local 'real')"},
    {"pairs_of_heapql_recipe_hands_out_nothing",
     "local _, real = pairs(require 'heapql.recipe'); real.describe = function() return nil end", "",
     "attempt to index a nil value (local 'real')"},
    {"raw_access_to_a_proxy_finds_nothing",
     "if next(string) ~= nil or rawget(string, 'rep') ~= nil or rawlen(hq.schema.fields) ~= 0 then return end\n"
     "error('held: a proxy holds nothing')",
     "", "held: a proxy holds nothing"},
    {"nested_module_table", "hq.cull.file = function() return 'x' end", "", "cannot set 'file': modules are read-only"},
    {"nested_schema_table", "hq.schema.fields[1] = {}", "", "modules are read-only in a recipe"},
    {"replace_a_library_module_function", "require('heapql.recipe').describe = function() end", "",
     "cannot set 'describe': modules are read-only"},
    {"heapql_core_is_private", "local core = require 'heapql.core'", "",
     "module 'heapql.core' is heapql's own: a recipe uses its functions through require 'heapql'"},
    {"lpeg_metatable_is_locked", "local mt = getmetatable(require('lpeg').P(1)); mt.__index = nil", "",
     "attempt to index a string value (local 'mt')"},
    {"pattern_set_metatable_is_locked", "getmetatable(hq.cull.none).__add = nil", "",
     "attempt to index a string value"},
    {"output_metatable_is_locked", "", "getmetatable(out).write = nil", "attempt to index a string value"},
    {"error_metatable_is_locked", "local ok, e = pcall(hq.open, 1); getmetatable(e).__tostring = nil", "",
     "attempt to index a string value"},
    {"collectgarbage_stop", "collectgarbage('stop')", "", "collectgarbage('stop') is not available in a recipe"},
    {"collectgarbage_generational", "collectgarbage('generational', 0, 0)", "",
     "collectgarbage('generational') is not available"},
    // A step past an int wraps negative in Lua, which stops the collector.
    {"collectgarbage_step_that_wraps", "collectgarbage('step', 2^31)", "",
     "collectgarbage('step', n): n must be a whole number of KiB from 0 to 1048576"},
    {"collectgarbage_negative_step", "collectgarbage('step', -1)", "",
     "collectgarbage('step', n): n must be a whole number of KiB from 0 to 1048576"},
    // Userdata that recipes cannot break.
    {"userdata_gc_called_directly", "", "local r = trace:query{}; getmetatable(r).__gc(r)",
     "attempt to call a nil value (field '__gc')"},  // getmetatable gives a string
    {"userdata_metatable_replaced", "", "setmetatable(trace:query{}, {})", "bad argument #1 to 'setmetatable'"},
    {"result_resurrected_by_a_finalizer", "",
     "local saved\n"
     "do local holder = setmetatable({}, {__gc = function(h) saved = h.r end}); holder.r = trace:query{by = 'frame'} end\n"
     "collectgarbage(); collectgarbage()\n"
     "if saved then saved:rows() end",
     "this heapql.Result was destroyed (collected) and cannot be used"},
    {"trace_resurrected_by_a_finalizer", "",
     "local saved\n"
     "do local holder = setmetatable({}, {__gc = function(h) saved = h.t end}); holder.t = hq.open(trace:path()) end\n"
     "collectgarbage(); collectgarbage()\n"
     "if saved then saved:summary() end",
     "this heapql.Trace was destroyed (collected) and cannot be used"},
    // No __close: a finalizer could otherwise destroy a result under a method
    // that allocates (Luau removed __gc for that reason; a finalizer here is
    // harmless because the receiver is on the stack).
    {"result_is_not_closable", "", "local r <close> = trace:query{by = 'frame'}",
     "variable 'r' got a non-closable value"},
    {"finalizers_closing_a_result_during_its_method", "",
     "local res = trace:query{by = 'frame'}\n"
     "for i = 1, 1000 do setmetatable({}, {__gc = function() local r <close> = res end}) end\n"
     "for i = 1, 50 do res:rows(); res:tree_text{threshold = 0} end\n"
     "error('held: the result outlived every finalizer')",
     "held: the result outlived every finalizer"},
    {"method_on_the_wrong_class", "", "local r = trace:query{}; r.rows(trace)",
     "expected a heapql.Result as the receiver (write result:rows()), got a heapql.Trace"},
    {"method_on_a_string", "", "local r = trace:query{}; r.rows('x')",
     "expected a heapql.Result as the receiver (write result:rows()), got a string"},
    {"with_columns_string_as_row", "", "trace:query{by = 'frame'}:with_columns({'a'}, {'not a row'})",
     "with_columns: values[1] must be a list of cells, got a string"},
    {"with_columns_table_as_cell", "", "trace:query{by = 'frame'}:with_columns({'a'}, {{{}}})",
     "with_columns: values[1][1] must be a string or a number, got a table"},
    {"with_columns_table_as_name", "", "trace:query{by = 'frame'}:with_columns({{}}, {})",
     "with_columns: column name 1 is not a string"},
    {"query_table_with_metamethods", "",
     "trace:query_normalized(setmetatable({}, {__index = function() error('metamethod ran') end}))\n"
     "error('held: no metamethod ran')",
     "held: no metamethod ran"},
    // Only the command line names files for the engine to read.
    {"query_naming_a_cull_file", "", "trace:query_normalized{cull_files = {'/etc/passwd'}}",
     "query field 'cull_files': only the command line names files"},
    {"query_naming_a_suppressions_file", "", "trace:query_normalized{suppression_files = {'/etc/passwd'}}",
     "query field 'suppression_files': only the command line names files"},
    {"query_field_of_the_command_line", "", "trace:query{cull_files = {'/etc/passwd'}}", "unknown field"},
    {"open_options_with_metamethods", "",
     "hq.open(trace:path(), setmetatable({}, {__index = function() error('metamethod ran') end})):summary()\n"
     "error('held: no metamethod ran')",
     "held: no metamethod ran"},
    {"tree_options_with_metamethods", "",
     "trace:query{by = 'stack'}:tree_text(setmetatable({}, {__index = function() error('metamethod ran') end}))\n"
     "error('held: no metamethod ran')",
     "held: no metamethod ran"},
    // Error values the host reads back.
    {"error_object_with_index_metamethod", "error(setmetatable({}, {__index = function() error('x') end}))", "",
     "heapql run: "},
    {"error_object_whose_tostring_fails", "error(setmetatable({}, {__tostring = function() return {} end}))", "",
     "'__tostring' must return a string"},
    {"error_object_forged_as_a_trace_error", "error({kind = 'trace', message = 'forged'})", "",
     "recipe.lua:2: table: "},  // exit 3, not the exit 2 of a bad trace
    // Deep recursion through C: Lua's own limits answer.
    {"recursion_through_index", "local t = setmetatable({}, {__index = function(t, k) return t[k] end}); local _ = t.a",
     "", "C stack overflow"},
    {"recursion_through_gsub", "local function f(s) return (s:gsub('.', f)) end f('abc')", "", "C stack overflow"},
    {"recursion_through_tostring",
     "local t; t = setmetatable({}, {__tostring = function() return tostring(t) end}); tostring(t)", "",
     "C stack overflow"},
    {"recursion_through_by_functions", "",
     "local function q() return trace:query{by = function() return tostring(#q():rows()) end} end q()",
     "the `by` function failed"},
    {"stack_overflow_in_lua", "local function f() return 1 + f() end f()", "", "stack overflow"},
    // Known escapes of other sandboxes (Redis scripting, Luau), here refused.
    {"bytecode_through_load_reader", "local f, e = load(function() return '\\27Lua' end); error(e)", "",
     "attempt to load a binary chunk (mode is 't')"},
    {"string_metatable", "getmetatable('').__index = {}", "", "attempt to index a string value"},
    {"unpack_huge_range", "table.unpack({}, 1, 1e8)", "", "too many results to unpack"},
    {"string_rep_overflow", "string.rep('x', math.maxinteger)", "", "resulting string too large"},
    {"format_huge_width", "string.format('%999999999d', 1)", "", "invalid conversion"},
    {"concat_huge_range", "table.concat({}, '', 1, math.maxinteger)", "", "invalid value (nil) at index 1 in table for 'concat'"},
    {"table_move_wraps", "table.move({1}, 1, math.maxinteger, 2)", "", "destination wrap around"},
    {"setmetatable_on_globals", "setmetatable(_G, {})", "", "cannot change a protected metatable"},
    {"rawset_on_a_library_table", "rawset(string, 'format', function() return 'x' end)", "",
     "rawset: the globals and library tables are read-only"},
    {"rawset_on_a_nested_module_table", "rawset(hq.cull, 'file', function() return 'x' end)", "",
     "rawset: the globals and library tables are read-only"},
    {"rawset_on_a_frozen_pattern_set", "rawset(hq.cull.defaults, 'texts', function() return {} end)", "",
     "rawset: the globals and library tables are read-only"},
    {"rawset_on_an_output", "", "rawset(out, 'write', function() end)",
     "rawset: the globals and library tables are read-only"},
    {"a_pattern_sets_contents_are_out_of_reach",
     "local d = hq.cull.defaults\n"
     "if rawget(d, '_texts') == nil and d._texts == nil and next(d) == nil and #d:texts() > 0 then\n"
     "  d:texts()[1] = 'changed'; if d:texts()[1] ~= 'changed' then error('held: a set is out of reach') end\n"
     "end",
     "", "held: a set is out of reach"},
    // A recipe's mistake is exit 3, never the exit 2 of a bad trace.
    {"custom_level_without_its_function", "", "trace:query_normalized{by = {'custom'}}",
     "`by` has a custom level without its function"},
    {"two_custom_levels", "", "trace:query_normalized{by = {'custom', 'custom'}, by_function = tostring}",
     "`by` may have one custom level"},
    {"real_globals_through_G", "_G.string.format = nil", "", "cannot set 'format': library tables are read-only"},
    {"real_globals_through_load", "load('string.format = nil')()", "",
     "cannot set 'format': library tables are read-only"},
};

INSTANTIATE_TEST_SUITE_P(Recipes, RecipeSandboxAttacks, ::testing::ValuesIn(kAttacks),
                         [](const ::testing::TestParamInfo<Attack>& info) { return std::string(info.param.name); });

// --- files: every path a recipe can read is checked after links resolve ---------

class RecipeSandboxFiles : public RecipeSandboxTest {
 protected:
  void SetUp() override {
    write_file(outside_.file("secret.lua"), "return 'SECRET-MODULE'\n");
    write_file(outside_.file("secret.txt"), "SECRET-TEXT!*\n");
#ifdef _WIN32
    if (!links_.make(outside_.file("secret.txt"), dir_.file("probe-link"))) {
      GTEST_SKIP() << "no symbolic link can be made here (Windows without the right to make links)";
    }
    links_.remove(dir_.file("probe-link"));
#endif
  }
  void link(const std::string& target, const std::string& name) { ASSERT_TRUE(links_.make(target, dir_.file(name))); }
  TempDir outside_;
  Links links_;
};

TEST_F(RecipeSandboxFiles, RequireRefusesAModuleLinkedFromOutside) {
  link(outside_.file("secret.lua"), "evil.lua");
  expect_held(run_recipe(attack_recipe("local v = require 'evil'", "out:write(v)"), ""),
              "outside the folders a recipe may read");
}

TEST_F(RecipeSandboxFiles, RequireRefusesAModuleInAFolderLinkedFromOutside) {
  link(outside_.path().string(), "lib");
  expect_held(run_recipe(attack_recipe("local v = require 'lib.secret'", "out:write(v)"), ""),
              "outside the folders a recipe may read");
}

TEST_F(RecipeSandboxFiles, CullFileRefusesALinkToOutside) {
  link(outside_.file("secret.txt"), "cull.txt");
  expect_held(run_recipe(attack_recipe("local s = hq.cull.file 'cull.txt'", "out:write(tostring(s))"), ""),
              "a recipe may read files beside it");
}

TEST_F(RecipeSandboxFiles, IncludeRefusesAFileInALinkedFolder) {
  link(outside_.path().string(), "lib");
  expect_held(run_recipe(attack_recipe("local v = hq.include 'lib/secret.lua'", "out:write(v)"), ""),
              "a recipe may read files beside it");
}

TEST_F(RecipeSandboxFiles, OpenRefusesALinkedTrace) {
  fs::copy_file(worked_example(), outside_.file("other.txt"));
  link(outside_.file("other.txt"), "other.txt");
  expect_held(run_recipe(attack_recipe("", "hq.open(" + lua_quote(dir_.file("other.txt")) + ")"), ""),
              "a recipe may open only the trace named");
}

TEST_F(RecipeSandboxFiles, OpenRefusesARawTwinLinkedFromOutside) {
  fs::copy_file(example_trace(), dir_.file("t.zst"));
  fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.raw.zst",
                outside_.file("t.raw.zst"));
  link(outside_.file("t.raw.zst"), "t.raw.zst");
  expect_held(run_recipe(attack_recipe("", "hq.open(" + lua_quote(dir_.file("t.zst")) + ")"), ""), "t.raw.zst' beside it");
}

TEST_F(RecipeSandboxFiles, SymbolsRefuseAFolderLinkedFromOutside) {
  link(outside_.path().string(), "pdbs");
  expect_held(run_recipe(attack_recipe("", "hq.open(trace:path(), {symbols = 'pdbs'})"), ""),
              "hq.open: symbols 'pdbs'");
}

TEST_F(RecipeSandboxFiles, FilesBesideTheRecipeStillWork) {
  write_file(dir_.file("mine.lua"), "return 'MINE'\n");
  write_file(dir_.file("cull.txt"), "app!nothing\n");
  fs::create_directory(dir_.file("sub"));
  write_file(dir_.file("sub/deeper.lua"), "return 'DEEPER'\n");
  const Outcome o = run_recipe(
      "local hq = require 'heapql'\nlocal mine, deeper = require 'mine', require 'sub.deeper'\n"
      "local cull = hq.cull.file 'cull.txt'\n"
      "return hq.recipe { name = 'ok', doc = 'd', run = function(trace, p, out) out:write(mine, deeper, #cull) end }\n",
      "");
  EXPECT_EQ(o.result.exit_code, kOk) << o.result.err;
  EXPECT_EQ(o.result.out, "MINEDEEPER1");
}

// --- files: a refusal reads the same whether or not the target exists --------------

std::string without_time(const std::string& err) { return std::regex_replace(err, std::regex("peak-rss-kib \\d+\\n?"), ""); }

// One way a recipe names a file: the link `link` is made beside the recipe
// (the recipe's folder is `dir`), then the recipe runs `prelude` and `body`
// with "DIR" replaced by the folder.
struct FileReader {
  const char* name;
  const char* link;
  bool to_a_folder;  // the link's target, when there is one, is a folder
  const char* prelude;
  const char* body;
  const char* message;
};

void PrintTo(const FileReader& r, std::ostream* os) { *os << r.name; }

class RecipeSandboxRefusals : public RecipeSandboxFiles, public ::testing::WithParamInterface<FileReader> {
 protected:
  // DIR with '/' (generic): it stands in Lua strings, where '\\' would escape.
  std::string with_dir(std::string text) {
    for (std::size_t at = text.find("DIR"); at != std::string::npos; at = text.find("DIR", at)) {
      text.replace(at, 3, dir_.path().generic_string());
    }
    return text;
  }
};

TEST_P(RecipeSandboxRefusals, ALinkOutIsRefusedAlikeWhetherItsTargetExistsOrNot) {
  const FileReader& r = GetParam();
  fs::create_directory(outside_.file("folder"));
  write_file(outside_.file("folder/secret.lua"), "return 'SECRET-MODULE'\n");
  fs::copy_file(worked_example(), outside_.file("folder/t.txt"));
  const std::string recipe = attack_recipe(with_dir(r.prelude), with_dir(r.body));
  std::string errors[2];
  for (int missing = 0; missing < link_target_variants(); ++missing) {
    links_.remove(dir_.file(r.link));
    // A file, a folder, or a name that is not there; absolute, or climbing with `..`.
    std::string target = outside_.file(missing ? "absent" : r.to_a_folder ? "folder" : "secret.txt");
    if (std::string(r.name).ends_with("relative")) target = fs::relative(target, dir_.path()).string();
    ASSERT_TRUE(links_.make(target, dir_.file(r.link)));
    const Outcome o = run_recipe(recipe, "--timeout 10s");
    expect_held(o, with_dir(r.message));
    EXPECT_EQ(o.result.err.find("SECRET"), std::string::npos);
    errors[missing] = without_time(o.result.err);
  }
  if (link_target_variants() == 2) {
    EXPECT_EQ(errors[0], errors[1]) << "the refusal tells whether the target exists";
  }
}

const FileReader kFileReaders[] = {
    {"require", "evil.lua", false, "local v = require 'evil'", "out:write(v)", "leads outside the folders a recipe may read"},
    {"require_relative", "evil.lua", false, "local v = require 'evil'", "out:write(v)",
     "leads outside the folders a recipe may read"},
    {"require_through_a_folder", "dlib", true, "local v = require 'dlib.secret'", "out:write(v)",
     "leads outside the folders a recipe may read"},
    {"include", "inc.lua", false, "local v = hq.include 'inc.lua'", "out:write(v)", "a recipe may read files beside it"},
    {"include_through_a_folder", "dlib", true, "local v = hq.include 'dlib/secret.lua'", "out:write(v)",
     "a recipe may read files beside it"},
    {"include_through_a_folder_relative", "dlib", true, "local v = hq.include 'dlib/secret.lua'", "out:write(v)",
     "a recipe may read files beside it"},
    {"cull_file", "cull.txt", false, "local s = hq.cull.file 'cull.txt'", "out:write(tostring(s))",
     "a recipe may read files beside it"},
    {"cull_file_relative", "cull.txt", false, "local s = hq.cull.file 'cull.txt'", "out:write(tostring(s))",
     "a recipe may read files beside it"},
    {"suppressions_file", "supp.txt", false, "local s = hq.suppressions.file 'supp.txt'", "out:write(#s)",
     "a recipe may read files beside it"},
    {"open", "t.txt", false, "", "hq.open('DIR/t.txt')", "a recipe may open only the trace named"},
    {"open_relative", "t.txt", false, "", "hq.open('DIR/t.txt')", "a recipe may open only the trace named"},
    {"open_through_a_folder", "dtraces", true, "", "hq.open('DIR/dtraces/t.txt')", "a recipe may open only the trace named"},
    {"symbols", "dpdbs", true, "", "hq.open(trace:path(), {symbols = 'DIR/dpdbs'})", "hq.open: symbols 'DIR/dpdbs'"},
};

INSTANTIATE_TEST_SUITE_P(Recipes, RecipeSandboxRefusals, ::testing::ValuesIn(kFileReaders),
                         [](const ::testing::TestParamInfo<FileReader>& info) { return std::string(info.param.name); });

#ifdef _WIN32
// --- Windows' own ways around the path check (docs/windows.md, "Recipes and the sandbox") --------

// One trick: `call` reads `path` ("DIR" is the recipe's folder, "SHORT" the
// 8.3 name of cull.txt beside it); refused with the message of that reader,
// or, for a path that only looks different, read (`refused` false).
struct WindowsTrick {
  const char* name;
  const char* call;  // cull_file, include, require, open
  const char* path;
  bool refused = true;
};

void PrintTo(const WindowsTrick& t, std::ostream* os) { *os << t.name; }

class RecipeSandboxWindowsTricks : public RecipeSandboxTest, public ::testing::WithParamInterface<WindowsTrick> {
 protected:
  std::string with_places(std::string text) {
    const std::string folder = dir_.path().string();
    for (std::size_t at = text.find("DIR"); at != std::string::npos; at = text.find("DIR", at + folder.size())) {
      text.replace(at, 3, folder);
    }
    if (const std::size_t at = text.find("SHORT"); at != std::string::npos) {
      wchar_t short_name[MAX_PATH];
      const DWORD n = GetShortPathNameW(wide_from_utf8(dir_.file("a_cull_list_with_a_long_name.txt")).c_str(),
                                        short_name, MAX_PATH);
      const std::string full = n > 0 && n < MAX_PATH ? utf8_from_wide(short_name) : "";
      text.replace(at, 5, full.substr(full.find_last_of('\\') + 1));
    }
    return text;
  }
};

TEST_P(RecipeSandboxWindowsTricks, IsRefusedLikeALinkOut) {
  const WindowsTrick& t = GetParam();
  write_file(dir_.file("cull.txt"), "app!nothing\n");
  write_file(dir_.file("a_cull_list_with_a_long_name.txt"), "app!nothing\n");
  write_file(dir_.file("mine.lua"), "return 'MINE'\n");
  const std::string path = with_places(t.path);
  if (path.find("~") == std::string::npos && std::string(t.path).find("SHORT") != std::string::npos) {
    GTEST_SKIP() << "this volume makes no 8.3 names";
  }
  std::string code, message;
  const std::string call = t.call;
  if (call == "cull_file") {
    code = "out:write(#hq.cull.file([[" + path + "]]):texts())";
    message = "a recipe may read files beside it";
  } else if (call == "include") {
    code = "out:write(hq.include([[" + path + "]]))";
    message = "a recipe may read files beside it";
  } else if (call == "require") {
    code = "out:write(require([[" + path + "]]))";
    message = "leads outside the folders a recipe may read";
  } else {
    code = "hq.open([[" + path + "]]):summary(); out:write('1')";
    message = "a recipe may open only the trace named";
  }
  const Outcome o = run_recipe(attack_recipe("", code), "--timeout 20s");
  if (t.refused) {
    expect_held(o, message);
  } else {
    EXPECT_EQ(o.result.exit_code, kOk) << o.result.err;
    EXPECT_EQ(o.result.out, call == "include" || call == "require" ? "MINEESCAPED" : "1ESCAPED");
  }
}

const WindowsTrick kWindowsTricks[] = {
    {"device_nul", "cull_file", "NUL"},
    {"device_nul_with_extension", "cull_file", "NUL.txt"},
    {"device_con_lua", "include", "con.lua"},
    {"device_aux_in_a_folder", "cull_file", "sub\\AUX"},
    {"device_com1", "cull_file", "COM1"},
    {"device_lpt1", "cull_file", "lpt1.txt"},
    {"device_by_require", "require", "con"},
    {"device_by_open", "open", "DIR\\NUL"},
    {"stream", "cull_file", "cull.txt:secret"},
    {"stream_data", "cull_file", "cull.txt::$DATA"},
    {"stream_by_include", "include", "mine.lua:x"},
    {"trailing_dot", "cull_file", "cull.txt."},
    {"long_path_prefix", "cull_file", "\\\\?\\DIR\\cull.txt"},
    {"device_namespace_prefix", "cull_file", "\\\\.\\DIR\\cull.txt"},
    {"nt_object_prefix", "cull_file", "\\??\\DIR\\cull.txt"},
    {"unc_admin_share", "cull_file", "\\\\localhost\\C$\\Windows\\win.ini"},
    {"unc_mixed_separators", "cull_file", "/\\localhost/C$/Windows/win.ini"},
    {"drive_relative", "cull_file", "C:cull.txt"},
    {"climbing_with_mixed_separators", "cull_file", "sub/..\\..\\cull.txt"},
    {"other_drive_root", "cull_file", "\\Windows\\win.ini"},
    // Looks different, is the same file beneath the folder: read.
    {"other_case", "cull_file", "CULL.TXT", false},
    {"mixed_separators_beneath", "cull_file", "DIR/sub/..\\cull.txt", false},
    {"short_name_beneath", "cull_file", "SHORT", false},
    {"other_case_include", "include", "MINE.LUA", false},
};

INSTANTIATE_TEST_SUITE_P(Recipes, RecipeSandboxWindowsTricks, ::testing::ValuesIn(kWindowsTricks),
                         [](const ::testing::TestParamInfo<WindowsTrick>& info) { return std::string(info.param.name); });
#endif  // _WIN32

// A recipe that only reports (no attack): its run writes what `body` writes.
std::string plain_recipe(const std::string& body) {
  return "local hq = require 'heapql'\nreturn hq.recipe { name = 'plain', doc = 'd', run = function(trace, p, out)\n" +
         body + "\nend }\n";
}

// --- files beside a trace: only as themselves ------------------------------------------

// A recipe bundle: bundle/sample.zst, the trace the user names, with a
// file beside it (`beside`) that is a link to `target`.
class RecipeSandboxBesideTheTrace : public RecipeSandboxFiles {
 protected:
  std::string bundle_trace() {
    const std::string trace = dir_.file("sample.zst");
    if (!fs::exists(trace)) fs::copy_file(example_trace(), trace);
    return trace;
  }
  Outcome run_with_link(const std::string& beside, const std::string& target, const std::string& body) {
    const std::string trace = bundle_trace();
    links_.remove(trace.substr(0, trace.size() - 4) + beside);
    if (!links_.make(target, trace.substr(0, trace.size() - 4) + beside)) ADD_FAILURE() << "no link made";
    return run_recipe(attack_recipe("", body), "--timeout 20s", trace);
  }
};

TEST_F(RecipeSandboxBesideTheTrace, ALinkedRawTwinBlockIdentityFileOrStoreIsNeverRead) {
  if (under_wine()) GTEST_SKIP() << "a Linux link under Wine has no reparse point: docs/windows.md, Recipes and the sandbox";
  fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.raw.zst", outside_.file("t.raw.zst"));
  for (const char* beside : {".raw.zst", ".raw.gz", ".raw", ".zst.hqid", ".zst.hqdb"}) {
    std::string errors[2];
    for (int missing = 0; missing < link_target_variants(); ++missing) {
      const std::string target = outside_.file(missing ? "absent" : "t.raw.zst");
      // The trace named on the command line, read by heapql: input it refuses (exit 2).
      const Outcome run = run_with_link(beside, target, "out:write(trace:summary().blocks)");
      EXPECT_EQ(run.result.exit_code, 2) << beside << "\n" << run.result.err;
      EXPECT_EQ(run.result.out, "");
      expect_contains(run.result.err, "is a link beside the trace");
      errors[missing] = without_time(run.result.err);
      // The same trace opened by the recipe: refused before anything is read (exit 3).
      expect_held(run_with_link(beside, target, "hq.open(trace:path()):summary()"), "beside it");
      links_.remove(dir_.file(std::string("sample") + beside));
    }
    if (link_target_variants() == 2) {
      EXPECT_EQ(errors[0], errors[1]) << beside;
    }
  }
  // Without the links the bundle runs.
  const Outcome plain = run_recipe(plain_recipe("out:write(hq.open(trace:path()):summary().blocks)"), "",
                                   bundle_trace());
  EXPECT_EQ(plain.result.exit_code, kOk) << plain.result.err;
}

TEST_F(RecipeSandboxFiles, APathParamAllowsOnlyItselfNeverItsTwins) {
  write_file(outside_.file("notes.raw"), "notes\n");
  for (const char* twin : {"notes.zst", "notes.gz", "notes"}) write_file(outside_.file(twin), "SECRET-TEXT!*\n");
  const std::string recipe =
      "local hq = require 'heapql'\n"
      "return hq.recipe { name = 'p', doc = 'd', params = { cfg = { type = 'path' } },\n"
      "  run = function(trace, p, out)\n"
      "    local base = p.cfg:gsub('%.raw$', '')\n"
      "    for _, name in ipairs { base .. '.zst', base .. '.gz', base } do\n"
      "      if pcall(hq.cull.file, name) then error('ESCAPED ' .. name) end\n"
      "    end\n"
      "    out:write(tostring(hq.cull.file(p.cfg)))\n"  // itself: allowed
      "    hq.open(p.cfg)\n"
      "  end }\n";
  const Outcome o = run_recipe(recipe, "--param cfg=" + shell_quote(outside_.file("notes.raw")));
  EXPECT_EQ(o.result.exit_code, kRecipeError) << o.result.err;
  EXPECT_EQ(o.result.out, "");
  EXPECT_EQ(o.result.err.find("ESCAPED"), std::string::npos) << o.result.err;
  expect_contains(o.result.err, "a raw heaptrack file is read with its interpreted twin, which a path param does not allow");
}

TEST_F(RecipeSandboxFiles, AStoreARecipeOpensAnswersAsItIsWithoutLookingAtItsRecordedSources) {
  // The store records a trace outside the recipe's folder; what is there
  // now (the trace, a changed one, nothing, a FIFO) changes nothing.
  const std::string source = outside_.file("t.txt");
  fs::copy_file(worked_example(), source);
  const std::string store = dir_.file("s.hqdb");
  ASSERT_EQ(run_command(heapql() + " ingest " + shell_quote(source) + " -o " + shell_quote(store)).exit_code, 0);
  const std::string recipe = plain_recipe("out:line('blocks %d', hq.open(" + lua_quote(store) + "):summary().blocks)");
  std::string outputs[4], errors[4];
  for (int state = 0; state < (kFifos ? 4 : 3); ++state) {
    if (state == 1) std::ofstream(source, std::ios::app) << "# changed\n";
    if (state >= 2) fs::remove(source);
#ifndef _WIN32
    if (state == 3) {
      ASSERT_EQ(::mkfifo(source.c_str(), 0600), 0);
    }
#endif
    const Outcome o = run_recipe(recipe, "--timeout 20s");
    EXPECT_EQ(o.result.exit_code, kOk) << state << ": " << o.result.err;
    EXPECT_LT(o.seconds, 10.0) << "a FIFO was opened";
    expect_contains(o.result.err, "answered as it is");
    outputs[state] = o.result.out;
    errors[state] = without_time(o.result.err);
    EXPECT_EQ(outputs[state], outputs[0]) << state;
    EXPECT_EQ(errors[state], errors[0]) << state;
  }
  expect_contains(outputs[0], "blocks ");
}

TEST_F(RecipeSandboxFiles, NoFreshnessCheckOpensAFifo) {
#ifdef _WIN32
  GTEST_SKIP() << "Windows has no FIFOs in the file system (its named pipes live in \\\\.\\pipe\\)";
#else
  // A store beside a trace records its raw twin; the twin is now a FIFO.
  const std::string trace = dir_.file("m.zst");
  fs::copy_file(example_trace(), trace);
  fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.raw.zst", dir_.file("m.raw.zst"));
  ASSERT_EQ(run_command(heapql() + " ingest " + shell_quote(trace)).exit_code, 0);
  fs::remove(dir_.file("m.raw.zst"));
  ASSERT_EQ(::mkfifo(dir_.file("m.raw.zst").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const CommandResult query = run_command("timeout 20 " + heapql() + " query " + shell_quote(trace) + " --totals");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
  EXPECT_EQ(query.exit_code, 0) << query.err;
  const Outcome run = run_recipe(plain_recipe("out:write(trace:summary().blocks)"), "--timeout 20s", trace);
  EXPECT_EQ(run.result.exit_code, kOk) << run.result.err;
  EXPECT_LT(run.seconds, 10.0);
#endif
}

// --- help, print ------------------------------------------------------------------------

TEST_F(RecipeSandboxTest, HelpRunsTheTopLevelUnderTimeout) {
  const Outcome o = run_recipe(attack_recipe("while true do end", ""), "--timeout 2s", "", "help");
  expect_timed_out(o);
  expect_contains(o.result.err, "heapql help: ");
}

TEST_F(RecipeSandboxTest, HelpRunsTheTopLevelUnderMemory) {
  expect_over_memory(run_recipe(attack_recipe("local t = {} for i = 1, 1e9 do t[i] = {i} end", ""),
                                "--timeout 60s --memory 256MiB", "", "help"));
}

TEST_F(RecipeSandboxTest, PrintToStderrIsBounded) {
  const Outcome o = run_recipe(attack_recipe("", "local s = string.rep('x', 1 << 20) for i = 1, 64 do print(s) end"),
                               "--timeout 60s");
  expect_held(o, "the recipe printed more than 16 MiB to stderr (print), heapql's limit");
  EXPECT_LT(o.result.err.size(), std::size_t{17} << 20);
  EXPECT_LT(o.seconds, 20.0);
}

// --- the declaration and what the library's functions return ---------------------

TEST_F(RecipeSandboxTest, ADeclarationWithAMetatableRunsAsDeclared) {
  const std::string recipe =
      "local hq = require 'heapql'\n"
      "return setmetatable(hq.recipe { name = 'meta', doc = 'with a metatable', run = function(t, p, out) "
      "out:write('RAN') end }, {__index = function() error('metamethod ran') end, "
      "__pairs = function() error('metamethod ran') end})\n";
  const Outcome run = run_recipe(recipe, "");
  EXPECT_EQ(run.result.exit_code, kOk) << run.result.err;
  EXPECT_EQ(run.result.out, "RAN");
  const Outcome help = run_recipe(recipe, "", "", "help");
  EXPECT_EQ(help.result.exit_code, kOk) << help.result.err;
  expect_contains(help.result.out, "meta — with a metatable");
}

TEST_F(RecipeSandboxTest, ADeclarationChangedAfterHqRecipeIsCheckedAgain) {
  const std::string recipe =
      "local hq = require 'heapql'\n"
      "local d = hq.recipe { name = 'changed', doc = 'd', run = function(t, p, out) out:write('RAN') end }\n"
      "d.doc = setmetatable({}, {__tostring = function() error('metamethod ran') end})\nreturn d\n";
  expect_held(run_recipe(recipe, ""), "hq.recipe: field 'doc' must be a string, got table");
  const Outcome help = run_recipe(recipe, "", "", "help");
  EXPECT_EQ(help.result.exit_code, kRecipeError);
  expect_contains(help.result.err, "field 'doc' must be a string");
}

TEST_F(RecipeSandboxTest, AParamDocThatIsNotAStringIsRefused) {
  const std::string recipe =
      "local hq = require 'heapql'\n"
      "return hq.recipe { name = 'p', doc = 'd', params = { x = { default = 1, doc = {} } }, "
      "run = function(t, p, out) end }\n";
  const Outcome help = run_recipe(recipe, "", "", "help");
  EXPECT_EQ(help.result.exit_code, kRecipeError);
  expect_contains(help.result.err, "param 'x': doc must be a string, got table");
}

TEST_F(RecipeSandboxTest, AValueThatIsNotARecipeIsNamed) {
  expect_held(run_recipe("return setmetatable({}, {__index = function() error('metamethod ran') end})", ""),
              "a recipe must return hq.recipe{...} (got a table)");
}

// --- stacks deeper than any stack: trees without recursion ----------------------------

// A heaptrack trace of one allocation whose stack is `depth` frames deep.
std::string deep_trace(int depth) {
  std::string text = "v 10400 3\nX ./deep\nI 1000 1\ns 4 deep\ns 5 frame\ni 1000 1 2\n";
  for (int k = 0; k < depth; ++k) text += fmt_hex_line("t 1 ", k);
  text += fmt_hex_line("a 10 ", depth) + "+ 0\nc 1\n";
  return text;
}

TEST_F(RecipeSandboxTest, TheTreeOfA200000FrameStackIsBuiltWholeWithoutRecursion) {
  write_file(dir_.file("deep.txt"), deep_trace(200'000));
  const Outcome o = run_recipe(
      "local hq = require 'heapql'\n"
      "return hq.recipe { name = 'deep', doc = 'd', run = function(trace, p, out)\n"
      "  local r = hq.open(" + lua_quote(dir_.file("deep.txt")) + "):query { by = 'stack', default_cull = false }\n"
      "  local depth, node = 0, r:tree { threshold = 0 }\n"
      "  while #node.children > 0 do node, depth = node.children[1], depth + 1 end\n"
      "  local _, lines = r:tree_text { threshold = 0, depth = 1000 }:gsub('\\n', '')\n"
      "  out:line('depth %d, json %d bytes, text %d lines', depth, #r:tree_json { threshold = 0 }, lines)\n"
      "end }\n",
      "--timeout 60s");
  EXPECT_EQ(o.result.exit_code, kOk) << o.result.err;
  // 200,000 frames under [total]; the text form stops at its depth limit.
  EXPECT_EQ(o.result.out.substr(0, 13), "depth 200000,") << o.result.out;
  expect_contains(o.result.out, "text 1004 lines");
}

TEST_F(RecipeSandboxTest, TheIndentedTextOfA200000FrameStackIsStoppedByTheMemoryCap) {
  // 2 spaces a level: the text alone would be 200,000^2 bytes (40 GB).
  write_file(dir_.file("deep.txt"), deep_trace(200'000));
  expect_over_memory(run_recipe(
      attack_recipe("", "out:write(hq.open(" + lua_quote(dir_.file("deep.txt")) + "):query{by = 'stack'}:tree_text{threshold = 0})"),
      "--timeout 60s --memory 256MiB"));
}

TEST_F(RecipeSandboxTest, AnOrdinaryRecipeHasTheFullTreeOfALargeRealTrace) {
  const std::string data = shared_data("heaptrack");
  if (data.empty()) GTEST_SKIP() << "../shared/data/heaptrack is absent";
  const Outcome o = run_recipe(
      "local hq = require 'heapql'\n"
      "return hq.recipe { name = 'tree', doc = 'd', run = function(trace, p, out)\n"
      "  local r = trace:query { by = 'stack', top = 1000000 }\n"
      "  local nodes, pending = 0, { r:tree { threshold = 0 } }\n"
      "  while #pending > 0 do\n"
      "    local n = table.remove(pending); nodes = nodes + 1\n"
      "    for _, c in ipairs(n.children) do pending[#pending + 1] = c end\n"
      "  end\n"
      "  out:line('rows %d nodes %d text %d', #r:rows(), nodes, #r:tree_text { threshold = 0 })\n"
      "end }\n",
      "", data + "/heaptrack.heaptrack_gui.99529.zst");
  EXPECT_EQ(o.result.exit_code, kOk) << o.result.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(o.result.out, m, std::regex("rows (\\d+) nodes (\\d+) text (\\d+)"))) << o.result.out;
  EXPECT_GT(std::stol(m[1]), 1000);
  EXPECT_GT(std::stol(m[2]), std::stol(m[1]));
}

TEST_F(RecipeSandboxTest, AStackOverflowInsideLuasCCodeEndsTheRunWithExit3) {
  // Lua 5.4.4 builds the message of an error on a chain of fields by
  // recursing once per field, without a limit; with a 1 MiB recipe stack a
  // chain of 40,000 runs out of it (the default 1 GiB holds 1e7 and more).
  const std::string recipe = attack_recipe("", "load('local a = {} a.b = a return a' .. ('.b'):rep(4e4) .. ' + 1')()");
  const Outcome small = run_recipe(recipe, "--timeout 60s", worked_example(), "run", "HEAPQL_RECIPE_STACK=1048576 ");
  expect_held(small, "the recipe ran out of stack: recursion too deep inside Lua's or LPeg's C code");
  const Outcome usual = run_recipe(recipe, "--timeout 60s");
  expect_held(usual, "attempt to perform arithmetic on a table value (field 'b')");
}

// --- --memory counts the engine's allocations, through finalizers and lua_close -------

TEST_F(RecipeSandboxTest, ResultCopiesCountAgainstTheMemoryCap) {
  expect_over_memory(run_recipe(
      attack_recipe("", "local r, keep = trace:query{by = 'stack'}, {}\n"
                        "for i = 1, 1e7 do keep[i] = r:with_columns({'a'}, {}) end"),
      "--timeout 60s --memory 256MiB", example_trace()));
}

TEST_F(RecipeSandboxTest, TheReportBufferCountsAgainstTheMemoryCap) {
  expect_over_memory(run_recipe(
      attack_recipe("", "local s = string.rep('x', 1 << 20); for i = 1, 1e6 do out:write(s) end"),
      "--timeout 60s --memory 256MiB"));
}

TEST_F(RecipeSandboxTest, OpenedTracesCountAgainstTheMemoryCap) {
  expect_over_memory(run_recipe(
      attack_recipe("", "local keep = {}; for i = 1, 1e6 do keep[i] = hq.open(trace:path()); keep[i]:summary() end"),
      "--timeout 60s --memory 256MiB"));
}

TEST_F(RecipeSandboxTest, OpenedTracesThatAreGarbageAreCollectedBeforeTheCap) {
  // Each store is a small userdata to Lua: heapql collects when the run
  // nears its cap, so a loop that drops them stays under it.
  const Outcome o = run_recipe(
      "local hq = require 'heapql'\nreturn hq.recipe { name = 'g', doc = 'd', run = function(trace, p, out)\n"
      "  for i = 1, 2000 do hq.open(trace:path()):summary() end out:write('done') end }\n",
      // The memory cap is what is tested: 2 s here, 37-60 s under ASan on a
      // loaded machine (2026-11-30), which a 60 s limit once cut short.
      "--timeout 180s --memory 64MiB");
  EXPECT_EQ(o.result.exit_code, kOk) << o.result.err;
  EXPECT_EQ(o.result.out, "done");
}

TEST_F(RecipeSandboxTest, AFinalizerRunAtCloseIsUnderTheMemoryCap) {
  expect_over_memory(run_recipe(
      attack_recipe("setmetatable({}, {__gc = function() local t = {}; for i = 1, 1e9 do t[i] = i end end})", ""),
      "--timeout 60s --memory 256MiB"));
}

TEST_F(RecipeSandboxTest, DeclarationReadsAreUnderTheMemoryCap) {
  expect_over_memory(run_recipe(
      "local hq = require 'heapql'\nlocal big = {}\n"
      "local params = setmetatable({}, {__pairs = function() for i = 1, 1e9 do big[i] = {i} end end})\n"
      "local d = hq.recipe { name = 'p', doc = 'd', run = function() end }\nd.params = params\nreturn d\n",
      "--timeout 60s --memory 256MiB"));
}

// --- --timeout is wall time, held wherever the recipe is ---------------------------

struct Stall {
  const char* name;
  const char* prelude;
  const char* body;
};

void PrintTo(const Stall& s, std::ostream* os) { *os << s.name; }

class RecipeSandboxDeadline : public RecipeSandboxTest, public ::testing::WithParamInterface<Stall> {};

TEST_P(RecipeSandboxDeadline, EndsWithExit3AtTheDeadline) {
  const Stall& s = GetParam();
  // A memory limit far above what 2 s of any stall allocates (the LPeg chain
  // reaches 256 MiB after 14 s on Linux, after 2 s under Wine): the deadline
  // is what ends each.
  expect_timed_out(run_recipe(attack_recipe(s.prelude, s.body), "--timeout 2s --memory 4GiB"));
}

const Stall kStalls[] = {
    {"lua_loop", "", "while true do end"},
    {"engine_calls_in_a_loop", "", "while true do trace:summary() end"},
    {"finalizer_after_the_run", "setmetatable({}, {__gc = function() while true do end end})", ""},
    {"string_matching_backtracking", "", "string.find(string.rep('a', 30), string.rep('a*', 30) .. 'b')"},
    {"lpeg_backtracking",
     "local lpeg = require 'lpeg'\nlocal g = { 'R1' }\n"
     "for i = 1, 40 do g['R' .. i] = lpeg.V('R' .. (i + 1)) * 'x' + lpeg.V('R' .. (i + 1)) * 'y' end\n"
     "g.R41 = lpeg.P'a'^0\nlocal grammar = lpeg.P(g)",
     "grammar:match(string.rep('a', 10) .. 'z')"},
    {"table_sort_with_a_slow_comparator", "",
     "local t = {}; for i = 1, 100 do t[i] = i end; table.sort(t, function() while true do end end)"},
    {"close_handler", "", "do local x <close> = setmetatable({}, {__close = function() while true do end end}) end"},
    {"error_handler", "", "xpcall(error, function() while true do end end)"},
    {"tostring_of_an_error_object", "", "error(setmetatable({}, {__tostring = function() while true do end end}))"},
    {"by_function", "", "trace:query{by = function() while true do end end}"},
    {"pcall_in_a_loop", "", "while true do pcall(function() while true do end end) end"},
    {"string_rep_of_nothing", "", "string.rep('', math.maxinteger)"},
    {"table_move_of_nothing", "", "table.move({}, 1, math.maxinteger, 1)"},
    {"lpeg_left_deep_pattern", "local lpeg = require 'lpeg'",
     "local p = lpeg.P'a'; for i = 1, 1e6 do p = p * 'a' end; p:match('a')"},
    {"error_message_over_a_long_field_chain", "",
     "load('local a = {} a.b = a return a' .. ('.b'):rep(1e5) .. ' + 1')()"},
};

INSTANTIATE_TEST_SUITE_P(Recipes, RecipeSandboxDeadline, ::testing::ValuesIn(kStalls),
                         [](const ::testing::TestParamInfo<Stall>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace heapql::test
