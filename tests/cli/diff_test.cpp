// semantics.md §10 through `heapql diff`: hand-made event CSV traces with
// known deltas, a trace against itself, two windows of one trace, and every
// output format.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "tests/support/flat_json.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

constexpr const char* kHeader = "time,event,process,thread,heap,address,size,old_address,stack\n";

// Baseline: Cache::fill leaks 100 B, Parser::run leaks 50 B, Log::line allocates and frees 10 B.
constexpr const char* kBaseline =
    "0,alloc,app (1),1,,0x10,100,,app!Cache::fill;app!main\n"
    "1ms,alloc,app (1),1,,0x20,50,,app!Parser::run;app!main\n"
    "2ms,alloc,app (1),1,,0x30,10,,app!Log::line;app!main\n"
    "3ms,free,app (1),1,,0x30,,,\n";
// New build: Cache::fill leaks 400 B in two blocks, Parser::run leaks nothing
// (its block is freed), Log::line is gone and Net::recv leaks 7 B.
constexpr const char* kNewBuild =
    "0,alloc,app (1),1,,0x10,100,,app!Cache::fill;app!main\n"
    "1ms,alloc,app (1),1,,0x40,300,,app!Cache::fill;app!main\n"
    "2ms,alloc,app (1),1,,0x20,50,,app!Parser::run;app!main\n"
    "3ms,free,app (1),1,,0x20,,,\n"
    "4ms,alloc,app (1),1,,0x50,7,,app!Net::recv;app!main\n";

struct Traces {
  TempDir dir;
  std::string baseline = dir.file("baseline.csv");
  std::string next = dir.file("next.csv");
  Traces() {
    write_file(baseline, std::string(kHeader) + kBaseline);
    write_file(next, std::string(kHeader) + kNewBuild);
  }
};

CommandResult diff(const std::string& args) {
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " diff " + args + " --no-progress");
  expect_no_crash(r);
  return r;
}

FlatJson diff_json(const std::string& args) {
  const CommandResult r = diff(args + " --format json");
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  return r.exit_code == 0 ? flatten_json(r.out) : FlatJson{};
}

std::string get(const FlatJson& j, const std::string& key) { return json_get(j, key); }

