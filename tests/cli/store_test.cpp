// The store on disk (docs/store.md): `heapql ingest` writes it, every command
// answers from it byte for byte as from the trace, a fresh store beside a
// trace is used and a stale one is not, and every damaged, foreign or stale
// store is refused with exit 2 and a message naming the file.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "tests/support/etw_scenarios.h"
#include "tests/support/store_checksums.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

const std::string kExample = example_trace();
const std::string kWorked = worked_example();
// A test hook of the store writer: block columns, whatever the pairing.
constexpr const char* kBlockColumns = "HEAPQL_STORE_BLOCK_COLUMNS=1";

// ---- answers from a store are the trace's, byte for byte ----

// Every golden command (tests/golden) runs again on a store of its trace, in
// place of the trace: its output must be the golden's.
struct GoldenCommand {
  std::string name;
  std::string args;      // as in the golden, with {data}, {example}, {shared}
  std::string expected;  // the golden's output
};

std::vector<GoldenCommand> golden_commands() {
  std::vector<GoldenCommand> commands;
  for (const auto& entry : fs::directory_iterator(HEAPQL_GOLDEN_DIR)) {
    if (entry.path().extension() != ".golden") continue;
    const std::string text = read_file(entry.path().string());
    const std::size_t newline = text.find('\n');
    const std::string header = "# command: heapql ";
    if (newline == std::string::npos || text.rfind(header, 0) != 0) continue;
    commands.push_back({entry.path().stem().string(), text.substr(header.size(), newline - header.size()),
                        text.substr(newline + 1)});
  }
  std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return commands;
}

class StoreAnswers : public ::testing::TestWithParam<GoldenCommand> {};

TEST_P(StoreAnswers, AsTheGoldenFromTheTrace) {
  const GoldenCommand& c = GetParam();
  std::string shared_dir = shared_data("");
  while (shared_dir.size() > 1 && shared_dir.back() == '/') shared_dir.pop_back();
  if (c.args.find("{shared}") != std::string::npos && shared_dir.empty()) {
    GTEST_SKIP() << "../shared/data is absent: " << c.name << " needs it";
  }
  const std::string data_dir = HEAPQL_TEST_DATA_DIR;
  const std::string example_dir = std::string(HEAPQL_SOURCE_DIR) + "/examples/traces";
  // The trace is the command's first file argument.
  std::istringstream words(c.args);
  std::string word, trace;
  while (words >> word && trace.empty()) {
    if (word.rfind("{data}/", 0) == 0 || word.rfind("{example}/", 0) == 0 || word.rfind("{shared}/", 0) == 0) {
      trace = word;
    }
  }
  ASSERT_FALSE(trace.empty()) << c.args;
  auto expand = [&](std::string text) {
    text = replace_all(text, "{data}", data_dir);
    text = replace_all(text, "{example}", example_dir);
    return shared_dir.empty() ? text : replace_all(text, "{shared}", shared_dir);
  };
  TempDir dir;
  const std::string store = dir.file("trace.hqdb");
  const CommandResult ingest = run_heapql("ingest " + shell_quote(expand(trace)) + " -o " + shell_quote(store));
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  expect_contains(ingest.err, "heapql: wrote " + store);

  std::string args = c.args;
  args.replace(args.find(trace), trace.size(), shell_quote(store));
  std::string expanded = replace_all(args, "{data}", shell_quote(data_dir));
  expanded = replace_all(expanded, "{example}", shell_quote(example_dir));
  if (!shared_dir.empty()) expanded = replace_all(expanded, "{shared}", shell_quote(shared_dir));
  const CommandResult r =
      run_command("cd " + shell_quote(HEAPQL_SOURCE_DIR) + " && " + heapql() + " " + expanded + " --no-progress");
  expect_no_crash(r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string actual = replace_all(r.out, data_dir, "{data}");
  actual = replace_all(actual, example_dir, "{example}");
  if (!shared_dir.empty()) actual = replace_all(actual, shared_dir, "{shared}");
  if (c.args.rfind("info ", 0) == 0) {
    // info adds what the store file holds after the trace's own summary.
    const std::size_t store_part = actual.find(c.args.find("--format json") != std::string::npos
                                                   ? ",\"store_file\":{"
                                                   : "store file         ");
    ASSERT_NE(store_part, std::string::npos) << actual;
    EXPECT_EQ(actual.substr(0, store_part), c.expected.substr(0, store_part)) << c.name << " from a store";
    return;
  }
  EXPECT_EQ(actual, c.expected) << c.name << ": `heapql " << args << "` from a store";
}

INSTANTIATE_TEST_SUITE_P(Golden, StoreAnswers, ::testing::ValuesIn(golden_commands()),
                         [](const auto& info) { return as_test_name(info.param.name); });

// Every source kind, through the store beside it: heaptrack text, text with a
// raw twin, ETL, event CSV; each query shape the aggregator has a layout for.
class StoreBeside : public ::testing::Test {
 protected:
  void expect_same_answers(const std::string& trace, const std::vector<std::string>& option_sets) {
    std::vector<std::string> from_trace;
    for (const std::string& options : option_sets) {
      const CommandResult r = run_heapql("query " + shell_quote(trace) + " " + options);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      from_trace.push_back(r.out);
    }
    const CommandResult ingest = run_heapql("ingest " + shell_quote(trace));
    ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
    ASSERT_TRUE(fs::exists(trace + ".hqdb"));
    for (std::size_t i = 0; i < option_sets.size(); ++i) {
      const CommandResult r = run_heapql("query " + shell_quote(trace) + " " + option_sets[i]);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, from_trace[i]) << trace << " " << option_sets[i] << " from its store";
      EXPECT_EQ(r.err, "") << "a fresh store is used without a word";
    }
    // Again from a store with a live checkpoint every few events (a test
    // hook: real stores list them every million events or more).
    const std::string checkpointed = trace + ".checkpointed.hqdb";
    const CommandResult again = run_heapql("ingest " + shell_quote(trace) + " -o " + shell_quote(checkpointed),
                                           "HEAPQL_STORE_CHECKPOINT_EVENTS=3");
    ASSERT_EQ(again.exit_code, 0) << again.err;
    const CommandResult info = run_heapql("info " + shell_quote(checkpointed) + " --format json");
    // Live checkpoints in a store of block columns, live counts in one of events.
    std::size_t section = info.out.find("{\"name\":\"live checkpoints\"");
    if (section == std::string::npos) section = info.out.find("{\"name\":\"live counts\"");
    ASSERT_NE(section, std::string::npos) << info.out;
    const std::size_t items = info.out.find("\"items\":", section);
    ASSERT_NE(items, std::string::npos);
    EXPECT_GT(std::stoull(info.out.substr(items + 8)), 0u) << "the hook made no checkpoint";
    for (std::size_t i = 0; i < option_sets.size(); ++i) {
      const CommandResult r = run_heapql("query " + shell_quote(checkpointed) + " " + option_sets[i]);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, from_trace[i]) << trace << " " << option_sets[i] << " from a store with live checkpoints";
    }
  }
  const std::vector<std::string> kShapes = {
      "--by stack --format json",
      "--window 100ms..400ms --impacting AIFO,AOFI --by impacting,stack --format csv",
      "--at-peak --by frame --format csv",
      "--lifetime 1ms.. --by image --format csv",
      // Lifetimes in a window: each block's own times, the events before it skipped.
      "--window 300ms.. --lifetime 1ms.. --by stack --format csv",
      "--window 100ms..400ms --lifetime ..50ms --impacting AIFO,AOFI,AIFI,AOFO --by impacting,stack --format csv",
      "--window 1ms.. --series 7 --totals --format json",
      "--temporary --by frame --format csv",
      // The stack view's query (whole trace, --by stack, the built-in cull
      // list): every sort key, tops that cut through ties, and totals.
      "--by stack --sort st --top 2 --format csv",
      "--by stack --sort stc --top 1 --format json",
      "--by stack --sort soc --top 3",
      "--by stack --sort src --top 2 --format csv",
      "--totals --format json",
      // The view's query with impacting types, answered from its rows split
      // where every src is 0 (a heaptrack trace), else from the bucket sums.
      "--impacting AIFI --by stack --sort st --top 2 --format csv",
      "--impacting AIFO --by stack --format json",
      "--impacting AIFO,AIFI --by stack --sort impacting --top 3 --format csv",
      "--impacting AIFI --by stack --sort soc --top 1",
      "--impacting AIFO --totals --format json",
      // Edge windows: empty (a moment), one past the end, after the trace.
      "--window 1s..1s --series 3 --by stack --format json",
      "--window 1s..1s --at-peak --by stack --format csv",
      "--window 3000ms..3001ms --series 2 --format json",
      "--window 1h.. --series 4 --at-peak --format json"};
  TempDir dir_;
};

