// Real programs recorded with heaptrack inside the test, and heapql's
// whole-trace figures compared with heaptrack_print's exact numbers for the
// same file (semantics.md §9; formats/heaptrack.md §10-11 say where each exact
// number comes from). Also the example program's planted facts, read back
// through `heapql record` + `heapql query --by frame`.
//
// What this file must not know: how heapql parses anything. It only runs the
// binaries and reads their JSON (flattened by python3, a declared dependency).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/flat_json.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

bool on_path(const std::string& tool) {
  return run_command("command -v " + shell_quote(tool)).exit_code == 0;
}

std::string get(const FlatJson& json, const std::string& key) { return json_get(json, key); }

std::string get_or(const FlatJson& json, const std::string& key, const std::string& fallback) {
  const auto it = json.find(key);
  return it == json.end() ? fallback : it->second;
}

// Runs heapql with `args`; expects exit 0 and returns the flattened JSON.
FlatJson heapql_json(const std::string& args) {
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " " + args);
  EXPECT_EQ(r.exit_code, 0) << "heapql " << args << "\nstderr: " << r.err;
  if (r.exit_code != 0) return {};
  return flatten_json(r.out);
}

// heaptrack_print's exact whole-trace numbers for one file.
struct PrintNumbers {
  std::uint64_t calls = 0;        // "calls to allocation functions: N"
  std::uint64_t leaked = 0;       // Σ -F leaked, all suppressions off
  std::uint64_t peak = 0;         // Σ -F peak
  std::uint64_t total_bytes = 0;  // Σ SIZE×COUNT of -H
};

bool parse_u64(const std::string& text, std::uint64_t& value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  value = std::stoull(text);
  return true;
}

// Σ of the last space-separated field of every non-empty line of a -F file.
std::uint64_t sum_flamegraph_costs(const std::string& path) {
  std::istringstream lines(read_file(path));
  std::string line;
  std::uint64_t sum = 0, value = 0;
  int n = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const auto space = line.rfind(' ');
    if (space == std::string::npos || !parse_u64(line.substr(space + 1), value)) {
      ADD_FAILURE() << path << ": not a flamegraph line: " << line;
      continue;
    }
    sum += value;
    ++n;
  }
  EXPECT_GT(n, 0) << path << " has no lines";
  return sum;
}

// Σ SIZE×COUNT of a -H file ("SIZE<TAB>COUNT" per line).
std::uint64_t sum_histogram(const std::string& path) {
  std::istringstream lines(read_file(path));
  std::string line;
  std::uint64_t sum = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string size_text, count_text;
    std::uint64_t size = 0, count = 0;
    if (!(fields >> size_text >> count_text) || !parse_u64(size_text, size) || !parse_u64(count_text, count)) {
      ADD_FAILURE() << path << ": not a histogram line: " << line;
      continue;
    }
    sum += size * count;
  }
  return sum;
}

PrintNumbers heaptrack_print_numbers(const std::string& trace) {
  TempDir dir;
  PrintNumbers n;
  // Default options: the summary (calls), the peak column and the histogram.
  const CommandResult plain = run_command("heaptrack_print -F " + shell_quote(dir.file("peak")) +
                                          " --flamegraph-cost-type peak -H " + shell_quote(dir.file("hist")) + " " +
                                          shell_quote(trace));
  EXPECT_EQ(plain.exit_code, 0) << "heaptrack_print failed: " << plain.err;
  // Leaked with no suppressions at all: heapql suppresses nothing (§9).
  const CommandResult leaked = run_command(
      "heaptrack_print --disable-builtin-suppressions --disable-embedded-suppressions -F " +
      shell_quote(dir.file("leaked")) + " --flamegraph-cost-type leaked " + shell_quote(trace));
  EXPECT_EQ(leaked.exit_code, 0) << "heaptrack_print failed: " << leaked.err;

  const std::string prefix = "calls to allocation functions: ";
  std::istringstream lines(plain.out);
  std::string line;
  bool found = false;
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const std::string rest = line.substr(prefix.size());
    found = parse_u64(rest.substr(0, rest.find(' ')), n.calls);
  }
  EXPECT_TRUE(found) << "no '" << prefix << "N' line in heaptrack_print's output:\n" << plain.out;
  n.peak = sum_flamegraph_costs(dir.file("peak"));
  n.total_bytes = sum_histogram(dir.file("hist"));
  n.leaked = sum_flamegraph_costs(dir.file("leaked"));
  return n;
}

// The four whole-trace figures as heapql reports them.
struct HeapqlNumbers {
  std::string stc, so, st, peak;
  bool operator==(const HeapqlNumbers&) const = default;
};

std::ostream& operator<<(std::ostream& os, const HeapqlNumbers& n) {
  return os << "stc=" << n.stc << " so=" << n.so << " st=" << n.st << " peak=" << n.peak;
}