// The diff's rows in order, one line each: "TOP-FRAME STATUS a.so b.so | delta
// so soc st stc" (flatten_json keys rows by their key, not their place).
std::string rows_in_order(const std::string& args) {
  const CommandResult r = diff(args + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  TempDir dir;
  write_file(dir.file("d.json"), r.out);
  const CommandResult listed = run_command("python3 -c " +
                                           shell_quote("import json,sys\n"
                                                       "d = json.load(open(sys.argv[1]))\n"
                                                       "for r in d['rows']:\n"
                                                       "  k = r['key'][0]\n"
                                                       "  top = k[0] if isinstance(k, list) else k\n"
                                                       "  print(top, r['status'], r['a']['so'], r['b']['so'], '|', "
                                                       "*(r['delta'][m] for m in ('so','soc','st','stc')))\n") +
                                           " " + shell_quote(dir.file("d.json")));
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  return listed.out;
}

TEST(Semantics10Diff, KnownDeltasSortedByTheirSizeWithNewAndGoneMarked) {
  HEAPQL_SKIP_ON_WINDOWS("python3 reads the rows' order");
  Traces t;
  const std::string both = shell_quote(t.baseline) + " " + shell_quote(t.next);
  // |delta so|: Cache::fill +300, Parser::run -50, Net::recv +7 (new), Log::line 0 (gone).
  EXPECT_EQ(rows_in_order(both),
            "app!Cache::fill both 100 400 | 300 1 300 1\n"
            "app!Parser::run both 50 0 | -50 -1 0 0\n"
            "app!Net::recv new 0 7 | 7 1 7 1\n"
            "app!Log::line gone 0 0 | 0 0 -10 -1\n");
  // Sorted by st instead: Cache::fill +300, Log::line -10, Net::recv +7, Parser::run 0.
  EXPECT_EQ(rows_in_order(both + " --sort st"),
            "app!Cache::fill both 100 400 | 300 1 300 1\n"
            "app!Log::line gone 0 0 | 0 0 -10 -1\n"
            "app!Net::recv new 0 7 | 7 1 7 1\n"
            "app!Parser::run both 50 0 | -50 -1 0 0\n");
  const FlatJson d = diff_json(both);
  EXPECT_EQ(get(d, "kind"), "diff");
  EXPECT_EQ(get(d, "totals.delta.so"), "257");
  EXPECT_EQ(get(d, "totals.delta.st"), "297");
  EXPECT_EQ(get(d, "totals.delta.src"), "0") << "the event CSV marks reallocs: none here";
}

TEST(Semantics10Diff, RowDeltasAddUpToTheTotalsDeltaWithOtherIncluded) {
  HEAPQL_SKIP_ON_WINDOWS("python3 reads the rows' order");
  Traces t;
  for (const char* sort : {"so", "soc", "st", "stc"}) {
    SCOPED_TRACE(sort);
    const FlatJson d = diff_json(shell_quote(t.baseline) + " " + shell_quote(t.next) + " --top 2 --sort " + sort);
    EXPECT_EQ(get(d, "rows.length"), "2");
    EXPECT_EQ(get(d, "other.rows"), "2");
    long long sum = 0;
    std::istringstream rows(
        rows_in_order(shell_quote(t.baseline) + " " + shell_quote(t.next) + " --top 2 --sort " + sort));
    for (std::string line; std::getline(rows, line);) {
      const std::string deltas = line.substr(line.find('|') + 2);
      std::istringstream values(deltas);
      long long so = 0;
      values >> so;
      sum += so;
    }
    EXPECT_EQ(sum + std::stoll(get(d, "other.delta.so")), std::stoll(get(d, "totals.delta.so")));
  }
}

TEST(Semantics10Diff, ATraceAgainstItselfHasEveryDeltaZero) {
  HEAPQL_SKIP_ON_WINDOWS("python3 reads the rows' order");
  Traces t;
  const std::string example = HEAPQL_SOURCE_DIR "/tests/data/worked_example.txt";
  for (const std::string& trace : {t.next, example}) {
    for (const char* by : {"stack", "frame", "image,stack"}) {
      SCOPED_TRACE(trace + " --by " + by);
      const FlatJson d = diff_json(shell_quote(trace) + " " + shell_quote(trace) + " --by " + by);
      EXPECT_GT(std::stoi(get(d, "rows.length")), 0);
      std::istringstream rows(rows_in_order(shell_quote(trace) + " " + shell_quote(trace) + " --by " + by));
      int seen = 0;
      for (std::string line; std::getline(rows, line); ++seen) {
        EXPECT_NE(line.find(" both "), std::string::npos) << line;
        EXPECT_TRUE(line.ends_with("| 0 0 0 0")) << line;
      }
      EXPECT_EQ(std::to_string(seen), get(d, "rows.length"));
      for (const char* m : {"so", "soc", "st", "stc"}) EXPECT_EQ(get(d, std::string("totals.delta.") + m), "0");
    }
  }
}

TEST(Semantics10Diff, TwoWindowsOfOneTraceEqualTwoQueries) {
  const std::string example = HEAPQL_SOURCE_DIR "/tests/data/worked_example.txt";
  const FlatJson d = diff_json(shell_quote(example) + " --window-a 0s..300ms --window-b 300ms..");
  const auto totals_of = [&](const char* window) {
    const CommandResult r = run_command(shell_quote(heapql_binary()) + " query " + shell_quote(example) +
                                        " --totals --format json --no-progress --window " + window);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return flatten_json(r.out);
  };
  const FlatJson a = totals_of("0s..300ms"), b = totals_of("300ms..");
  for (const char* m : {"so", "soc", "st", "stc"}) {
    EXPECT_EQ(get(d, std::string("totals.a.") + m), get(a, std::string("totals.") + m)) << m;
    EXPECT_EQ(get(d, std::string("totals.b.") + m), get(b, std::string("totals.") + m)) << m;
  }
  EXPECT_EQ(get(d, "a.window.end_ns"), "300000000");
  EXPECT_EQ(get(d, "b.window.start_ns"), "300000000");
  EXPECT_EQ(get(d, "notes.0"),
            "unsymbolized frames (module!0xOFFSET) match across traces only where the module is the same build");
}

TEST(Semantics10Diff, TableCsvAndFoldedSayTheSame) {
  Traces t;
  const std::string both = shell_quote(t.baseline) + " " + shell_quote(t.next);
  CommandResult r = diff(both);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("+300 B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[new] app!Net::recv"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[gone] app!Log::line"), std::string::npos) << r.out;
  r = diff(both + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("app!Cache::fill;app!main,both,100,1,100,1,0,400,2,400,2,0,300,1,300,1,0\r\n"),
            std::string::npos)
      << r.out;
  r = diff(both + " --format folded --sort st");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("app!main;app!Cache::fill 100 400\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("app!main;app!Log::line 10 0\n"), std::string::npos) << r.out;
}

TEST(Semantics10Diff, HqDiffInARecipePrintsWhatTheCommandPrints) {
  Traces t;
  write_file(t.dir.file("d.lua"), R"(local hq = require "heapql"
return hq.recipe {
  name = "d", doc = "a diff from Lua", params = { baseline = { type = "path" } },
  run = function(trace, p, out)
    local q = { by = "stack", top = 2 }  -- cut: hq.diff asks both sides again, whole
    local d = hq.diff(hq.open(p.baseline):query(q), trace:query(q))
    out:write(d:json())
    local rows = d:rows()
    assert(#rows == 2 and d:other().rows == 2, "top 2 of 4 rows")
    assert(rows[1].stack[1] == "app!Cache::fill" and rows[1].delta.so == 300 and rows[1].status == "both")
    assert(d:totals().delta.so == 257)
  end,
}
)");
  const CommandResult recipe = run_command(shell_quote(heapql_binary()) + " run " + shell_quote(t.dir.file("d.lua")) +
                                           " " + shell_quote(t.next) + " --param baseline=" + shell_quote(t.baseline));
  expect_no_crash(recipe);
  ASSERT_EQ(recipe.exit_code, 0) << recipe.err;
  const CommandResult command = diff(shell_quote(t.baseline) + " " + shell_quote(t.next) + " --top 2 --format json");
  ASSERT_EQ(command.exit_code, 0) << command.err;
  EXPECT_EQ(recipe.out, command.out);
}

// each() gives the rows rows() gives, in order, field for field, one table
// at a time; a result's each() likewise.
TEST(Semantics10Diff, EachGivesTheRowsOfRowsOneAtATime) {
  Traces t;
  write_file(t.dir.file("each.lua"), R"lua(local hq = require "heapql"
local function same(x, y, path)
  assert(type(x) == type(y), path .. ": " .. type(x) .. " against " .. type(y))
  if type(x) ~= "table" then
    assert(x == y, path .. ": " .. tostring(x) .. " against " .. tostring(y))
    return
  end
  for k, v in pairs(x) do same(v, y[k], path .. "." .. tostring(k)) end
  for k in pairs(y) do assert(x[k] ~= nil, path .. "." .. tostring(k) .. " only in each()") end
end
local function same_rows(listed, iterated, what)
  local n = 0
  for i, row in iterated do
    n = n + 1
    assert(i == n, what .. ": row number " .. i .. " at step " .. n)
    same(listed[i], row, what .. "[" .. i .. "]")
  end
  assert(n == #listed, what .. ": " .. n .. " rows from each(), " .. #listed .. " from rows()")
end
return hq.recipe {
  name = "each", doc = "each() against rows()", params = { baseline = { type = "path" } },
  run = function(trace, p, out)
    local q = { by = "stack", top = math.maxinteger }
    local now = trace:query(q)
    local d = hq.diff(hq.open(p.baseline):query(q), now)
    same_rows(d:rows(), d:each(), "diff")
    same_rows(now:rows(), now:each(), "result")
    local next_row = d:each()
    for _ = 1, #d:rows() do assert(next_row()) end
    assert(next_row() == nil and next_row() == nil, "the iterator stays at its end")
    assert(#d:rows() == 4 and #now:rows() == 3, "the traces' stacks")
    out:line("ok")
  end,
}
)lua");
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " run " + shell_quote(t.dir.file("each.lua")) +
                                      " " + shell_quote(t.next) + " --param baseline=" + shell_quote(t.baseline));
  expect_no_crash(r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok\n");
}

TEST(Semantics10Diff, TheRegressionRecipeGatesOnGrowthPerStack) {
  Traces t;
  const std::string run = shell_quote(heapql_binary()) + " run regression " + shell_quote(t.next);
  CommandResult r = run_command(run + " --param baseline=" + shell_quote(t.baseline));
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, 1) << "Cache::fill grew by 300 B and Net::recv by 7 B\n" << r.err;
  EXPECT_NE(r.err.find("2 stacks grew by more than 0 B"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("[new] app!Net::recv"), std::string::npos) << r.out;
  r = run_command(run + " --param baseline=" + shell_quote(t.baseline) + " --param budget=10");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("1 stack grew by more than 10 B"), std::string::npos) << r.err;
  r = run_command(run + " --param baseline=" + shell_quote(t.baseline) + " --param budget=300");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_command(run);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--param baseline=TRACE is required"), std::string::npos) << r.err;
}

TEST(Semantics10Diff, BadUsesAreRefused) {
  Traces t;
  EXPECT_EQ(diff(shell_quote(t.baseline)).exit_code, 3) << "one trace and no windows";
  EXPECT_EQ(diff(shell_quote(t.baseline) + " " + shell_quote(t.next) + " --format pprof").exit_code, 3);
  const CommandResult html = diff(shell_quote(t.baseline) + " " + shell_quote(t.next) + " --format html");
  EXPECT_EQ(html.exit_code, 0) << html.err;
  EXPECT_TRUE(html.out.starts_with("<!DOCTYPE html>")) << "tests/html drives the page itself";
  const CommandResult r = diff(shell_quote(t.baseline) + " " + shell_quote(t.dir.file("missing.csv")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.csv"), std::string::npos) << r.err;
}

// A cull list is read once for each side, not again by each step that looks
// at the query. A FIFO holds what one open reads: the writer below opens it
// once for each expected read, and a read too many would wait for a writer
// that never comes, until `timeout` ends heapql.
TEST(Diff, EachSidesCullListIsReadOnce) {
#ifdef _WIN32
  HEAPQL_SKIP_ON_WINDOWS("no FIFOs");
#else
  Traces t;
  for (const auto& [command, reads] : {std::pair<std::string, int>{"query " + shell_quote(t.baseline), 1},
                                       {"diff " + shell_quote(t.baseline) + " " + shell_quote(t.next), 2}}) {
    SCOPED_TRACE(command);
    const std::string fifo = t.dir.file("cull.fifo");
    std::remove(fifo.c_str());
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string writer = "(";
    // A pause between the writes: a write while the last reader still had
    // the FIFO open would reach that reader instead of the next.
    for (int i = 0; i < reads; ++i)
      writer += (i > 0 ? "sleep 1; " : "") + std::string("printf 'app!main\\n' > ") + shell_quote(fifo) + "; ";
    writer += ") &";
    const CommandResult r =
        run_command(writer + " timeout 20 " + shell_quote(heapql_binary()) + " " + command + " --cull-list " +
                    shell_quote(fifo) + " --format csv; status=$?; wait; exit $status");
    expect_no_crash(r);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
#endif
}

}  // namespace
}  // namespace heapql::test