TEST_F(StoreBeside, HeaptrackTextAnswersTheSame) {
  const std::string trace = dir_.file("worked_example.txt");
  fs::copy_file(kWorked, trace);
  expect_same_answers(trace, kShapes);
}

TEST_F(StoreBeside, HeaptrackWithRawTwinAnswersTheSame) {
  const std::string trace = dir_.file("memory_test_app.zst");
  fs::copy_file(kExample, trace);
  fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.raw.zst",
                dir_.file("memory_test_app.raw.zst"));
  expect_same_answers(trace, kShapes);
  const CommandResult info = run_heapql("info " + shell_quote(trace));
  expect_contains(info.out, "read with                its raw twin where there is one\n");
  expect_contains(info.out, "memory_test_app.raw.zst");
}

TEST_F(StoreBeside, EventCsvAnswersTheSame) {
  const std::string trace = dir_.file("example.csv");
  fs::copy_file(std::string(HEAPQL_TEST_DATA_DIR) + "/csv/example.csv", trace);
  expect_same_answers(trace, kShapes);
}

TEST_F(StoreBeside, EtlAnswersTheSame) {
  const std::string trace = dir_.file("synthetic.etl");
  write_memory_test_app(trace);
  expect_same_answers(trace, {"--by process,stack --format json", "--by heap --format csv", "--by stack --sort stc --top 2",
                              "--window 1ms.. --impacting AIFO --by impacting,kind --format csv"});
  const CommandResult info = run_heapql("info " + shell_quote(trace) + " --format json");
  expect_contains(info.out, "\"etw\":{");
  expect_contains(info.out, "\"store_file\":{");
}

TEST_F(StoreBeside, RecipesAndHqOpenAnswerTheSame) {
  const std::string trace = dir_.file("memory_test_app.zst");
  fs::copy_file(kExample, trace);
  const CommandResult before = run_heapql("run leaks " + shell_quote(trace) + " --format json");
  ASSERT_EQ(before.exit_code, 0) << before.err;
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace) + " -o " + shell_quote(dir_.file("app.hqdb"))).exit_code, 0);
  const CommandResult from_store = run_heapql("run leaks " + shell_quote(dir_.file("app.hqdb")) + " --format json");
  ASSERT_EQ(from_store.exit_code, 0) << from_store.err;
  EXPECT_EQ(from_store.out, before.out);
  const CommandResult xperf = run_heapql("xperf -stacks so -top 3 --run " + shell_quote(dir_.file("app.hqdb")));
  EXPECT_EQ(xperf.exit_code, 0) << xperf.err;
}

// ---- freshness ----

TEST_F(StoreBeside, AStaleStoreIsPassedOverWithAWarning) {
  const std::string trace = dir_.file("worked_example.txt");
  fs::copy_file(kWorked, trace);
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace)).exit_code, 0);
  std::ofstream(trace, std::ios::app) << "# edited\n";  // the trace changes after ingest
  const CommandResult r = run_heapql("query " + shell_quote(trace) + " --totals");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_contains(r.err, "heapql: warning: " + trace + ".hqdb: not used, " + trace + " has changed since it was ingested");
  const CommandResult no_store = run_heapql("query " + shell_quote(trace) + " --totals --no-store");
  EXPECT_EQ(no_store.out, r.out);
  EXPECT_EQ(no_store.err, "") << "--no-store does not look for a store";
}

// A folder moved or copied whole (mv, cp -a, rsync -a) keeps its store and
// block-identity file: the trace and its raw twin are looked for where they
// are now.
TEST_F(StoreBeside, AFolderMovedOrCopiedWholeKeepsItsStore) {
  const fs::path first = dir_.file("first");
  fs::create_directory(first);
  const std::string trace = "memory_test_app.zst";
  fs::copy_file(kExample, first / trace);
  fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.raw.zst",
                first / "memory_test_app.raw.zst");
  ASSERT_EQ(run_heapql("ingest " + shell_quote((first / trace).string())).exit_code, 0);
  const std::string answer = run_heapql("query " + shell_quote((first / trace).string()) + " --by stack --format csv").out;
  copy_folder_keeping_times(first, dir_.file("copied"));
  fs::rename(first, dir_.file("moved"));
  for (const std::string folder : {"moved", "copied"}) {
    const std::string path = dir_.file(folder) + "/" + trace;
    const CommandResult info = run_heapql("info " + shell_quote(path) + " --format json");
    EXPECT_EQ(info.err, "") << folder;
    expect_contains(info.out, "\"store_file\":{");
    const CommandResult query = run_heapql("query " + shell_quote(path) + " --by stack --format csv");
    EXPECT_EQ(query.err, "") << folder;
    EXPECT_EQ(query.out, answer) << folder;
    // The trace read again uses its block-identity file (.hqid) in the new place too.
    const CommandResult read = run_heapql("query " + shell_quote(path) + " --no-store --by stack --format csv");
    EXPECT_EQ(read.err, "") << folder;
    EXPECT_EQ(read.out, answer) << folder;
  }
  // A twin that changed in the new place is still found there, and makes the store stale.
  const std::string moved = dir_.file("moved") + "/" + trace;
  std::ofstream(dir_.file("moved") + "/memory_test_app.raw.zst", std::ios::app) << "x";
  expect_contains(run_heapql("query " + shell_quote(moved) + " --totals").err,
                  (fs::path(dir_.file("moved")) / "memory_test_app.raw.zst").string() +
                      " has changed since it was ingested (its size changed)");
  // A copy that does not keep the times is not the file the store was made of, as far as it can tell.
  const std::string plain = dir_.file("plain");
  fs::create_directory(plain);
  for (const std::string& name : {trace, trace + ".hqdb"}) {
    write_file(plain + "/" + name, read_file(dir_.file("copied") + "/" + name));  // as cp without -p: new times
  }
  expect_contains(run_heapql("query " + shell_quote(plain + "/" + trace) + " --totals").err,
                  "not used, it is the store of " + (first / trace).string() +
                      ", and this trace differs from it (its modification time changed)");
}