HeapqlNumbers heapql_numbers(const std::string& trace, const std::string& extra_args = "") {
  const FlatJson totals = heapql_json("query " + shell_quote(trace) + " --totals --format json " + extra_args);
  const FlatJson info = heapql_json("info " + shell_quote(trace) + " --format json " + extra_args);
  // query and info must agree with each other before either is compared.
  EXPECT_EQ(get(info, "summary.leaked.bytes"), get(totals, "totals.so"));
  EXPECT_EQ(get(info, "summary.blocks"), get(totals, "totals.stc"));
  EXPECT_EQ(get(info, "summary.total_allocated_bytes"), get(totals, "totals.st"));
  EXPECT_EQ(get(info, "summary.peak.bytes"), get(totals, "peak.bytes"));
  // heaptrack files do not mark reallocs: src is unavailable, not 0.
  EXPECT_EQ(get(totals, "totals.src"), "null");
  return {get(totals, "totals.stc"), get(totals, "totals.so"), get(totals, "totals.st"), get(info, "summary.peak.bytes")};
}

// The §9 check: heapql's whole-trace stc, so, st and peak equal heaptrack_print's.
HeapqlNumbers expect_matches_heaptrack_print(const std::string& label, const std::string& trace) {
  SCOPED_TRACE(label + ": " + trace);
  const PrintNumbers want = heaptrack_print_numbers(trace);
  const HeapqlNumbers got = heapql_numbers(trace);
  EXPECT_EQ(got.stc, std::to_string(want.calls)) << "stc vs heaptrack_print's calls to allocation functions";
  EXPECT_EQ(got.so, std::to_string(want.leaked)) << "so vs Σ -F leaked (suppressions off)";
  EXPECT_EQ(got.st, std::to_string(want.total_bytes)) << "st vs Σ SIZE×COUNT of -H";
  EXPECT_EQ(got.peak, std::to_string(want.peak)) << "peak vs Σ -F peak";
  // Shown in the test log so a run documents what was compared.
  std::cout << "[ numbers  ] " << label << ": heapql " << got << " | heaptrack_print calls=" << want.calls
            << " leaked(no suppr.)=" << want.leaked << " total=" << want.total_bytes << " peak=" << want.peak
            << std::endl;
  return got;
}

// heaptrack writes NAME.zst (zstd on PATH) or NAME.gz; never the raw twin here.
std::string find_trace(const TempDir& dir, const std::string& name) {
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    const std::string file = entry.path().filename().string();
    if (file == name + ".zst" || file == name + ".gz") return entry.path().string();
  }
  return {};
}

// Records `command` (already quoted) under heaptrack as DIR/NAME; returns the
// trace file, or "" after a failure.
std::string record_with_heaptrack(const TempDir& dir, const std::string& name, const std::string& env,
                                  const std::string& command) {
  const CommandResult r = run_command(env + " heaptrack -o " + shell_quote(dir.file(name)) + " " + command);
  EXPECT_EQ(r.exit_code, 0) << "heaptrack " << command << "\nstdout: " << r.out << "\nstderr: " << r.err;
  const std::string trace = find_trace(dir, name);
  EXPECT_FALSE(trace.empty()) << "heaptrack wrote no " << name << ".zst or " << name << ".gz in "
                              << dir.path() << "\nstdout: " << r.out << "\nstderr: " << r.err;
  return trace;
}

#define SKIP_WITHOUT(tool)                                                                    \
  if (!on_path(tool))                                                                         \
  GTEST_SKIP() << tool << " is not on PATH; this test records a real program with heaptrack " \
                          "(package heaptrack) and compares heapql with heaptrack_print"

#define SKIP_WITHOUT_HEAPTRACK() \
  SKIP_WITHOUT("heaptrack");     \
  SKIP_WITHOUT("heaptrack_print")

// A few thousand rows of random-ish text, an index, grouping, update, delete:
// sqlite3's own allocator paths (page cache, b-tree balancing, sorter).
constexpr const char* kSqlWorkload = R"SQL(
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, val REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000)
INSERT INTO t(name, grp, val)
  SELECT hex(randomblob(8 + x % 24)) || '-' || x, x % 37, x * 0.5 FROM c;
CREATE INDEX t_name ON t(name);
CREATE INDEX t_grp ON t(grp, val);
SELECT grp, count(*), sum(val), max(length(name)) FROM t GROUP BY grp ORDER BY 2 DESC LIMIT 5;
SELECT count(*) FROM t WHERE name LIKE 'A%';
SELECT group_concat(name, ',') IS NOT NULL FROM (SELECT name FROM t ORDER BY name LIMIT 200);
UPDATE t SET name = upper(name) || lower(name), val = val * 2 WHERE grp % 3 = 0;
DELETE FROM t WHERE grp % 5 = 1;
SELECT count(*), sum(length(name)) FROM t;
DROP INDEX t_grp;
SELECT a.grp, count(*) FROM t a JOIN t b ON a.grp = b.grp AND a.id BETWEEN b.id - 2 AND b.id + 2
  GROUP BY a.grp ORDER BY a.grp LIMIT 3;
)SQL";

