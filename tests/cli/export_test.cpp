// `heapql export` (docs/export.md): real SQL on the SQLite tables gives
// heapql's own totals and its top leak by stack; the CSV and JSON-lines
// folders hold the same rows; bad targets fail cleanly and leave nothing.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/etw_scenarios.h"
#include "tests/support/flat_json.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

const std::string kExample = example_trace();
const std::string kExampleRaw = std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.raw.zst";

// The first column of every row of `sql`, as text (NULL as "NULL").
std::vector<std::string> query_db(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> out;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sqlite3_errmsg(db) << ": " << sql;
  while (statement != nullptr && sqlite3_step(statement) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(statement, 0);
    out.push_back(text ? reinterpret_cast<const char*>(text) : "NULL");
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return out;
}

std::string one(const std::string& db, const std::string& sql) {
  const std::vector<std::string> rows = query_db(db, sql);
  EXPECT_EQ(rows.size(), 1u) << sql;
  return rows.empty() ? "" : rows[0];
}

class Export : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::copy_file(kExample, trace_);
    fs::copy_file(kExampleRaw, dir_.file("app.raw.zst"));
  }
  TempDir dir_;
  std::string trace_ = dir_.file("app.zst");
};

TEST_F(Export, SqlOnTheSqliteTablesGivesHeapqlsTotals) {
  const std::string db = dir_.file("app.db");
  const CommandResult r = run_heapql("export " + shell_quote(trace_) + " --to sqlite " + shell_quote(db));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FlatJson info = flatten_json(run_heapql("info " + shell_quote(trace_) + " --format json").out);
  EXPECT_EQ(one(db, "SELECT COUNT(*) FROM blocks"), json_get(info, "summary.blocks"));
  EXPECT_EQ(one(db, "SELECT SUM(size) FROM blocks"), json_get(info, "summary.total_allocated_bytes"));
  EXPECT_EQ(one(db, "SELECT SUM(size) FROM blocks WHERE free_ns IS NULL"), json_get(info, "summary.leaked.bytes"));
  EXPECT_EQ(one(db, "SELECT COUNT(*) FROM blocks WHERE free_ns IS NULL"), json_get(info, "summary.leaked.blocks"));
  EXPECT_EQ(one(db, "SELECT COUNT(*) FROM blocks WHERE temporary = 1"), json_get(info, "summary.temporary"));
  EXPECT_EQ(one(db, "SELECT leaked_bytes FROM trace"), json_get(info, "summary.leaked.bytes"));
  EXPECT_EQ(one(db, "SELECT peak_bytes FROM trace"), json_get(info, "summary.peak.bytes"));
  EXPECT_EQ(one(db, "SELECT block_identity FROM trace"), "exact");

  // The top leak by full stack, in SQL and in heapql (no cull: a stack id is a full stack).
  // Its CSV's first row: the stack's frames joined by ';', top first, then so.
  const std::string csv =
      run_heapql("query " + shell_quote(trace_) + " --by stack --no-default-cull --top 1 --format csv").out;
  const std::string first_row = csv.substr(csv.find('\n') + 1);
  const std::string top_frame = first_row.substr(0, first_row.find(';'));
  const std::string after_stack = first_row.substr(first_row.find(',') + 1);
  const std::string top_so = after_stack.substr(0, after_stack.find(','));
  EXPECT_EQ(one(db, "SELECT SUM(size) AS so FROM blocks WHERE free_ns IS NULL GROUP BY stack_id ORDER BY so DESC "
                    "LIMIT 1"),
            top_so);
  // Its top frame, through the stack_frames and frames tables.
  EXPECT_EQ(one(db, "SELECT f.text FROM stack_frames s JOIN frames f ON f.frame_id = s.frame_id WHERE s.depth = 0 "
                    "AND s.stack_id = (SELECT stack_id FROM blocks WHERE free_ns IS NULL GROUP BY stack_id "
                    "ORDER BY SUM(size) DESC LIMIT 1)"),
            top_frame);
  // Every frame's module is a module; every stack row's frame is a frame; the indexes exist.
  EXPECT_EQ(one(db, "SELECT COUNT(*) FROM frames WHERE module_id NOT IN (SELECT module_id FROM modules)"), "0");
  EXPECT_EQ(one(db, "SELECT COUNT(*) FROM stack_frames WHERE frame_id NOT IN (SELECT frame_id FROM frames)"), "0");
  EXPECT_EQ(one(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'blocks'"), "2");
}

TEST_F(Export, CsvAndJsonLinesHoldTheSameRows) {
  const std::string db = dir_.file("app.db");
  ASSERT_EQ(run_heapql("export " + shell_quote(trace_) + " --to sqlite " + shell_quote(db)).exit_code, 0);
  ASSERT_EQ(run_heapql("export " + shell_quote(trace_) + " --to csv " + shell_quote(dir_.file("csv"))).exit_code, 0);
  ASSERT_EQ(run_heapql("export " + shell_quote(trace_) + " --to jsonl " + shell_quote(dir_.file("jsonl"))).exit_code, 0);
  for (const char* table : {"trace", "modules", "frames", "stack_nodes", "stack_frames", "blocks"}) {
    const std::string rows = one(db, std::string("SELECT COUNT(*) FROM ") + table);
    const auto lines = [](const std::string& path) {
      std::ifstream in(path);
      std::size_t n = 0;
      for (std::string line; std::getline(in, line);) ++n;
      return n;
    };
    EXPECT_EQ(std::to_string(lines(dir_.file("csv/") + table + ".csv") - 1), rows) << table << ".csv (less its header)";
    EXPECT_EQ(std::to_string(lines(dir_.file("jsonl/") + table + ".jsonl")), rows) << table << ".jsonl";
  }
  const std::string csv = read_file(dir_.file("csv/blocks.csv"));
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "block_id,alloc_ns,free_ns,size,stack_id,pid,heap,thread,kind,is_realloc,temporary");
  const std::string jsonl = read_file(dir_.file("jsonl/trace.jsonl"));
  EXPECT_NE(jsonl.find("\"block_identity\":\"exact\""), std::string::npos) << jsonl;
}

// NULL where the source has no such thing (docs/export.md): heaptrack records
// no heaps, and this file's name (not heaptrack.<program>.<pid>.zst) no pid.
TEST_F(Export, PidAndHeapAreNullWhereTheSourceHasNone) {
  const std::string db = dir_.file("app.db");
  ASSERT_EQ(run_heapql("export " + shell_quote(trace_) + " --to sqlite " + shell_quote(db)).exit_code, 0);
  EXPECT_EQ(one(db, "SELECT COUNT(*) FROM blocks WHERE pid IS NOT NULL OR heap IS NOT NULL"), "0");
  EXPECT_NE(one(db, "SELECT COUNT(*) FROM blocks"), "0");
  // heaptrack's own name for a file carries the pid.
  const std::string named = dir_.file("heaptrack.memory_test_app.4242.zst");
  fs::copy_file(kExample, named);
  const std::string named_db = dir_.file("named.db");
  ASSERT_EQ(run_heapql("export " + shell_quote(named) + " --no-raw --to sqlite " + shell_quote(named_db)).exit_code, 0);
  EXPECT_EQ(one(named_db, "SELECT DISTINCT pid FROM blocks"), "4242");
  EXPECT_EQ(one(named_db, "SELECT COUNT(*) FROM blocks WHERE heap IS NOT NULL"), "0");
}

// An event CSV: a hex heap's handle is the source's; the default heap and a
// named heap have none (a named heap's handle is heapql's own numbering); a
// bare process name has no pid.
TEST_F(Export, EventCsvHandlesAndPidsAreTheSources) {
  const std::string csv = dir_.file("events.csv");
  write_file(csv,
             "time,event,process,thread,heap,address,size,old_address,stack\n"
             "0,alloc,demo (4242),1,0x1A0000,0x10,8,,demo!main\n"
             "1,alloc,demo (4242),1,,0x20,16,,demo!main\n"
             "2,alloc,demo (4242),1,arena,0x30,32,,demo!main\n"
             "3,alloc,other,1,default,0x40,64,,demo!main\n");
  const std::string out = dir_.file("csv-out");
  ASSERT_EQ(run_heapql("export " + shell_quote(csv) + " --to csv " + shell_quote(out)).exit_code, 0);
  const std::string blocks = read_file(out + "/blocks.csv");
  std::vector<std::string> pid_heap;  // "size:pid:heap" a row
  std::istringstream lines(blocks.substr(blocks.find('\n') + 1));
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    if (line.ends_with(',')) cells.emplace_back();
    ASSERT_EQ(cells.size(), 11u) << line;
    pid_heap.push_back(cells[3] + ":" + cells[5] + ":" + cells[6]);
  }
  std::sort(pid_heap.begin(), pid_heap.end());
  EXPECT_EQ(pid_heap, (std::vector<std::string>{"16:4242:", "32:4242:", "64::", "8:4242:1703936"})) << blocks;
}