TEST_F(StoreBeside, AStoreOfAnotherTraceBesideIsPassedOver) {
  const std::string trace = dir_.file("worked_example.txt");
  const std::string other = dir_.file("two_phase.txt");
  fs::copy_file(kWorked, trace);
  fs::copy_file(std::string(HEAPQL_TEST_DATA_DIR) + "/two_phase.txt", other);
  ASSERT_EQ(run_heapql("ingest " + shell_quote(other) + " -o " + shell_quote(trace + ".hqdb")).exit_code, 0);
  const CommandResult r = run_heapql("query " + shell_quote(trace) + " --totals");
  EXPECT_EQ(r.exit_code, 0);
  expect_contains(r.err, "not used, it is the store of " + other);
  EXPECT_EQ(r.out, run_heapql("query " + shell_quote(trace) + " --totals --no-store").out);
}

TEST_F(StoreBeside, AStoreOfAnotherReadingIsPassedOver) {
  const std::string trace = dir_.file("memory_test_app.zst");
  fs::copy_file(kExample, trace);
  fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.raw.zst",
                dir_.file("memory_test_app.raw.zst"));
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace)).exit_code, 0);
  const CommandResult r = run_heapql("query " + shell_quote(trace) + " --no-raw --totals --format json");
  EXPECT_EQ(r.exit_code, 0);
  // Only what differs is said, each side once, and the advice writes a store for this reading.
  expect_contains(r.err, "it was read with other options (ingested with its raw twin where there is one; this "
                         "command reads with --no-raw); reading the trace (heapql ingest " + trace +
                             " --no-raw writes one for this reading)");
  expect_contains(r.out, "\"block_identity\":\"bucket-lifo\"");
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace) + " --no-raw").exit_code, 0);
  const CommandResult after = run_heapql("query " + shell_quote(trace) + " --no-raw --totals --format json");
  EXPECT_EQ(after.err, "") << "the store the advice wrote answers";
  EXPECT_EQ(after.out, r.out);
}

// --symbols names PDBs for ETW traces; other sources ignore it, their store
// too: a heaptrack trace's fresh store answers with it, without a warning.
TEST_F(StoreBeside, SymbolsDoNotPartAHeaptrackStoreFromItsTrace) {
  const std::string trace = dir_.file("worked_example.txt");
  fs::copy_file(kWorked, trace);
  fs::create_directory(dir_.file("pdbs"));
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace)).exit_code, 0);
  const std::string symbols = " --symbols " + shell_quote(dir_.file("pdbs"));
  const CommandResult r = run_heapql("info " + shell_quote(trace) + symbols + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  expect_contains(r.out, "\"store_file\":{");
  // Nor does ingest record them for such a trace.
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace) + symbols).exit_code, 0);
  const CommandResult plain = run_heapql("info " + shell_quote(trace) + " --format json");
  EXPECT_EQ(plain.err, "");
  expect_contains(plain.out, "\"read_with\":\"raw twin\"");
}

// An ETL trace's store is of its symbol paths: another set passes it over,
// saying which, and the advice ingests with them.
TEST_F(StoreBeside, AnEtlStoreOfOtherSymbolsIsPassedOverNamingThem) {
  const std::string trace = dir_.file("synthetic.etl");
  write_memory_test_app(trace);
  fs::create_directory(dir_.file("pdbs"));
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace)).exit_code, 0);
  const std::string pdbs = dir_.file("pdbs");
  const CommandResult r = run_heapql("query " + shell_quote(trace) + " --totals --symbols " + shell_quote(pdbs));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_contains(r.err, "it was read with other options (ingested with no --symbols; this command reads with "
                         "--symbols " + pdbs + "); reading the trace (heapql ingest " + trace + " --symbols " + pdbs +
                             " writes one for this reading)");
  EXPECT_EQ(r.err.find("where there is one"), std::string::npos) << r.err;
}

// A store named on the command line in a copy of its folder (cp -a keeps the
// recorded paths of the original) is judged by the trace beside it, as the
// same store found beside that trace is.
TEST_F(StoreBeside, ANamedStoreInACopiedFolderIsJudgedByTheTraceBesideIt) {
  const fs::path first = dir_.file("first");
  fs::create_directory(first);
  fs::copy_file(kWorked, first / "worked_example.txt");
  ASSERT_EQ(run_heapql("ingest " + shell_quote((first / "worked_example.txt").string())).exit_code, 0);
  copy_folder_keeping_times(first, dir_.file("copy"));
  // With the system's separator: the trace beside a named store is named so.
  const std::string trace = (fs::path(dir_.file("copy")) / "worked_example.txt").string();
  EXPECT_EQ(run_heapql("query " + shell_quote(trace + ".hqdb") + " --totals").exit_code, 0);
  std::ofstream(trace, std::ios::app) << "# edited\n";
  const CommandResult found = run_heapql("query " + shell_quote(trace) + " --totals");
  expect_contains(found.err, trace + ".hqdb: not used, it is the store of " + (first / "worked_example.txt").string() +
                                 ", and this trace differs from it (its size changed)");
  const CommandResult named = run_heapql("query " + shell_quote(trace + ".hqdb") + " --totals");
  EXPECT_EQ(named.exit_code, 2) << named.err;
  expect_contains(named.err, "heapql: " + trace + ".hqdb: stale: its trace " + trace + " has changed since it was ingested");
  // The original, unchanged, still answers for its own trace.
  EXPECT_EQ(run_heapql("query " + shell_quote((first / "worked_example.txt.hqdb").string()) + " --totals").exit_code, 0);
}

TEST(BadInputStaleStore, ANamedStaleStoreIsRefused) {
  TempDir dir;
  const std::string trace = dir.file("worked_example.txt");
  fs::copy_file(kWorked, trace);
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace)).exit_code, 0);
  std::ofstream(trace, std::ios::app) << "# edited\n";
  const CommandResult r = run_heapql("query " + shell_quote(trace + ".hqdb"));
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, "heapql: " + trace + ".hqdb: stale: its trace " + trace + " has changed since it was ingested");
  // --no-store would not help with the store named: the advice names the trace.
  expect_contains(r.err, "name the trace instead of its store (heapql query " + trace + ")");
}

TEST(Store, AStoreTravelsWithoutItsTrace) {
  TempDir dir;
  const std::string trace = dir.file("worked_example.txt");
  fs::copy_file(kWorked, trace);
  const std::string expected = run_heapql("query " + shell_quote(trace) + " --format csv").out;
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace) + " -o " + shell_quote(dir.file("w.hqdb"))).exit_code, 0);
  fs::remove(trace);
  const CommandResult r = run_heapql("query " + shell_quote(dir.file("w.hqdb")) + " --format csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expected);
}

TEST(Store, IngestFallsBackToTheCacheWhenTheTracesFolderIsReadOnly) {
  HEAPQL_SKIP_ON_WINDOWS("the unwritable folder is Linux's /proc/self/fd");
  // /proc/self/fd cannot be written, not even by root: the trace is read
  // there through an open descriptor, and its store goes to the cache.
  TempDir dir;
  const std::string env = "XDG_CACHE_HOME=" + shell_quote(dir.file("cache"));
  const std::string trace = "/proc/self/fd/7 7<" + shell_quote(kWorked);
  const CommandResult ingest = run_heapql("ingest " + trace, env);
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  expect_contains(ingest.err, "heapql: wrote " + dir.file("cache") + "/heapql/");
  const CommandResult info = run_heapql("info " + trace, env);
  EXPECT_EQ(info.exit_code, 0) << info.err;
  expect_contains(info.out, "store file         " + dir.file("cache") + "/heapql/");
  // Where the cache cannot be written either, both places are said, the trace's folder first.
  const CommandResult nowhere = run_heapql("ingest " + trace, "XDG_CACHE_HOME=/proc/self/no-cache");
  EXPECT_EQ(nowhere.exit_code, 2);
  expect_contains(nowhere.err,
                  "heapql: /proc/self/fd/7.hqdb: cannot write the store: its folder /proc/self/fd cannot "
                  "be written");
  expect_contains(nowhere.err, "; nor in the cache: /proc/self/no-cache/heapql/");
}