TEST(RealProgram, SqliteMatchesHeaptrackPrint) {
  SKIP_WITHOUT_HEAPTRACK();
  SKIP_WITHOUT("sqlite3");
  TempDir dir;
  const std::string sql = dir.file("workload.sql");
  write_file(sql, kSqlWorkload);
  // `.read` rather than stdin: run_command gives the program /dev/null.
  const std::string trace =
      record_with_heaptrack(dir, "sqlite", "", "sqlite3 -batch :memory: " + shell_quote(".read " + sql));
  if (trace.empty()) return;
  expect_matches_heaptrack_print("sqlite3", trace);
}

// One line on purpose: heaptrack 1.4 writes the command line unescaped into
// the X record, so a multi-line -c script would spill into bogus records.
constexpr const char* kPythonWorkload =
    "import random; rnd = random.Random(7); "
    "keep = [len(','.join(str(rnd.randint(0, 10**9)) for _ in range(600)).split(',')) + "
    "len({'k%d' % i: [rnd.random() for _ in range(i % 7)] for i in range(600)}) for r in range(6)]; "
    "print(sum(keep))";

// `python3` may be a wrapper script (pyenv shim): heaptrack would trace the
// shell, not the exec'd interpreter, so the interpreter itself is recorded.
// Empty when it cannot be told.
std::string python_interpreter() {
  const CommandResult exe = run_command("python3 -c 'import sys; print(sys.executable)'");
  return exe.exit_code == 0 ? exe.out.substr(0, exe.out.find('\n')) : std::string();
}

TEST(RealProgram, PythonMatchesHeaptrackPrint) {
  SKIP_WITHOUT_HEAPTRACK();
  SKIP_WITHOUT("python3");
  const std::string python = python_interpreter();
  ASSERT_FALSE(python.empty()) << "python3 did not report sys.executable";
  TempDir dir;
  // PYTHONMALLOC=malloc: every object goes through malloc, not pymalloc's arenas.
  const std::string trace =
      record_with_heaptrack(dir, "python", "PYTHONMALLOC=malloc", shell_quote(python) + " -c " + shell_quote(kPythonWorkload));
  if (trace.empty()) return;
  expect_matches_heaptrack_print("python3", trace);
}

// Records the example with `heapql record` (NAME.zst, NAME.zst.hqid and the
// store; with `extra` "--keep-raw", NAME.raw.zst too); returns NAME.zst, or
// "" after a failure.
std::string record_example(const TempDir& dir, const std::string& extra = "") {
  const std::string name = dir.file("mta");
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " record " + extra + " -o " + shell_quote(name) +
                                      " -- " + shell_quote(example_binary()));
  EXPECT_EQ(r.exit_code, 0) << "heapql record failed\nstdout: " << r.out << "\nstderr: " << r.err;
  // The raw stream is kept only when asked for: the block-identity file holds what it adds.
  EXPECT_EQ(std::filesystem::exists(name + ".raw.zst"), extra == "--keep-raw") << r.err;
  EXPECT_TRUE(std::filesystem::exists(name + ".zst.hqid")) << r.err;
  if (!std::filesystem::exists(name + ".zst")) {
    ADD_FAILURE() << "heapql record wrote no " << name << ".zst\nstderr: " << r.err;
    return {};
  }
  // It ends by writing the store, and says so in its own words, not heaptrack's.
  EXPECT_TRUE(std::filesystem::exists(name + ".zst.hqdb")) << r.err;
  EXPECT_NE(r.err.find("heapql: wrote " + name + ".zst.hqdb ("), std::string::npos) << r.err;
  // How long after the program's end the store was ready (the issue's target: 1 s).
  const std::size_t ready = r.err.find("heapql record: the store was ready ");
  EXPECT_NE(ready, std::string::npos) << r.err;
  if (ready != std::string::npos) std::cout << "[ record   ] " << r.err.substr(ready, r.err.find('\n', ready) - ready) << std::endl;
  for (const char* chatter : {"Now run the following", "heaptrack_interpret", "heaptrack output will be written",
                              "libheaptrack_preload.so"}) {
    EXPECT_EQ(r.out.find(chatter), std::string::npos) << "heaptrack's own line came through: " << r.out;
    EXPECT_EQ(r.err.find(chatter), std::string::npos) << "heaptrack's own line came through: " << r.err;
  }
  return name + ".zst";
}