// ETW (a SYNTHETIC trace, tests/support/etw_scenarios.h): a heap's handle is
// the source's; the VirtualAlloc pseudo heap has none.
TEST_F(Export, EtwHeapHandlesAreTheSourcesAndVirtualAllocHasNone) {
  const std::string etl = dir_.file("MemoryTestApp.etl");
  const MemoryTestAppTrace trace = write_memory_test_app(etl);
  const std::string db = dir_.file("etl.db");
  ASSERT_EQ(run_heapql("export " + shell_quote(etl) + " --to sqlite " + shell_quote(db)).exit_code, 0);
  ASSERT_NE(trace.heap, 0u);
  EXPECT_EQ(one(db, "SELECT group_concat(DISTINCT heap) FROM blocks WHERE kind = 'heap'"), std::to_string(trace.heap));
  EXPECT_EQ(one(db, "SELECT COUNT(*) FROM blocks WHERE kind = 'virtual' AND heap IS NOT NULL"), "0");
  EXPECT_NE(one(db, "SELECT COUNT(*) FROM blocks WHERE kind = 'virtual'"), "0");
  EXPECT_EQ(one(db, "SELECT group_concat(DISTINCT pid) FROM blocks"), std::to_string(trace.pid));
}

TEST_F(Export, FromAStoreAsFromTheTrace) {
  ASSERT_EQ(run_heapql("export " + shell_quote(trace_) + " --to csv " + shell_quote(dir_.file("a"))).exit_code, 0);
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace_) + " -o " + shell_quote(dir_.file("app.hqdb"))).exit_code, 0);
  ASSERT_EQ(run_heapql("export " + shell_quote(dir_.file("app.hqdb")) + " --to csv " + shell_quote(dir_.file("b"))).exit_code,
            0);
  for (const char* table : {"trace", "modules", "frames", "stack_nodes", "stack_frames", "blocks"}) {
    EXPECT_EQ(read_file(dir_.file("a/") + table + ".csv"), read_file(dir_.file("b/") + table + ".csv")) << table;
  }
}