// ---- bad stores ----

class BadInputStore : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::copy_file(kWorked, trace_);
    // A store of block columns (a test hook: the worked example's pairing
    // would make it a store of events, whose own tests are below).
    ASSERT_EQ(run_heapql("ingest " + shell_quote(trace_) + " -o " + shell_quote(good_), kBlockColumns).exit_code, 0);
    bytes_ = read_file(good_);
    fs::remove(trace_);  // the stores below are judged by their bytes alone
  }
  void expect_refused(const std::string& bytes, const std::string& message, bool info_reads_it = true) {
    const std::string path = dir_.file("bad.hqdb");
    write_file(path, bytes);
    expect_refused_file(path, message, info_reads_it);
  }
  // By a query that reads every section: a series replays the blocks
  // (a whole-trace query reads the bucket sums, not the block columns).
  void expect_refused_file(const std::string& path, const std::string& message, bool info_reads_it = true) {
    for (const char* command : {"query", "info"}) {
      if (!info_reads_it && std::string(command) == "info") continue;
      const CommandResult r = run_heapql(std::string(command) + " " + shell_quote(path) +
                                         (std::string(command) == "query" ? " --series 3" : ""));
      EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
      EXPECT_EQ(r.out, "");
      expect_contains(r.err, "heapql: " + path + ": ");
      expect_contains(r.err, message);
    }
  }
  // Crafted bytes refused by the query that reads them (`args`), naming
  // the file; the result, for what else a test checks in it.
  CommandResult expect_query_refused(const std::string& bytes, const std::string& args, const std::string& message) {
    const std::string path = dir_.file("bad.hqdb");
    write_file(path, bytes);
    CommandResult r = run_heapql("query " + shell_quote(path) + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << message;
    EXPECT_EQ(r.out, "");
    expect_contains(r.err, "heapql: " + path + ": ");
    expect_contains(r.err, message);
    return r;
  }
  // The table of contents' entry (its offset in `bytes`) of the section
  // that starts at `section_at`; npos where none does.
  static std::size_t toc_entry_of(const std::string& bytes, std::size_t section_at) {
    using namespace heapql::store_file;
    std::uint64_t toc = 0, offset = 0;
    std::memcpy(&toc, bytes.data() + header_at::kTocOffset, 8);
    for (std::size_t entry = toc; entry + kTocEntryBytes <= bytes.size(); entry += kTocEntryBytes) {
      std::memcpy(&offset, bytes.data() + entry + 16, 8);
      if (offset == section_at) return entry;
    }
    return std::string::npos;
  }
  // Where a store file's section starts, as `info` tells it.
  std::size_t section_offset(const std::string& store, const std::string& section) {
    const CommandResult info = run_heapql("info " + shell_quote(store) + " --format json");
    const std::string key = "{\"name\":\"" + section + "\",\"offset\":";
    const std::size_t at = info.out.find(key);
    EXPECT_NE(at, std::string::npos) << section;
    return at == std::string::npos ? 0 : std::stoull(info.out.substr(at + key.size()));
  }
  std::uint64_t u64_at(std::size_t at) const {
    std::uint64_t v;
    std::memcpy(&v, bytes_.data() + at, 8);
    return v;
  }
  TempDir dir_;
  std::string trace_ = dir_.file("worked_example.txt");
  std::string good_ = dir_.file("good.hqdb");
  std::string bytes_;
};

TEST_F(BadInputStore, Truncated) {
  for (std::size_t keep : {std::size_t{12}, std::size_t{63}, bytes_.size() / 2, bytes_.size() - 1}) {
    SCOPED_TRACE(keep);
    expect_refused(bytes_.substr(0, keep), "truncated");
  }
}

TEST_F(BadInputStore, FlippedBytesInEverySectionAreCaught) {
  // One flipped bit in each 64-byte stretch of the file, header to table of contents.
  for (std::size_t at = 0; at < bytes_.size(); at += 61) {
    std::string bad = bytes_;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    const std::string path = dir_.file("flipped.hqdb");
    write_file(path, bad);
    const CommandResult r = run_heapql("query " + shell_quote(path) + " --totals --series 3");
    expect_no_crash(r);
    if (r.exit_code == 0) {
      // Only padding between sections is not checksummed; the answer must not change.
      EXPECT_EQ(r.out, run_heapql("query " + shell_quote(good_) + " --totals --series 3").out) << "byte " << at;
      continue;
    }
    EXPECT_EQ(r.exit_code, 2) << "byte " << at;
    EXPECT_TRUE(r.err.find("checksum does not match") != std::string::npos ||
                r.err.find("wrong magic number") != std::string::npos ||
                r.err.find("newer than this heapql") != std::string::npos ||
                r.err.find("older than this heapql") != std::string::npos)
        << "byte " << at << ": " << r.err;
  }
}

TEST_F(BadInputStore, EachSectionsChecksumNamesIt) {
  for (const char* section : {"source", "strings", "frames", "stacks", "buckets", "block buckets",
                              "block allocation times", "frees", "time changes", "bucket sums"}) {
    const std::size_t offset = section_offset(good_, section);
    ASSERT_NE(offset, 0u) << section;
    std::string bad = bytes_;
    bad[offset] = static_cast<char>(bad[offset] ^ 0x01);
    // The events' sections are read by a replay alone.
    const bool block_column = std::string(section) == "block buckets" ||
                              std::string(section) == "block allocation times" || std::string(section) == "frees" ||
                              std::string(section) == "time changes";
    const std::string damaged = std::string("section '") + section + "' is damaged (its checksum does not match)";
    if (std::string(section) == "bucket sums") {
      // Read by a whole-trace query alone: neither a replay nor info's
      // summary (the stack view's totals, and the tables) reads them.
      const std::string bad_path = dir_.file("bad.hqdb");
      write_file(bad_path, bad);
      const CommandResult whole = run_heapql("query " + shell_quote(bad_path) + " --by frame");
      EXPECT_EQ(whole.exit_code, 2) << whole.err;
      EXPECT_EQ(whole.out, "");
      expect_contains(whole.err, "heapql: " + bad_path + ": ");
      expect_contains(whole.err, damaged);
      const CommandResult series = run_heapql("query " + shell_quote(bad_path) + " --series 3 --format csv");
      EXPECT_EQ(series.exit_code, 0) << series.err;
      EXPECT_EQ(series.out, run_heapql("query " + shell_quote(good_) + " --series 3 --format csv").out);
      const CommandResult info = run_heapql("info " + shell_quote(bad_path) + " --format json");
      EXPECT_EQ(info.exit_code, 0) << info.err;
      expect_contains(info.out, "\"blocks\":11,");
      continue;
    }
    expect_refused(bad, damaged, !block_column);
    if (block_column) {
      // A whole-trace query answers from the bucket sums and never reads the
      // block columns: its answer is the good store's.
      const CommandResult whole = run_heapql("query " + shell_quote(dir_.file("bad.hqdb")) + " --by frame --format csv");
      EXPECT_EQ(whole.exit_code, 0) << whole.err;
      EXPECT_EQ(whole.out, run_heapql("query " + shell_quote(good_) + " --by frame --format csv").out);
    }
  }
}