// The store written while the program ran is found fresh, and answers as
// `heapql ingest` of the same files afterwards does, byte for byte.
TEST(RealProgram, RecordedStoreEqualsALaterIngest) {
  SKIP_WITHOUT_HEAPTRACK();
  TempDir dir;
  const std::string trace = record_example(dir);
  if (trace.empty()) return;
  const std::string store = trace + ".hqdb";
  const auto written = std::filesystem::last_write_time(store);
  const FlatJson info = heapql_json("info " + shell_quote(trace) + " --format json");
  EXPECT_EQ(get(info, "store_file.path"), store) << "the recorded store was not found fresh";
  EXPECT_EQ(std::filesystem::last_write_time(store), written) << "the store was written again";
  const CommandResult live = run_command(shell_quote(heapql_binary()) + " query " + shell_quote(store) +
                                         " --by frame --format json");
  ASSERT_EQ(live.exit_code, 0) << live.err;
  const std::string later_store = dir.file("later.hqdb");
  const CommandResult ingest = run_command(shell_quote(heapql_binary()) + " ingest " + shell_quote(trace) + " -o " +
                                           shell_quote(later_store));
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  const CommandResult later = run_command(shell_quote(heapql_binary()) + " query " + shell_quote(later_store) +
                                          " --by frame --format json");
  ASSERT_EQ(later.exit_code, 0) << later.err;
  EXPECT_EQ(live.out, later.out);
  const FlatJson live_info = heapql_json("info " + shell_quote(store) + " --format json");
  const FlatJson later_info = heapql_json("info " + shell_quote(later_store) + " --format json");
  std::size_t sources = 0;
  for (const auto& [key, value] : live_info) {
    if (key.starts_with("store_file.path") || key.starts_with("store_file.file_bytes") ||
        key.starts_with("store_file.sections")) {
      continue;
    }
    sources += key.starts_with("store_file.ingested_from") ? 1 : 0;
    EXPECT_EQ(get_or(later_info, key, "(missing)"), value) << key;
  }
  EXPECT_GT(sources, 0u) << "info reported no sources";
  EXPECT_EQ(get(live_info, "files.1"), trace + ".hqid") << "read with the block-identity file, not the raw twin";
  EXPECT_EQ(get(live_info, "trace.block_identity"), "exact");
  EXPECT_TRUE(read_file(store) == read_file(later_store)) << "the two stores differ in their bytes";
}

// --keep-raw keeps heaptrack's raw stream, a whole zstd file that reads as
// the recording's raw twin: the same answers with it as with the
// block-identity file.
TEST(RealProgram, RecordKeepsTheRawStreamWhenAsked) {
  SKIP_WITHOUT_HEAPTRACK();
  TempDir dir;
  const std::string trace = record_example(dir, "--keep-raw");
  if (trace.empty()) return;
  const std::string raw = dir.file("mta.raw.zst");
  EXPECT_EQ(run_command("zstd -q -t " + shell_quote(raw)).exit_code, 0) << "not a whole zstd file: " << raw;
  const CommandResult with_identity = run_command(shell_quote(heapql_binary()) + " query " + shell_quote(trace) +
                                                  " --by frame --format json --no-store");
  ASSERT_EQ(with_identity.exit_code, 0) << with_identity.err;
  std::filesystem::remove(trace + ".hqid");
  const CommandResult with_raw = run_command(shell_quote(heapql_binary()) + " query " + shell_quote(trace) +
                                             " --by frame --format json --no-store");
  ASSERT_EQ(with_raw.exit_code, 0) << with_raw.err;
  EXPECT_EQ(with_identity.out, with_raw.out);
  const FlatJson info = heapql_json("info " + shell_quote(trace) + " --format json --no-store");
  EXPECT_EQ(get(info, "trace.block_identity"), "exact") << "the raw twin was not used";
}