TEST_F(Export, BadTargetsFailAndLeaveNothing) {
  fs::create_directory(dir_.file("full"));
  write_file(dir_.file("full/x"), "x");
  const CommandResult taken = run_heapql("export " + shell_quote(trace_) + " --to csv " + shell_quote(dir_.file("full")));
  EXPECT_EQ(taken.exit_code, 2);
  EXPECT_NE(taken.err.find(dir_.file("full") + ": exists and is not an empty folder"), std::string::npos) << taken.err;
  const CommandResult nowhere =
      run_heapql("export " + shell_quote(trace_) + " --to sqlite " + shell_quote(dir_.file("missing/app.db")));
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_NE(nowhere.err.find(dir_.file("missing/app.db")), std::string::npos) << nowhere.err;
#ifndef _WIN32  // no FIFOs on Windows
  // Renamed over the path given, a database would replace a pipe or device there.
  ASSERT_EQ(::mkfifo(dir_.file("pipe").c_str(), 0600), 0);
  const CommandResult pipe =
      run_heapql("export " + shell_quote(trace_) + " --to sqlite " + shell_quote(dir_.file("pipe")));
  EXPECT_EQ(pipe.exit_code, 2);
  EXPECT_NE(pipe.err.find(dir_.file("pipe") + ": is a device, pipe or socket, not a file"), std::string::npos)
      << pipe.err;
  EXPECT_TRUE(fs::is_fifo(dir_.file("pipe")));
#endif
  const CommandResult bad_kind = run_heapql("export " + shell_quote(trace_) + " --to parquet x");
  EXPECT_EQ(bad_kind.exit_code, 3);
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir_.path())) left.push_back(entry.path().filename().string());
  std::sort(left.begin(), left.end());
#ifdef _WIN32
  EXPECT_EQ(left, (std::vector<std::string>{"app.raw.zst", "app.zst", "full"}));
#else
  EXPECT_EQ(left, (std::vector<std::string>{"app.raw.zst", "app.zst", "full", "pipe"}));
#endif
}

}  // namespace
}  // namespace heapql::test