// The stack view is read, and checked, by its own query only: damaged, it
// refuses `--by stack` of the whole trace and nothing else; and that query
// reads neither the bucket sums nor the block columns.
TEST_F(BadInputStore, TheStackViewIsCheckedByTheQueryThatReadsIt) {
  const auto section_at = [&](const std::string& section) { return section_offset(good_, section); };
  const std::string bad_path = dir_.file("bad.hqdb");
  const auto query = [&](const std::string& path, const std::string& options) {
    return run_heapql("query " + shell_quote(path) + " " + options + " --format csv");
  };
  // A flipped byte in one of the view's rows (past its 64-byte head).
  std::string bad = bytes_;
  const std::size_t view = section_at("stack view");
  bad[view + 64] = static_cast<char>(bad[view + 64] ^ 0x01);
  write_file(bad_path, bad);
  // The view's query with impacting types AIFI or AIFO (a heaptrack trace:
  // every src is 0) splits the view's rows: it reads them too.
  for (const char* options : {"--by stack", "--by stack --sort st --top 1", "--totals", "--impacting AIFI --by stack",
                              "--impacting AIFO --by stack --sort impacting --top 1", "--impacting AIFO --totals"}) {
    const CommandResult r = query(bad_path, options);
    EXPECT_EQ(r.exit_code, 2) << options;
    EXPECT_EQ(r.out, "") << options;
    expect_contains(r.err, "heapql: " + bad_path + ": byte ");
    expect_contains(r.err, "section 'stack view' is damaged (its checksum does not match)");
  }
  // Damage in its head's totals (so made larger than st) is damage too, not
  // the inconsistency splitting them would find first.
  bad = bytes_;
  bad[view + 24 + 6] = static_cast<char>(bad[view + 24 + 6] ^ 0x40);
  write_file(bad_path, bad);
  for (const char* options : {"--impacting AIFO --totals", "--impacting AIFI --by stack", "--by stack"}) {
    const CommandResult r = query(bad_path, options);
    EXPECT_EQ(r.exit_code, 2) << options;
    expect_contains(r.err, "section 'stack view' is damaged (its checksum does not match)");
  }
  for (const char* options : {"--by frame", "--by stack --no-default-cull", "--by stack --window 1ms..", "--by stack --series 2"}) {
    const CommandResult r = query(bad_path, options);
    EXPECT_EQ(r.exit_code, 0) << options << ": " << r.err;
    EXPECT_EQ(r.out, query(good_, options).out) << options;
  }
  // Damaged bucket sums, buckets and block columns do not stop the view's
  // query, which reads none of them; nor does a damaged stack tree stop its
  // totals, which show no stack.
  for (const char* section : {"bucket sums", "buckets", "block buckets", "frees", "time changes"}) {
    bad = bytes_;
    bad[section_at(section)] = static_cast<char>(bad[section_at(section)] ^ 0x01);
    write_file(bad_path, bad);
    for (const char* options : {"--by stack", "--impacting AIFI,AIFO --by stack"}) {
      const CommandResult r = query(bad_path, options);
      EXPECT_EQ(r.exit_code, 0) << section << " " << options << ": " << r.err;
      EXPECT_EQ(r.out, query(good_, options).out) << section << " " << options;
    }
  }
  bad = bytes_;
  bad[section_at("stacks")] = static_cast<char>(bad[section_at("stacks")] ^ 0x01);
  write_file(bad_path, bad);
  const CommandResult totals = query(bad_path, "--totals");
  EXPECT_EQ(totals.exit_code, 0) << totals.err;
  EXPECT_EQ(totals.out, query(good_, "--totals").out);
  const CommandResult rows = query(bad_path, "--by stack");
  EXPECT_EQ(rows.exit_code, 2);
  expect_contains(rows.err, "section 'stacks' is damaged (its checksum does not match)");
}

// The live checkpoints a windowed query starts from: damaged, or crafted
// with correct checksums, they are refused by the query that reads them.
TEST_F(BadInputStore, LiveCheckpointsThatDoNotFitAreRefused) {
  const std::string checkpointed = dir_.file("checkpointed.hqdb");
  fs::copy_file(kWorked, trace_);
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace_) + " -o " + shell_quote(checkpointed),
                       std::string(kBlockColumns) + " HEAPQL_STORE_CHECKPOINT_EVENTS=3")
                .exit_code,
            0);
  const std::string good = read_file(checkpointed);
  const std::size_t at = section_offset(checkpointed, "live checkpoints");
  ASSERT_NE(at, 0u);
  // A window from 300 ms on (of 600) starts from a checkpoint: the ones
  // before it are passed over.
  const std::string window = " --window 300ms.. --impacting AIFO,AOFO --by impacting,stack --format csv";
  const std::string expected = run_heapql("query " + shell_quote(checkpointed) + window).out;
  ASSERT_FALSE(expected.empty());
  const std::string bad_path = dir_.file("bad.hqdb");
  std::string flipped = good;
  flipped[at + 8] = static_cast<char>(flipped[at + 8] ^ 0x01);
  expect_query_refused(flipped, window, "section 'live checkpoints' is damaged (its checksum does not match)");
  // Crafted: the checkpoints are 24 bytes each (seq, first id, count), then
  // the ids' count (u64), then the ids, a packed column (store-format.md).
  std::uint64_t checkpoints = 0;
  {
    const std::string info = run_heapql("info " + shell_quote(checkpointed) + " --format json").out;
    const std::string items_key = "\"items\":";
    const std::size_t items = info.find(items_key, info.find("{\"name\":\"live checkpoints\""));
    checkpoints = std::stoull(info.substr(items + items_key.size()));
  }
  ASSERT_GE(checkpoints, 2u);
  const auto crafted = [&](std::size_t offset, std::uint64_t value, std::size_t bytes) {
    std::string bad = good;
    std::memcpy(bad.data() + offset, &value, bytes);
    heapql::test::set_store_checksums(bad.data(), bad.size());
    return bad;
  };
  // The last checkpoint's block count one more than its events allow.
  const std::size_t last = at + (checkpoints - 1) * 24;
  std::uint64_t count;
  std::memcpy(&count, good.data() + last + 16, 8);
  expect_query_refused(crafted(last + 16, count + 1, 8), window, "a live checkpoint");
  // Fewer ids than the checkpoints list.
  const std::size_t id_count_at = at + checkpoints * 24;
  std::uint64_t id_count;
  std::memcpy(&id_count, good.data() + id_count_at, 8);
  expect_query_refused(crafted(id_count_at, id_count - 1, 8), window, "a live checkpoint");
  // Ids out of the events: the first 64 ids' base (their directory entry's
  // low half, after the packed words) past every block. The query whose
  // window starts from the first checkpoint reads them.
  std::uint64_t section_bytes = 0;
  {
    const std::string info = run_heapql("info " + shell_quote(checkpointed) + " --format json").out;
    const std::string bytes_key = "\"bytes\":";
    const std::size_t bytes_at = info.find(bytes_key, info.find("{\"name\":\"live checkpoints\""));
    section_bytes = std::stoull(info.substr(bytes_at + bytes_key.size()));
  }
  const std::uint64_t id_words = (section_bytes - checkpoints * 24 - 8) / 8;
  const std::uint64_t directory = id_words - (id_count + 63) / 64 - 1;  // after the packed words
  const std::size_t first_base_at = id_count_at + 8 + directory * 8;
  const std::uint32_t past_every_block = 0x7FFFFF00;
  std::string beyond = good;
  std::memcpy(beyond.data() + first_base_at, &past_every_block, 4);
  heapql::test::set_store_checksums(beyond.data(), beyond.size());
  write_file(bad_path, beyond);
  const CommandResult early = run_heapql("query " + shell_quote(bad_path) + " --window 1ms.. --format csv");
  const std::string early_expected =
      run_heapql("query " + shell_quote(checkpointed) + " --window 1ms.. --format csv").out;
  // Only a query whose window starts from that checkpoint reads its ids.
  EXPECT_TRUE(early.exit_code == 2 || early.out == early_expected) << early.err;
  if (early.exit_code == 2) expect_contains(early.err, "a live checkpoint's blocks are out of order");
  const CommandResult from_first = run_heapql("query " + shell_quote(bad_path) + window);
  EXPECT_TRUE(from_first.exit_code == 2 || from_first.out == expected) << from_first.err;
  // A checkpoint before any event, and one past the last event.
  expect_query_refused(crafted(at, 0, 8), window, "a live checkpoint that does not fit its section or the events");
  expect_query_refused(crafted(last, 0xFFFFFFFFFFull, 8), window,
                       "a live checkpoint that does not fit its section or the events");
}