// heaptrack_interpret failing (here `false`, which reads nothing and exits
// 1): exit 4, the reason with its status, and no half-written interpreted
// file or store left.
TEST(RealProgram, RecordSaysWhenSymbolizingFails) {
  SKIP_WITHOUT_HEAPTRACK();
  TempDir dir;
  const std::string name = dir.file("mta");
  const CommandResult r = run_command("HEAPQL_HEAPTRACK_INTERPRET=false " + shell_quote(heapql_binary()) + " record -o " +
                                      shell_quote(name) + " -- " + shell_quote(example_binary()));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("heapql record: heaptrack_interpret failed (exit status 1)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(name + ".zst"));
  EXPECT_FALSE(std::filesystem::exists(name + ".zst.hqid"));
  EXPECT_FALSE(std::filesystem::exists(name + ".zst.hqdb"));
}

// Runs `heapql ARGS...` in a process group of its own (as a shell's
// foreground job), its output in DIR/out and DIR/err; returns its pid.
pid_t start_heapql(const TempDir& dir, const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    ::setsid();
    ::signal(SIGINT, SIG_DFL);
    if (!::freopen(dir.file("out").c_str(), "w", stdout) || !::freopen(dir.file("err").c_str(), "w", stderr)) {
      ::_exit(126);
    }
    const std::string binary = heapql_binary();
    std::vector<char*> argv{const_cast<char*>(binary.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

bool wait_for_file(const std::string& path) {
  for (int i = 0; i < 600 && !std::filesystem::exists(path); ++i) ::usleep(50'000);
  return std::filesystem::exists(path);
}

// The exit code of a heapql started by start_heapql; -1 (with a failure) when a signal killed it.
int wait_heapql(pid_t pid, const std::string& err) {
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "heapql record died of signal " << WTERMSIG(status) << "\n" << err;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The store of a recording that ended before its program's own end: found
// fresh, its counts heaptrack_print's for the NAME.zst beside it.
void expect_complete_store(const std::string& trace, const std::string& err) {
  EXPECT_NE(err.find("heapql: wrote " + trace + ".hqdb ("), std::string::npos) << err;
  const FlatJson info = heapql_json("info " + shell_quote(trace) + " --format json");
  EXPECT_EQ(get(info, "store_file.path"), trace + ".hqdb") << "the recorded store was not found fresh";
  EXPECT_EQ(get(info, "trace.block_identity"), "exact");
  const HeapqlNumbers got = expect_matches_heaptrack_print(trace, trace);
  EXPECT_NE(got.stc, "0");
}

// A Ctrl-C at the terminal ends the recorded program (it reaches the whole
// foreground process group): `heapql record` and heaptrack_interpret (in a
// group of its own) outlive it, and the store of what was recorded is
// complete. heapql died of the signal once, leaving an empty raw file.
// Before that, the recording in progress is read as it is.
TEST(RealProgram, RecordKeepsTheRecordingWhenCtrlCEndsTheProgram) {
  SKIP_WITHOUT_HEAPTRACK();
  SKIP_WITHOUT("python3");
  const std::string python = python_interpreter();
  ASSERT_FALSE(python.empty()) << "python3 did not report sys.executable";
  TempDir dir;
  const std::string name = dir.file("interrupted");
  const std::string started = dir.file("started");
  const std::string program = "import time; keep = [bytearray(1000) for i in range(2000)]; open(" + std::string("'") +
                              started + "', 'w').close(); time.sleep(120)";
  const pid_t pid = start_heapql(dir, {"record", "-o", name, "--", python, "-c", program});
  ASSERT_GE(pid, 0);
  ASSERT_TRUE(wait_for_file(started)) << read_file(dir.file("err"));
  // While it runs, NAME.zst is a readable prefix: a zstd block is flushed
  // at least every second; heapql answers from it with the cut warning,
  // and heaptrack_print reads it too. The flush after the program's 2000
  // blocks comes within about 1.25 s (the copier wakes every 250 ms); on a
  // loaded machine (ctest -j2 beside a build) 1.5 s once saw 620 of them,
  // so the prefix is asked for again until it holds them, for up to 15 s
  // (before the first flush the file is empty, or holds only the start of
  // its first frame, which heapql refuses: nothing complete to answer).
  CommandResult so_far;
  std::uint64_t blocks_so_far = 0;
  for (int tries = 0; tries < 30 && blocks_so_far < 2000; ++tries) {
    ::usleep(500'000);
    so_far = run_command(shell_quote(heapql_binary()) + " query " + shell_quote(name + ".zst") +
                         " --totals --no-store --format json");
    if (so_far.exit_code != 0 && (so_far.err.find(": empty file") != std::string::npos ||
                                  so_far.err.find("nothing complete remains to answer") != std::string::npos)) {
      continue;
    }
    ASSERT_EQ(so_far.exit_code, 0) << so_far.err;
    EXPECT_NE(so_far.err.find("the trace ends early"), std::string::npos) << so_far.err;
    blocks_so_far = std::stoull("0" + get(flatten_json(so_far.out), "totals.stc"));
  }
  EXPECT_GE(blocks_so_far, 2000u) << so_far.out;
  const CommandResult printed = run_command("heaptrack_print " + shell_quote(name + ".zst"));
  EXPECT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_NE(printed.out.find("calls to allocation functions: "), std::string::npos) << printed.out;
  // And a query as a user asks it answers from the live journal, exactly
  // (the journal holds what the store will): it says how far it has come.
  const CommandResult live = run_command(shell_quote(heapql_binary()) + " query " + shell_quote(name + ".zst") +
                                         " --totals --format json");
  EXPECT_EQ(live.exit_code, 0) << live.err;
  EXPECT_NE(live.err.find("recording in progress, up to "), std::string::npos) << live.err;
  const FlatJson live_json = flatten_json(live.out);
  EXPECT_NE(get_or(live_json, "trace.recording_in_progress.up_to_ns", ""), "") << live.out;
  EXPECT_EQ(get(live_json, "trace.block_identity"), "exact") << live.out;
  EXPECT_EQ(get(live_json, "trace.time_resolution_ns"), "1000000") << live.out;  // heaptrack's, as the store says
  EXPECT_GE(std::stoull("0" + get(live_json, "totals.stc")), 2000u) << live.out;
  ASSERT_EQ(::killpg(pid, SIGINT), 0);  // what the terminal does on Ctrl-C
  const int code = wait_heapql(pid, read_file(dir.file("err")));
  const std::string err = read_file(dir.file("err"));
  EXPECT_EQ(code, 0) << err;
  EXPECT_NE(err.find("the program exited with status 130"), std::string::npos) << err;
  expect_complete_store(name + ".zst", err);
  EXPECT_FALSE(std::filesystem::exists(name + ".zst.hqlive")) << "the live journal outlived the store";
}

// The views `heapql top` printed: each starts with its "heapql top: TRACE: "
// line (stdout is no terminal, so they follow one another).
std::vector<std::string> top_views(const std::string& out) {
  std::vector<std::string> views;
  for (std::size_t at = out.find("heapql top: "); at != std::string::npos;) {
    const std::size_t next = out.find("\nheapql top: ", at);
    views.push_back(out.substr(at, next == std::string::npos ? std::string::npos : next + 1 - at));
    at = next == std::string::npos ? next : next + 1;
  }
  return views;
}

// The last view is the finished recording's, from its store: the answer of
// `heapql query TRACE --by stack --top N`, word for word.
void expect_last_top_view_is_the_store(const std::vector<std::string>& views, const std::string& trace,
                                       const std::string& top) {
  ASSERT_FALSE(views.empty());
  const std::string& last = views.back();
  EXPECT_NE(last.find(trace + ": the recording is over"), std::string::npos) << last;
  const CommandResult query = run_command(shell_quote(heapql_binary()) + " query " + shell_quote(trace) +
                                          " --by stack --no-progress --top " + top);
  ASSERT_EQ(query.exit_code, 0) << query.err;
  EXPECT_NE(last.find("\n\n" + query.out), std::string::npos) << "last view:\n" << last << "\nquery:\n" << query.out;
  EXPECT_EQ(query.err, "") << "the store did not answer";
}

const char* const kSlowAllocations =
    "import time\nkeep = []\nfor i in range(30):\n    keep.append(bytearray(100000 + i))\n"
    "    junk = [bytes(64 + j % 100) for j in range(1000)]\n    time.sleep(0.1)\n";

// `heapql top -- PROGRAM`: records the program and shows its top stacks
// while it runs, then the whole recording's.
TEST(RealProgram, TopRecordsAProgramAndShowsItUntilItEnds) {
  SKIP_WITHOUT_HEAPTRACK();
  SKIP_WITHOUT("python3");
  const std::string python = python_interpreter();
  ASSERT_FALSE(python.empty());
  TempDir dir;
  const std::string name = dir.file("topped");
  const CommandResult r = run_command("PYTHONMALLOC=malloc " + shell_quote(heapql_binary()) +
                                      " top --interval 300ms --top 2 -o " + shell_quote(name) + " -- " +
                                      shell_quote(python) + " -c " + shell_quote(kSlowAllocations));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> views = top_views(r.out);
  ASSERT_GE(views.size(), 3u) << r.out;
  std::size_t live = 0;
  for (const std::string& view : views) live += view.find(": recording in progress, up to ") != std::string::npos;
  EXPECT_GE(live, 2u) << r.out;
  expect_last_top_view_is_the_store(views, name + ".zst", "2");
  // The recording's own messages went to its log, not over the view.
  EXPECT_NE(read_file(name + ".log").find("heapql: wrote " + name + ".zst.hqdb"), std::string::npos);
  EXPECT_NE(r.err.find(name + ".log"), std::string::npos) << r.err;
}

// `heapql top TRACE` watches a recording another `heapql record` makes,
// until it ends.
TEST(RealProgram, TopWatchesARecordingInProgress) {
  SKIP_WITHOUT_HEAPTRACK();
  SKIP_WITHOUT("python3");
  const std::string python = python_interpreter();
  ASSERT_FALSE(python.empty());
  TempDir dir;
  const std::string name = dir.file("watched");
  ::setenv("PYTHONMALLOC", "malloc", 1);
  const pid_t recorder = start_heapql(dir, {"record", "-o", name, "--", python, "-c", kSlowAllocations});
  ::unsetenv("PYTHONMALLOC");
  ASSERT_GE(recorder, 0);
  ASSERT_TRUE(wait_for_file(name + ".zst.hqlive")) << read_file(dir.file("err"));
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " top --interval 300ms --top 1 " +
                                      shell_quote(name + ".zst"));
  EXPECT_EQ(wait_heapql(recorder, read_file(dir.file("err"))), 0) << read_file(dir.file("err"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> views = top_views(r.out);
  ASSERT_GE(views.size(), 2u) << r.out;
  EXPECT_NE(views.front().find(": recording in progress, up to "), std::string::npos) << views.front();
  expect_last_top_view_is_the_store(views, name + ".zst", "1");
}

// A program that crashes (abort()) leaves a complete store of what it did.
TEST(RealProgram, RecordOfAProgramThatCrashesIsComplete) {
  SKIP_WITHOUT_HEAPTRACK();
  SKIP_WITHOUT("python3");
  const std::string python = python_interpreter();
  ASSERT_FALSE(python.empty());
  TempDir dir;
  const std::string name = dir.file("crashed");
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " record -o " + shell_quote(name) + " -- " +
                                      shell_quote(python) + " -c " +
                                      shell_quote("import os; keep = [bytearray(1000) for i in range(3000)]; os.abort()"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("the program exited with status 134"), std::string::npos) << r.err;
  expect_complete_store(name + ".zst", r.err);
}

// --pid attaches to a running process (gdb injects heaptrack's library, as
// `heaptrack -p` does); heapql's Ctrl-C stops the recording, the process
// runs on, and the store is complete.
TEST(RealProgram, RecordAttachesToARunningProcess) {
  SKIP_WITHOUT_HEAPTRACK();
  SKIP_WITHOUT("python3");
  SKIP_WITHOUT("gdb");
  const std::string python = python_interpreter();
  ASSERT_FALSE(python.empty());
  TempDir dir;
  const std::string name = dir.file("attached");
  const pid_t target = fork();
  ASSERT_GE(target, 0);
  if (target == 0) {
    ::execl(python.c_str(), python.c_str(), "-c",
            "import time\nkeep = []\nwhile True:\n    keep.append(bytearray(100))\n    keep = keep[-500:]\n"
            "    time.sleep(0.0005)\n",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::usleep(300'000);
  const pid_t heapql = start_heapql(dir, {"record", "--pid", std::to_string(target), "-o", name});
  bool recording = false;
  for (int i = 0; i < 400 && !recording; ++i) {
    recording = read_file(dir.file("err")).find("Ctrl-C stops the recording") != std::string::npos;
    if (!recording) ::usleep(50'000);
  }
  EXPECT_TRUE(recording) << read_file(dir.file("err"));
  ::usleep(1'000'000);
  ::kill(heapql, SIGINT);
  const int code = wait_heapql(heapql, read_file(dir.file("err")));
  const std::string err = read_file(dir.file("err"));
  EXPECT_EQ(code, 0) << err;
  EXPECT_EQ(::kill(target, 0), 0) << "the process did not outlive the recording";
  ::kill(target, SIGKILL);
  ::waitpid(target, nullptr, 0);
  expect_complete_store(name + ".zst", err);
  const FlatJson info = heapql_json("info " + shell_quote(name + ".zst") + " --format json");
  EXPECT_EQ(get(info, "heaptrack.attached"), "true");
}

// A --pid that is no process id, or names no process: said, naming it.
TEST(RealProgram, RecordRefusesABadPid) {
  TempDir dir;
  const CommandResult word = run_command(shell_quote(heapql_binary()) + " record --pid abc -o " +
                                         shell_quote(dir.file("x")));
  EXPECT_EQ(word.exit_code, 3) << word.err;
  EXPECT_NE(word.err.find("--pid takes a process id (a whole number above 0), not 'abc'"), std::string::npos)
      << word.err;
  // A process that has just ended: its pid names none (for now).
  const pid_t gone = fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  const CommandResult none = run_command(shell_quote(heapql_binary()) + " record --pid " + std::to_string(gone) +
                                         " -o " + shell_quote(dir.file("x")));
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find("heapql record: cannot attach to process " + std::to_string(gone) +
                          ": there is no such process"),
            std::string::npos)
      << none.err;
  const CommandResult both = run_command(shell_quote(heapql_binary()) + " record --pid 1 -- true");
  EXPECT_EQ(both.exit_code, 3) << both.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.zst")));
}

// gdb missing, or gdb failing to attach (ptrace refused, played by a
// stand-in gdb): said naming the PID, exit 2, nothing left behind, and no
// wait for a recording that cannot come.
TEST(RealProgram, RecordSaysWhenItCannotAttach) {
  SKIP_WITHOUT_HEAPTRACK();
  TempDir dir;
  const pid_t target = fork();
  ASSERT_GE(target, 0);
  if (target == 0) {
    ::execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const std::string pid = std::to_string(target);
  const std::string name = dir.file("x");
  std::filesystem::create_directory(dir.file("empty"));
  const CommandResult no_gdb = run_command("PATH=" + shell_quote(dir.file("empty")) + " " +
                                           shell_quote(heapql_binary()) + " record --pid " + pid + " -o " +
                                           shell_quote(name));
  EXPECT_EQ(no_gdb.exit_code, 2) << no_gdb.err;
  EXPECT_NE(no_gdb.err.find("heapql record: cannot attach to process " + pid + ": gdb is not installed"),
            std::string::npos)
      << no_gdb.err;
  std::filesystem::create_directory(dir.file("bin"));
  write_file(dir.file("bin/gdb"), "#!/bin/sh\necho 'ptrace: Operation not permitted.' >&2\nexit 1\n");
  std::filesystem::permissions(dir.file("bin/gdb"), std::filesystem::perms::owner_all);
  const CommandResult refused = run_command("PATH=" + shell_quote(dir.file("bin")) + ":\"$PATH\" " +
                                            shell_quote(heapql_binary()) + " record --pid " + pid + " -o " +
                                            shell_quote(name));
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("heapql record: cannot attach to process " + pid +
                             ": gdb failed (exit status 1): ptrace: Operation not permitted."),
            std::string::npos)
      << refused.err;
  for (const char* suffix : {".zst", ".zst.hqid", ".zst.hqdb", ".raw.zst"}) {
    EXPECT_FALSE(std::filesystem::exists(name + suffix)) << name + suffix;
  }
  ::kill(target, SIGKILL);
  ::waitpid(target, nullptr, 0);
}

// A program that cannot be run is said so, exit 4.
TEST(RealProgram, RecordSaysWhenTheProgramCannotRun) {
  SKIP_WITHOUT_HEAPTRACK();
  TempDir dir;
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " record -o " + shell_quote(dir.file("x")) +
                                      " -- " + shell_quote(dir.file("no-such-program")));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("heapql record: cannot run " + dir.file("no-such-program") +
                       " (exit status 127: not found, or not executable)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.zst")));
}

TEST(RealProgram, ExampleRecordedByHeapqlMatchesHeaptrackPrint) {
  SKIP_WITHOUT_HEAPTRACK();
  TempDir dir;
  const std::string trace = record_example(dir);
  if (trace.empty()) return;

  const FlatJson info = heapql_json("info " + shell_quote(trace) + " --format json");
  EXPECT_EQ(get(info, "trace.block_identity"), "exact") << "the block-identity file was not used";
  EXPECT_EQ(get(info, "store_file.path"), trace + ".hqdb") << "answered from the store record wrote";
  EXPECT_EQ(get(info, "trace.format"), "raw+interpreted");
  EXPECT_EQ(get(info, "summary.anomalies.unmatched_frees"), "0");
  EXPECT_EQ(get(info, "summary.anomalies.alloc_over_live"), "0");

  const HeapqlNumbers exact = expect_matches_heaptrack_print("memory_test_app", trace);
  // README ground truth at --scale 1, so a wrong oracle cannot pass silently.
  EXPECT_EQ(exact.stc, "20261");
  EXPECT_EQ(exact.so, "21771520");
  EXPECT_EQ(exact.st, "123165114");
  EXPECT_EQ(exact.peak, "31764224");

  // Without the raw twin frees are paired bucket-lifo; whole-trace figures
  // do not depend on the pairing (semantics.md §1).
  const FlatJson info_no_raw = heapql_json("info " + shell_quote(trace) + " --format json --no-raw");
  EXPECT_EQ(get(info_no_raw, "trace.block_identity"), "bucket-lifo");
  const HeapqlNumbers lifo = heapql_numbers(trace, "--no-raw");
  EXPECT_EQ(lifo, exact);
}

TEST(RealProgram, ExamplePlantedFactsByFrame) {
  SKIP_WITHOUT_HEAPTRACK();
  TempDir dir;
  const std::string trace = record_example(dir);
  if (trace.empty()) return;
  const std::string f = "rows.memory_test_app!";

  for (const std::string mode : {"", "--no-raw"}) {
    SCOPED_TRACE("heapql query --by frame " + mode);
    const FlatJson whole = heapql_json("query " + shell_quote(trace) + " --by frame --format json " + mode);
    EXPECT_EQ(get(whole, f + "InnerLoopOperation().so"), "800000");
    EXPECT_EQ(get(whole, f + "InnerLoopOperation().soc"), "20000");
    EXPECT_EQ(get(whole, f + "ManipulateTemporaryBuffer().st"), "100000000");
    EXPECT_EQ(get(whole, f + "ManipulateTemporaryBuffer().stc"), "10");
    EXPECT_EQ(get(whole, f + "ManipulateTemporaryBuffer().so"), "0");
    EXPECT_EQ(get(whole, f + "AllocateSteadyState().so"), "10485760");
    EXPECT_EQ(get(whole, f + "AllocateSteadyState().soc"), "10");
    EXPECT_EQ(get(whole, f + "GrowSteadyState().so"), "10485760");

    // GrowSteadyState runs at t ≈ 1,350 ms of a 2.6 s run; AllocateSteadyState
    // at t ≈ 0. A window from 1.2 s on (150 ms of slack for heaptrack's coarse
    // clock) sees the first and not the second.
    const FlatJson late = heapql_json("query " + shell_quote(trace) + " --by frame --format json --window 1.2s.. " + mode);
    EXPECT_EQ(get(late, "window.start_ns"), "1200000000");
    EXPECT_EQ(get(late, f + "GrowSteadyState().so"), "10485760");
    EXPECT_EQ(get(late, f + "GrowSteadyState().soc"), "10");
    EXPECT_EQ(get_or(late, f + "AllocateSteadyState().so", "0"), "0");
  }
}

}  // namespace
}  // namespace heapql::test