// Rows with a correct checksum that do not fit the trace are refused; a view
// made with another cull list (its fingerprint differs) is passed over.
TEST_F(BadInputStore, AStackViewThatDoesNotFitIsRefused) {
  const std::size_t view = section_offset(good_, "stack view");
  ASSERT_NE(view, 0u);
  const std::uint64_t rows = u64_at(view + 8);
  ASSERT_GE(rows, 2u);
  // Its columns are a packed table (store-format.md, "Packed tables"): a
  // u64 length per column, then the columns, each its words, its directory
  // (a u64 per 64 rows, the block's base in the low half) and its end.
  const std::size_t table = view + 64;
  const auto first_base_at = [&](std::size_t column) {
    std::size_t at = table + 8 * 11;
    for (std::size_t c = 0; c < column; ++c) at += u64_at(table + 8 * c) * 8;
    const std::uint64_t blocks = (rows + 63) / 64;
    return at + (u64_at(table + 8 * column) - blocks - 1) * 8;
  };
  const std::size_t stacks_at = first_base_at(0), so_at = first_base_at(1);  // so's low halves
  const auto crafted = [&](std::size_t at, const void* value, std::size_t n) {
    std::string bad = bytes_;
    std::memcpy(bad.data() + at, value, n);
    heapql::test::set_store_checksums(bad.data(), bad.size());
    return bad;
  };
  const std::string bad_path = dir_.file("bad.hqdb");
  const auto expect_view_refused = [&](const std::string& bytes, const std::string& message) {
    expect_contains(expect_query_refused(bytes, " --by stack", message).err, "heapql: " + bad_path + ": byte ");
  };
  const std::uint32_t no_such_stack = 0x7FFFFFFF;
  expect_view_refused(crafted(stacks_at, &no_such_stack, 4), "the stack view has a row that does not fit the tables");
  const std::uint32_t more = static_cast<std::uint32_t>(u64_at(so_at)) + 1;  // every so of the first 64 rows
  expect_view_refused(crafted(so_at, &more, 4), "the stack view does not add up to its totals and the trace's blocks");
  const std::uint64_t longer = u64_at(table) + 1;
  expect_view_refused(crafted(table, &longer, 8), "store section 'stack view': column 1: its directory's last entry");
  const std::uint64_t other_fingerprint = u64_at(view) ^ 2;
  write_file(bad_path, crafted(view, &other_fingerprint, 8));
  const CommandResult r = run_heapql("query " + shell_quote(bad_path) + " --by stack --format csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, run_heapql("query " + shell_quote(good_) + " --by stack --format csv").out);
}

// Records with correct checksums that the tables refuse: each reported as
// the record loop words it (read_tables checks the big tables with a tight
// scan first, then names the first bad record).
TEST_F(BadInputStore, BadTableRecordsWithCorrectChecksums) {
  const auto section_at = [&](const std::string& section) { return section_offset(good_, section); };
  const auto crafted = [&](std::size_t at, std::uint32_t value) {
    std::string bad = bytes_;
    std::memcpy(bad.data() + at, &value, sizeof value);
    heapql::test::set_store_checksums(bad.data(), bad.size());
    return bad;
  };
  const std::size_t stacks = section_at("stacks"), buckets = section_at("buckets");
  // A stack node: u32 frame, u32 parent. A bucket: u64 size, u32 stack, u32 heap, u32 thread, u8 kind, u8 realloc, u16 zero.
  expect_refused(crafted(stacks + 8, 0x7FFFFFFF), "a stack node's frame out of range");
  expect_refused(crafted(stacks + 12, 1), "a stack node whose caller comes after it");
  expect_refused(crafted(buckets + 8, 0x7FFFFFFF), "a bucket's stack out of range");
  expect_refused(crafted(buckets + 12, 0x7FFFFFFF), "a bucket's heap out of range");
  expect_refused(crafted(buckets + 20, 2), "a bucket with an unknown kind or flag");
  expect_refused(crafted(buckets + 20, 0x00010000), "a bucket with an unknown kind or flag");
}

// The packed block columns (store-format.md, "Packed columns") crafted with
// correct checksums: a block wider than 32 bits, a directory that points
// past the words, and a count of values the bytes do not hold are refused,
// each by what reads them.
TEST_F(BadInputStore, BadPackedColumnsWithCorrectChecksums) {
  const CommandResult info = run_heapql("info " + shell_quote(good_) + " --format json");
  for (const std::string section : {"block buckets", "block allocation times", "frees"}) {
    SCOPED_TRACE(section);
    const std::size_t at = section_offset(good_, section);
    const std::size_t entry = info.out.find("{\"name\":\"" + section + "\"");
    ASSERT_NE(entry, std::string::npos);
    const auto field = [&](const std::string& key) {
      return std::stoull(info.out.substr(info.out.find("\"" + key + "\":", entry) + key.size() + 3));
    };
    const std::uint64_t bytes = field("bytes"), items = field("items");
    ASSERT_GE(items, 1u);
    ASSERT_LE(items, 64u);  // one block: its words, its directory entry, the last entry
    const std::uint64_t words = bytes / 8 - 2;
    const std::size_t first_entry = at + words * 8, last_entry = first_entry + 8;
    const auto crafted = [&](std::size_t offset, std::uint64_t value) {
      std::string bad = bytes_;
      std::memcpy(bad.data() + offset, &value, 8);
      heapql::test::set_store_checksums(bad.data(), bad.size());
      return bad;
    };
    // The block starting a word past the end: its width wraps below zero.
    expect_refused(crafted(first_entry, (words + 1) << 32 | (u64_at(first_entry) & 0xFFFFFFFFu)),
                   "bits wide, beyond 32", false);
    // The last entry counting words that are not there.
    expect_refused(crafted(last_entry, (words + 5) << 32),
                   "store section '" + section + "': its directory's last entry is not the count of its words");
    // The table of contents' count of values: more blocks than the directory has.
    const std::size_t toc_entry = toc_entry_of(bytes_, at);
    ASSERT_NE(toc_entry, std::string::npos);
    expect_refused(crafted(toc_entry + 32, items + 64 * 100),
                   "store section '" + section + "': its bytes are fewer than its values' directory");
  }
}

// A packed section is 64-bit words: one whose table-of-contents length is
// not (with correct checksums) is refused by the query that reads it, with
// the section named, not read past or misaligned.
TEST_F(BadInputStore, PackedSectionsThatAreNotWholeWordsAreRefused) {
  const auto shortened_by_four = [&](const std::string& store, const std::string& section) {
    std::string bad = store;
    const std::size_t entry = toc_entry_of(bad, section_offset(dir_.file("source.hqdb"), section));
    if (entry == std::string::npos) {
      ADD_FAILURE() << section << ": no entry in the table of contents";
      return bad;
    }
    std::uint64_t length;
    std::memcpy(&length, bad.data() + entry + 24, 8);
    length -= 4;
    std::memcpy(bad.data() + entry + 24, &length, 8);
    heapql::test::set_store_checksums(bad.data(), bad.size());
    return bad;
  };
  fs::copy_file(good_, dir_.file("source.hqdb"));
  for (const std::string section : {"block buckets", "block allocation times", "frees"}) {
    SCOPED_TRACE(section);
    const CommandResult r =
        expect_query_refused(shortened_by_four(bytes_, section), " --series 3", "store section '" + section + "': ");
    expect_contains(r.err, "bytes are not whole words");
  }
  const CommandResult view =
      expect_query_refused(shortened_by_four(bytes_, "stack view"), " --by stack", "store section 'stack view': ");
  expect_contains(view.err, "bytes are not whole words");
  expect_query_refused(shortened_by_four(bytes_, "bucket sums"), " --by frame", "bytes are not whole words");
  // The live checkpoints, in a store that has some, read by a window that starts from one.
  fs::remove(dir_.file("source.hqdb"));
  fs::copy_file(kWorked, trace_);
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace_) + " -o " + shell_quote(dir_.file("source.hqdb")),
                       std::string(kBlockColumns) + " HEAPQL_STORE_CHECKPOINT_EVENTS=3")
                .exit_code,
            0);
  expect_query_refused(shortened_by_four(read_file(dir_.file("source.hqdb")), "live checkpoints"),
                       " --window 300ms.. --impacting AIFO,AOFO --by impacting,stack",
                       "live checkpoint ids that are not whole words");
}

// A store of events (the worked example's pairing, docs/store-format.md,
// "Events"): each section's damage named by the query that reads it, and
// crafted bytes with correct checksums refused, never read past.
TEST_F(BadInputStore, DamagedEventsAreRefusedByTheQueryThatReadsThem) {
  const std::string events_store = dir_.file("events.hqdb");
  fs::copy_file(kWorked, trace_);
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace_) + " -o " + shell_quote(events_store),
                       "HEAPQL_STORE_CHECKPOINT_EVENTS=4")
                .exit_code,
            0);
  const std::string good = read_file(events_store);
  const std::size_t at = section_offset(events_store, "events");
  ASSERT_NE(at, 0u);
  const std::size_t counts_at = section_offset(events_store, "live counts");
  ASSERT_NE(counts_at, 0u);
  const std::string series = " --series 3 --format csv";
  const std::string window = " --window 300ms.. --impacting AIFO,AOFO --by impacting,stack --format csv";
  const std::string whole = " --by frame --format csv";
  const auto answer = [&](const std::string& bytes, const std::string& args) {
    const std::string path = dir_.file("bad.hqdb");
    write_file(path, bytes);
    return run_heapql("query " + shell_quote(path) + args);
  };
  std::uint64_t chunks = 0;
  std::memcpy(&chunks, good.data() + at + 8, 8);
  const std::size_t frames_at = at + 16 + (chunks + 1) * 16;
  // Flipped in a frame: the events' checksum, named by a replay; the
  // bucket sums answer without them.
  std::string flipped = good;
  flipped[frames_at + 2] = static_cast<char>(flipped[frames_at + 2] ^ 0x01);
  expect_query_refused(flipped, series, "section 'events' is damaged (its checksum does not match)");
  const CommandResult sums = answer(flipped, whole);
  EXPECT_EQ(sums.exit_code, 0) << sums.err;
  EXPECT_EQ(sums.out, answer(good, whole).out);
  flipped = good;
  flipped[counts_at + 20] = static_cast<char>(flipped[counts_at + 20] ^ 0x01);
  expect_query_refused(flipped, window, "section 'live counts' is damaged (its checksum does not match)");
  // Crafted, the checksums set again. The head: events a chunk, then chunks.
  const auto crafted = [&](std::size_t offset, std::uint64_t value) {
    std::string bad = good;
    std::memcpy(bad.data() + offset, &value, 8);
    heapql::test::set_store_checksums(bad.data(), bad.size());
    return bad;
  };
  expect_refused(crafted(at, 3), "store section 'events': 3 events a chunk, not a power of two", true);
  expect_refused(crafted(at + 8, 1000), "store section 'events': 1000 chunks for", true);
  // A chunk's frame past the section, and one with its bytes changed.
  expect_refused(crafted(at + 16 + 16, 1u << 30), "chunk 0's frame does not lie within the section", true);
  std::string changed = good;
  changed[frames_at + 1] = static_cast<char>(changed[frames_at + 1] ^ 0x5A);  // its zstd magic number
  heapql::test::set_store_checksums(changed.data(), changed.size());
  expect_query_refused(changed, series, "store is inconsistent: the events' chunk 0");
  // The table of contents' count of events, against the source's.
  const std::size_t toc_entry = toc_entry_of(good, at);
  ASSERT_NE(toc_entry, std::string::npos);
  expect_refused(crafted(toc_entry + 32, 5), "the events section holds another count of events than the source says");
  // Live counts that do not fit the events: refused by the window that
  // would start from them; a whole-trace query does not read them.
  expect_query_refused(crafted(counts_at + 16, 3), window,
                       "store section 'live counts': list 0 is not at a chunk's start");
  const CommandResult unread = answer(crafted(counts_at + 16, 3), whole);
  EXPECT_EQ(unread.exit_code, 0) << unread.err;
}

TEST_F(BadInputStore, WrongMagic) {
  std::string bad = bytes_;
  bad[0] = 'X';
  expect_refused(bad, "not a heapql store (wrong magic number)");
}

TEST_F(BadInputStore, NewerFormatVersion) {
  std::string bad = bytes_;
  bad[8] = 9;
  expect_refused(bad, "store format version 9 is newer than this heapql reads (up to 8)");
}

TEST_F(BadInputStore, OlderFormatVersion) {
  // Older versions (1: CRC-32 checksums; 2: heaptrack's and ETW's details as
  // fields of their own; 3: no stack view; 4: no live checkpoints; 5: the
  // accelerators required and without revisions; 6: the block columns as
  // plain u32s; 7: no events) are not read: a store is cheap to write again.
  for (const char version : {1, 2, 3, 4, 5, 6, 7}) {
    std::string bad = bytes_;
    bad[8] = version;
    expect_refused(bad, fmt::format("store format version {} is older than this heapql reads (8); ingest the trace "
                                    "again",
                                    static_cast<int>(version)));
  }
}

TEST_F(BadInputStore, ZeroLengthFileAndDirectory) {
  expect_refused("", "an empty file, not a heapql store");
  // A .hqdb name does not make a store; an empty file named so is told apart from a trace by its name.
  const std::string folder = dir_.file("folder.hqdb");
  fs::create_directory(folder);
  const CommandResult r = run_heapql("query " + shell_quote(folder));
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, folder);
}

TEST_F(BadInputStore, TrailingBytes) { expect_refused(bytes_ + "x", "bytes after the store's end"); }

TEST(BadInputStoreOutput, AFolderThatCannotBeWrittenLeavesNothing) {
  TempDir dir;
  for (const std::string& out : {std::string("/proc/self/heapql-test.hqdb"), dir.file("missing/x.hqdb")}) {
    const CommandResult r = run_heapql("ingest " + shell_quote(kWorked) + " -o " + shell_quote(out));
    EXPECT_EQ(r.exit_code, 2) << out;
    expect_contains(r.err, out);
    EXPECT_FALSE(fs::exists(out));
  }
  EXPECT_TRUE(fs::is_empty(dir.path())) << "no temporary file is left behind";
}

// The store is renamed over the path given: a pipe (or, as root, a device
// such as /dev/null) would be replaced by a regular file.
TEST(BadInputStoreOutput, AFolderPipeOrDeviceIsNotReplaced) {
#ifdef _WIN32
  HEAPQL_SKIP_ON_WINDOWS("no FIFOs");
#else
  TempDir dir;
  const std::string pipe = dir.file("pipe"), folder = dir.file("folder");
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  fs::create_directory(folder);
  for (const auto& [out, why] :
       {std::pair{pipe, "is a device, pipe or socket, not a file"}, std::pair{folder, "is a folder"}}) {
    const CommandResult r = run_heapql("ingest " + shell_quote(kWorked) + " -o " + shell_quote(out));
    EXPECT_EQ(r.exit_code, 2) << out;
    expect_contains(r.err, out + ": " + why);
  }
  EXPECT_TRUE(fs::is_fifo(pipe));
  EXPECT_TRUE(fs::is_directory(folder) && fs::is_empty(folder));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 2u) << "no temporary file is left behind";
#endif
}

TEST(BadInputStoreOutput, IngestOfAStoreIsRefused) {
  TempDir dir;
  ASSERT_EQ(run_heapql("ingest " + shell_quote(kWorked) + " -o " + shell_quote(dir.file("a.hqdb"))).exit_code, 0);
  const CommandResult r = run_heapql("ingest " + shell_quote(dir.file("a.hqdb")));
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, "is a store already");
}

// ---- writers that die, and writers that race ----

TEST(StoreWriting, AWriterKilledAtAnyStepLeavesNoStoreAReaderAccepts) {
  TempDir dir;
  const std::string trace = dir.file("memory_test_app.zst");
  fs::copy_file(kExample, trace);
  // A store of events (this trace's pairing), then one of block columns (a test hook).
  const std::vector<std::pair<std::string, std::vector<const char*>>> forms = {
      {"", {"source", "strings", "buckets", "events", "time changes", "live counts", "bucket sums", "stack view",
            "table of contents", "header", "rename"}},
      {std::string(kBlockColumns) + " ", {"block buckets", "frees", "live checkpoints"}}};
  for (const auto& [hook, steps] : forms)
  for (const char* step : steps) {
    SCOPED_TRACE(hook + step);
    const CommandResult r = run_command(hook + "HEAPQL_STORE_KILL_AT=" + shell_quote(step) + " " + heapql() +
                                        " ingest " + shell_quote(trace));
    EXPECT_EQ(r.exit_code, 128 + 9) << "killed by SIGKILL at " << step << ": " << r.err;
    std::vector<std::string> left;
    for (const auto& entry : fs::directory_iterator(dir.path())) left.push_back(entry.path().filename().string());
    std::sort(left.begin(), left.end());
    EXPECT_EQ(left, std::vector<std::string>{"memory_test_app.zst"}) << "nothing left behind";
    const CommandResult q = run_heapql("query " + shell_quote(trace) + " --totals");
    EXPECT_EQ(q.exit_code, 0);
    EXPECT_EQ(q.err, "");
  }
  // A killed rewrite leaves the old store whole.
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace)).exit_code, 0);
  const std::string before = read_file(trace + ".hqdb");
  run_command("HEAPQL_STORE_KILL_AT=header " + heapql() + " ingest " + shell_quote(trace));
  EXPECT_EQ(read_file(trace + ".hqdb"), before);
}

TEST(StoreWriting, TwoConcurrentIngestsLeaveOneWholeStore) {
  TempDir dir;
  const std::string trace = dir.file("memory_test_app.zst");
  fs::copy_file(kExample, trace);
  // Two processes at once (threads start them: Windows has no sh for `&`).
  CommandResult results[2];
  {
    std::thread second([&] { results[1] = run_command(heapql() + " ingest " + shell_quote(trace)); });
    results[0] = run_command(heapql() + " ingest " + shell_quote(trace));
    second.join();
  }
  for (const CommandResult& r : results) {
    expect_no_crash(r);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir.path())) left.push_back(entry.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"memory_test_app.zst", "memory_test_app.zst.hqdb"}));
  const CommandResult q = run_heapql("query " + shell_quote(trace + ".hqdb") + " --format csv");
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(q.out, run_heapql("query " + shell_quote(trace) + " --no-store --format csv").out);
}

}  // namespace
}  // namespace heapql::test

namespace heapql::test {
namespace {

// A store of a trace cut short answers from its complete part, with the
// reader's warning each time, and --strict refuses it as it refuses the trace.
TEST(StoreOfACutTrace, WarnsEveryTimeAndStrictRefuses) {
  TempDir dir;
  const std::string text = read_file(kWorked);
  const std::string trace = dir.file("cut.txt");
  write_file(trace, text.substr(0, text.size() - 3));  // the last line loses its end
  const CommandResult ingest = run_heapql("ingest " + shell_quote(trace));
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  expect_contains(ingest.err, "the trace ends early");
  const CommandResult from_trace = run_heapql("query " + shell_quote(trace) + " --no-store --format csv");
  for (const std::string& path : {trace, trace + ".hqdb"}) {
    const CommandResult r = run_heapql("query " + shell_quote(path) + " --format csv");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, from_trace.out);
    EXPECT_EQ(r.err, from_trace.err) << "the same warning from the store";
    const CommandResult strict = run_heapql("query " + shell_quote(path) + " --strict");
    EXPECT_EQ(strict.exit_code, 2) << path;
    expect_contains(strict.err, "--strict refuses a trace cut short");
  }
  const CommandResult strict_ingest = run_heapql("ingest " + shell_quote(trace) + " --strict -o " +
                                                 shell_quote(dir.file("strict.hqdb")));
  EXPECT_EQ(strict_ingest.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir.file("strict.hqdb")));
}

}  // namespace
}  // namespace heapql::test

namespace heapql::test {
namespace {

// A window that ends between an allocation and its temporary free: the store
// replays no event after the window's end but that free, and answers as the
// trace does (semantics.md §8: the block is temporary, and outstanding at T2).
TEST(StoreWindowEnd, ATemporaryFreeJustAfterTheWindowCountsAsTheTraceSays) {
  TempDir dir;
  const std::string trace = dir.file("edge.txt");
  write_file(trace,
             "v 10400 3\nX ./edge\nI 1000 1\ns 4 prog\ns 4 func\ni 1000 1 2\nt 1 0\na 40 1\na 80 1\n"
             "c 1\n+ 0\n+ 0\nc 2\n+ 1\nc 3\n- 1\n- 0\nc 4\n+ 1\n- 1\n");
  const std::vector<std::string> shapes = {"--window ..3ms --format json --series 4",
                                           "--window ..3ms --temporary --format json",
                                           "--window 2ms..3ms --impacting AIFO,AIFI --by impacting --format csv",
                                           "--window ..3ms --at-peak --format csv",
                                           "--window ..3ms --lifetime 1ms.. --format csv"};
  std::vector<std::string> from_trace;
  for (const std::string& shape : shapes) from_trace.push_back(run_heapql("query " + shell_quote(trace) + " " + shape).out);
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace)).exit_code, 0);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const CommandResult r = run_heapql("query " + shell_quote(trace) + " " + shapes[i]);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, from_trace[i]) << shapes[i];
  }
  expect_contains(from_trace[1], "\"totals\":{\"so\":128,\"soc\":1,");  // the temporary block, freed after T2
}

}  // namespace
}  // namespace heapql::test
