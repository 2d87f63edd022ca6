// heapql on ETW traces, end to end through the command line. Heap and
// VirtualAlloc payloads are SYNTHETIC (tests/support/etw_scenarios.h: the
// MemoryTestApp scenario of Microsoft's Memory Footprint exercise); the
// container and rundown events are also checked on the real files of
// ../shared/data/etw; symbols come from PE + PDB fixtures built at test time.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>

#include "engine/symbols/pdb_symbol_table.h"
#include "tests/support/etl_buffer_order.h"
#include "tests/support/etw_scenarios.h"
#include "tests/support/flat_json.h"
#include "tests/support/symbol_trace.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;
namespace off = memory_test_app_offsets;
constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::uint64_t kTenMiB = 10 * 1024 * 1024;

FlatJson json_of(const std::string& arguments) {
  const CommandResult r = run_heapql(arguments + " --format json");
  EXPECT_EQ(r.exit_code, 0) << arguments << "\n" << r.err;
  return flatten_json(r.out);
}

// A Lua long string holding `text` (test paths have no "]]").
std::string lua_quote(const std::string& text) { return "[[" + text + "]]"; }

std::string frame(const std::string& module, std::uint64_t offset) {
  return fmt::format("{}!0x{:x}", module, offset);
}

class SyntheticMemoryTestApp : public ::testing::Test {
 protected:
  void SetUp() override { trace_ = write_memory_test_app(path_); }
  TempDir dir_;
  std::string path_ = dir_.file("MemoryTestApp.etl");
  MemoryTestAppTrace trace_;
};

// Memory Footprint exercise 2 on the VirtualAlloc Commit Lifetimes table: in
// the middle window, the second 10 MB is the impacting size; the four 10 MB
// transient buffers make 40 MB of size and no impacting size.
TEST_F(SyntheticMemoryTestApp, VirtualAllocMiddleWindowReproducesTheExercise) {
  const std::int64_t t1 = 8 * kSecond, t2 = 16 * kSecond;
  std::uint64_t transient = 0, grown = 0;
  for (const ScenarioCommit& c : trace_.commits) {
    if (c.commit_ns >= t1 && c.commit_ns < t2 && c.decommit_ns && *c.decommit_ns < t2) ++transient;
    if (c.commit_ns >= t1 && c.commit_ns < t2 && !c.decommit_ns) grown += c.size;
  }
  ASSERT_EQ(transient, 4u);  // the exercise's numbers, from the scenario as written
  ASSERT_EQ(grown, kTenMiB);

  const FlatJson j = json_of("query " + shell_quote(path_) + " --kind virtual --window 8s..16s --by impacting");
  EXPECT_EQ(json_get(j, "rows.AIFI.count"), std::to_string(transient));
  EXPECT_EQ(json_get(j, "rows.AIFI.size"), std::to_string(4 * kTenMiB));
  EXPECT_EQ(json_get(j, "rows.AIFI.impacting"), "0");
  EXPECT_EQ(json_get(j, "rows.AIFO.count"), "1");
  EXPECT_EQ(json_get(j, "rows.AIFO.impacting"), std::to_string(grown));
  EXPECT_EQ(json_get(j, "rows.AOFO.size"), std::to_string(kTenMiB));  // AllocateSteadyState
  EXPECT_EQ(json_get(j, "rows.AOFO.impacting"), "0");
  EXPECT_EQ(json_get(j, "totals.impacting"), std::to_string(kTenMiB));
}

// The transient buffers all come from ManipulateTemporaryBuffer, whose frame
// (no symbols: module!offset) is on their stacks.
TEST_F(SyntheticMemoryTestApp, TransientBuffersComeFromManipulateTemporaryBuffer) {
  const std::string temporary = frame("MemoryTestApp.exe", off::kManipulateTemporaryBuffer);
  const FlatJson j = json_of("query " + shell_quote(path_) + " --kind virtual --window 8s..16s --impacting AIFI --require " +
                             shell_quote(temporary) + " --totals");
  EXPECT_EQ(json_get(j, "totals.count"), "4");
  EXPECT_EQ(json_get(j, "totals.size"), std::to_string(4 * kTenMiB));
  const FlatJson all = json_of("query " + shell_quote(path_) + " --kind virtual --impacting AIFI --window 8s..16s --totals");
  EXPECT_EQ(json_get(all, "totals.count"), "4");
}

// The leak hunt of the exercise: over the whole trace, AIFO heap blocks (never
// freed) by stack find the loop that leaks 40-byte blocks, and nothing else.
TEST_F(SyntheticMemoryTestApp, AifoHeapBlocksFindTheLeakingInnerLoop) {
  std::uint64_t leaked = 0, bytes = 0;
  for (const ScenarioHeapBlock& b : trace_.heap_blocks) {
    if (b.free_ns) continue;
    EXPECT_EQ(b.function, "InnerLoopOperation");
    ++leaked;
    bytes += b.final_size;
  }
  ASSERT_GT(leaked, 0u);
  const CommandResult r =
      run_heapql("query " + shell_quote(path_) + " --kind heap --impacting AIFO --by stack --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FlatJson j = flatten_json(r.out);
  EXPECT_EQ(json_get(j, "rows.length"), "1");
  EXPECT_EQ(json_get(j, "totals.count"), std::to_string(leaked));
  EXPECT_EQ(json_get(j, "totals.impacting"), std::to_string(bytes));
  EXPECT_EQ(bytes, 40 * leaked);
  EXPECT_NE(r.out.find(frame("MemoryTestApp.exe", off::kInnerLoopOperation)), std::string::npos) << r.out;
}

TEST_F(SyntheticMemoryTestApp, ProcessWindowQueryPutsTheGrowthFirst) {
  const CommandResult r =
      run_heapql("query " + shell_quote(path_) +
                 " --process MemoryTestApp.exe --by stack --sort so --window 10s..20s --top 1 --format json"
                 " --no-default-cull");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FlatJson j = flatten_json(r.out);
  EXPECT_EQ(json_get(j, "rows.length"), "1");
  EXPECT_NE(r.out.find(frame("MemoryTestApp.exe", off::kGrowSteadyState)), std::string::npos) << r.out;
  // The GrowSteadyState stack is resolved from stack-cache keys, kernel part
  // first (the default cull list would take ntoskrnl.exe off its top).
  EXPECT_NE(r.out.find("ntoskrnl.exe!0x"), std::string::npos) << r.out;
}

TEST_F(SyntheticMemoryTestApp, InfoReportsWhatWasRead) {
  const FlatJson j = json_of("info " + shell_quote(path_));
  EXPECT_EQ(json_get(j, "trace.source"), "etw");
  EXPECT_EQ(json_get(j, "capabilities.block_identity"), "exact");
  EXPECT_EQ(json_get(j, "capabilities.realloc"), "true");
  EXPECT_EQ(json_get(j, "etw.pointer_size"), "8");
  EXPECT_EQ(json_get(j, "etw.events_by_hook.0x1021"), std::to_string(trace_.counts.heap_alloc));
  EXPECT_EQ(json_get(j, "etw.events_by_hook.0x0262"), std::to_string(trace_.counts.virtual_alloc));
  EXPECT_EQ(json_get(j, "etw.stacks.keys_unresolved"), "0");
  EXPECT_EQ(json_get(j, "etw.stacks.blocks_without_stack"), "0");
  EXPECT_EQ(json_get(j, "summary.anomalies.unmatched_frees"), "0");
  EXPECT_EQ(json_get(j, "summary.anomalies.alloc_over_live"), "0");
  EXPECT_EQ(json_get(j, "processes.length"), "1");
  EXPECT_EQ(json_get(j, "processes.0.name"), "MemoryTestApp.exe");
  EXPECT_EQ(json_get(j, "processes.0.pid"), "4242");
  std::uint64_t moved = 0;
  for (const ScenarioRealloc& r : trace_.reallocs) moved += r.moved ? 1 : 0;
  EXPECT_EQ(json_get(j, "etw.moving_reallocs"), std::to_string(moved));
  EXPECT_EQ(json_get(j, "etw.realloc_companions_dropped"), std::to_string(2 * moved));
  const CommandResult table = run_heapql("info " + shell_quote(path_));
  EXPECT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find("MemoryTestApp.exe (4242)"), std::string::npos) << table.out;
}

// Leaked (never freed) memory through a shipped recipe, unchanged.
TEST_F(SyntheticMemoryTestApp, RecipesWorkUnchanged) {
  std::uint64_t leaked = 0;
  for (const ScenarioHeapBlock& b : trace_.heap_blocks) leaked += b.free_ns ? 0 : b.final_size;
  for (const ScenarioCommit& c : trace_.commits) leaked += c.decommit_ns ? 0 : c.size;
  const CommandResult r = run_heapql("run leaks " + shell_quote(path_) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FlatJson j = flatten_json(r.out);
  EXPECT_EQ(json_get(j, "totals.so"), std::to_string(leaked));
}

TEST_F(SyntheticMemoryTestApp, CompressedAndThirtyTwoBitCopiesAnswerTheSame) {
  const std::string query = " --window 8s..16s --by impacting,kind --format json";
  const CommandResult base = run_heapql("query " + shell_quote(path_) + query);
  ASSERT_EQ(base.exit_code, 0) << base.err;
  EtlWriterOptions compressed;
  compressed.compress = true;
  compressed.buffer_size = 8192;
  const std::string compressed_path = dir_.file("compressed.etl");
  write_memory_test_app(compressed_path, compressed);
  const CommandResult c = run_heapql("query " + shell_quote(compressed_path) + query);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const FlatJson a = flatten_json(base.out), b = flatten_json(c.out);
  for (const char* key : {"rows.AIFI > virtual.size", "rows.AIFO > virtual.impacting", "rows.AIFO > heap.count",
                          "totals.impacting", "totals.st"}) {
    EXPECT_EQ(json_get(a, key), json_get(b, key)) << key;
  }
  EtlWriterOptions narrow;
  narrow.pointer_size = 4;
  const std::string narrow_path = dir_.file("x86.etl");
  write_memory_test_app(narrow_path, narrow);
  const FlatJson n = json_of("query " + shell_quote(narrow_path) + " --window 8s..16s --by impacting,kind");
  EXPECT_EQ(json_get(n, "rows.AIFI > virtual.size"), json_get(a, "rows.AIFI > virtual.size"));
  EXPECT_EQ(json_get(n, "totals.impacting"), json_get(a, "totals.impacting"));
}

// A recording stopped mid-write: the complete buffers are answered, with a
// warning naming the file and where it ends; --strict refuses it.
TEST(EtwCli, SyntheticCutFileAnswersFromItsCompleteBuffers) {
  TempDir dir;
  const std::string path = dir.file("cut.etl");
  write_memory_test_app(path);
  fs::resize_file(path, fs::file_size(path) - 1000);
  const CommandResult r = run_heapql("query " + shell_quote(path) + " --totals --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("heapql: warning: " + path + ": the trace ends early: the last buffer is cut short"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("\"totals\""), std::string::npos) << r.out;
  const CommandResult info = run_heapql("info " + shell_quote(path) + " --format json");
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("\"cut\":{\"file\":"), std::string::npos) << info.out;
  const CommandResult strict = run_heapql("query " + shell_quote(path) + " --strict");
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_NE(strict.err.find(path + ": byte "), std::string::npos) << strict.err;
  EXPECT_NE(strict.err.find("--strict refuses a trace cut short"), std::string::npos) << strict.err;
}

// A copy cut at a multiple of the buffer size holds whole buffers only:
// fewer than its logfile header says the session wrote.
TEST(EtwCli, SyntheticFileCutBetweenBuffersIsCutShort) {
  TempDir dir;
  const std::string path = dir.file("cut.etl");
  EtlWriterOptions options;
  options.buffer_size = 8192;
  write_memory_test_app(path, options);
  const std::uintmax_t buffers = fs::file_size(path) / options.buffer_size;
  ASSERT_GT(buffers, 4u);
  fs::resize_file(path, (buffers / 2) * options.buffer_size);
  const CommandResult r = run_heapql("query " + shell_quote(path) + " --totals");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(fmt::format("heapql: warning: {}: the trace ends early: its logfile header counts {} buffers "
                                   "written, and the file ends after {} at byte {}, 0 bytes left over",
                                   path, buffers, buffers / 2, (buffers / 2) * options.buffer_size)),
            std::string::npos)
      << r.err;
  const CommandResult strict = run_heapql("query " + shell_quote(path) + " --strict");
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_NE(strict.err.find("--strict refuses a trace cut short"), std::string::npos) << strict.err;
}

// Buffers are per processor and the logger flushes them in any order: the
// same buffers written in other orders (each processor's kept in its own
// order) answer the same JSON, byte for byte but the file name. The walks of
// the migrating thread often lie in another processor's buffer than their
// event, before it or after it in the file.
TEST(EtwCli, SyntheticReorderedBuffersAnswerTheSame) {
  TempDir dir;
  const std::vector<std::string> commands = {"query {} --by stack --no-default-cull", "query {} --by stack,kind --sort stc",
                                             "query {} --by thread,stack --window 20ms..", "info {}"};
  for (const bool memory_test_app_trace : {false, true}) {
    SCOPED_TRACE(memory_test_app_trace ? "MemoryTestApp" : "migrating thread");
    EtlWriterOptions options;
    options.buffer_size = memory_test_app_trace ? 4096 : 1024;
    EtlWriter writer(options);
    if (memory_test_app_trace) {
      memory_test_app(writer);
    } else {
      migrating_thread(writer);
    }
    const std::vector<std::uint8_t> original = writer.bytes();
    const std::vector<EtlBufferPlace> buffers = etl_buffers(original);
    ASSERT_GT(buffers.size(), 8u);
    // Processor 1's buffers first; processor 0's first; alternating.
    const std::vector<std::vector<std::size_t>> orders = {
        interleave_etl_buffers(buffers, [](const std::vector<std::uint32_t>& left) { return left.size() - 1; }),
        interleave_etl_buffers(buffers, [](const std::vector<std::uint32_t>&) { return std::size_t{0}; }),
        interleave_etl_buffers(buffers, [turn = std::size_t{0}](const std::vector<std::uint32_t>& left) mutable {
          return turn++ % left.size();
        })};
    std::vector<std::string> paths = {dir.file("original.etl")};
    write_file(paths[0], std::string(original.begin(), original.end()));
    for (std::size_t i = 0; i < orders.size(); ++i) {
      const std::vector<std::uint8_t> bytes = reorder_etl_buffers(original, orders[i]);
      ASSERT_NE(bytes, original) << i;
      paths.push_back(dir.file(fmt::format("reordered{}.etl", i)));
      write_file(paths.back(), std::string(bytes.begin(), bytes.end()));
    }
    for (const std::string& command : commands) {
      SCOPED_TRACE(command);
      auto answer = [&](const std::string& path) {
        const CommandResult r = run_heapql(fmt::format(fmt::runtime(command), shell_quote(path)) + " --format json");
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return replace_all(r.out, as_json_text(path), "TRACE");  // the path as JSON writes it
      };
      const std::string expected = answer(paths[0]);
      if (command == "info {}") {
        EXPECT_NE(expected.find("\"unattached\":0,"), std::string::npos) << expected;
        EXPECT_NE(expected.find("\"records_out_of_time_order\":0,"), std::string::npos) << expected;
      }
      for (std::size_t i = 1; i < paths.size(); ++i) EXPECT_EQ(answer(paths[i]), expected) << paths[i];
    }
  }
}

TEST(EtwCli, SyntheticTraceSymbolsMustBeAFolder) {
  TempDir dir;
  const std::string path = dir.file("t.etl");
  write_memory_test_app(path);
  const CommandResult r = run_heapql("query " + shell_quote(path) + " --symbols " + shell_quote(dir.file("nowhere")));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--symbols"), std::string::npos) << r.err;
}

// --- symbols: an ETL whose module has the identity of a PDB fixture ---------

TEST(EtwSymbols, SyntheticTraceFramesResolveThroughAMatchingPdbInASymbolStore) {
  const std::string pdb = heapdemo_pdb("full");
  const PdbSymbolTable table(pdb);
  TempDir dir;
  const SymbolTrace t = write_symbol_trace(dir, table);
  ASSERT_GT(t.rvas.size(), 3u);
  const fs::path key_dir = fs::path(dir.file("store")) / "heapdemo.pdb" / symbol_store_key(table.identity());
  fs::create_directories(key_dir);
  fs::copy_file(pdb, key_dir / "heapdemo.pdb");

  const CommandResult r = run_heapql("query " + shell_quote(t.etl) + " --symbols " + shell_quote(dir.file("store")) +
                                     " --by stack --no-default-cull --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FlatJson j = flatten_json(r.out);
  EXPECT_EQ(json_get(j, "totals.stc"), std::to_string(t.rvas.size()));
  for (std::size_t i = 0; i < t.rvas.size(); ++i) {
    std::string key;  // the row's stack as JSON: frames top (innermost) first
    for (const std::string& name : t.expected[i]) key += (key.empty() ? "" : ",") + ("\"heapdemo.exe!" + name + "\"");
    EXPECT_NE(r.out.find("[[" + key + "]]"), std::string::npos) << key << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("heapdemo.exe!public_work"), std::string::npos) << r.out;
  const FlatJson info = json_of("info " + shell_quote(t.etl) + " --symbols " + shell_quote(dir.file("store")));
  EXPECT_EQ(json_get(info, "etw.symbols.pdbs_loaded"), "1");
  EXPECT_EQ(json_get(info, "etw.symbols.addresses_symbolized"), std::to_string(t.rvas.size()));
  EXPECT_EQ(json_get(info, "modules.0.pdb").rfind("heapdemo.pdb ", 0), 0u);
}

TEST(EtwSymbols, SyntheticTraceWithAMismatchedOrMissingPdbKeepsOffsetsAndCounts) {
  TempDir dir;
  const SymbolTrace t = write_symbol_trace(dir, PdbSymbolTable(heapdemo_pdb("full")));
  // The wrong build's PDB, where the right one would be: never used for names.
  copy_pdb_into(heapdemo_pdb("wrong"), dir.file("flat"));
  const CommandResult r = run_heapql("query " + shell_quote(t.etl) + " --symbols " + shell_quote(dir.file("flat")) +
                                     " --by stack --no-default-cull --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("public_work"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(fmt::format("heapdemo.exe!0x{:x}", t.rvas[0])), std::string::npos) << r.out;
  const FlatJson mismatched = json_of("info " + shell_quote(t.etl) + " --symbols " + shell_quote(dir.file("flat")));
  EXPECT_EQ(json_get(mismatched, "etw.symbols.pdbs_mismatched"), "1");
  EXPECT_EQ(json_get(mismatched, "etw.symbols.addresses_symbolized"), "0");
  fs::create_directories(dir.file("empty"));
  const FlatJson missing = json_of("info " + shell_quote(t.etl) + " --symbols " + shell_quote(dir.file("empty")));
  EXPECT_EQ(json_get(missing, "etw.symbols.pdbs_missing"), "1");
}

// Scripts name symbol folders themselves: stock lua5.4 freely, a sandboxed
// recipe only beside it (the --symbols folders apply to every trace it opens).
TEST(EtwSymbols, SyntheticTraceLuaOpenTakesSymbolFolders) {
  HEAPQL_SKIP_ON_WINDOWS("stock lua5.4 loads heapql.so, a Linux module");
  if (run_command("command -v lua5.4").exit_code != 0) GTEST_SKIP() << "lua5.4 is not installed";
  const std::string pdb = heapdemo_pdb("full");
  TempDir dir;
  const SymbolTrace t = write_symbol_trace(dir, PdbSymbolTable(pdb));
  copy_pdb_into(pdb, dir.file("pdbs"));
  write_file(dir.file("names.lua"),
             "local hq = require 'heapql'\n"
             "local trace = hq.open(arg[1], {symbols = arg[2]})\n"
             "for _, row in ipairs(trace:query{by = 'frame', cull = hq.cull.none}:rows()) do print(row.frame) end\n");
  // Stock lua5.4 cannot load a sanitized heapql.so: that half runs in the
  // normal build only.
  if (!HEAPQL_SANITIZED) {
    const std::string module_dir = fs::path(heapql_binary()).parent_path().string();
    const CommandResult lua =
        run_command("lua5.4 -e " + shell_quote("package.cpath='" + module_dir + "/?.so;'..package.cpath") + " " +
                    shell_quote(dir.file("names.lua")) + " " + shell_quote(t.etl) + " " + shell_quote(dir.file("pdbs")));
    ASSERT_EQ(lua.exit_code, 0) << lua.err;
    EXPECT_NE(lua.out.find("heapdemo.exe!public_work\n"), std::string::npos) << lua.out;
  }

  TempDir elsewhere;
  write_file(elsewhere.file("names.lua"),
             "local hq = require 'heapql'\n"
             "return hq.recipe { name = 'names', doc = 'frame names', run = function(trace, p, out)\n"
             "  hq.open(trace:path(), {symbols = " + lua_quote(dir.file("pdbs")) + "})\n"
             "end }\n");
  const CommandResult sandboxed =
      run_heapql("run " + shell_quote(elsewhere.file("names.lua")) + " " + shell_quote(t.etl));
  EXPECT_EQ(sandboxed.exit_code, 3) << sandboxed.err;
  EXPECT_NE(sandboxed.err.find("hq.open: symbols"), std::string::npos) << sandboxed.err;
}

// --- the real sample files (container, rundown, stacks) ---------------------

std::string unzip_sample(const TempDir& dir, const std::string& zip, const std::string& member) {
  const CommandResult r = run_command("python3 -m zipfile -e " + shell_quote(zip) + " " + shell_quote(dir.path().string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir.file(member);
}

TEST(EtwSharedData, NetSampleInfoCountsEventsProcessesAndModules) {
  HEAPQL_SKIP_ON_WINDOWS("python3's zipfile unpacks the sample (windows.package reads it unzipped)");
  const std::string etw = shared_data("etw");
  if (etw.empty()) GTEST_SKIP() << "../shared/data/etw is absent";
  TempDir dir;
  const std::string etl = unzip_sample(dir, etw + "/perfview-net.4.5.2.x64.etl.zip", "net.4.5.2.x64.etl");
  const FlatJson j = json_of("info " + shell_quote(etl));
  EXPECT_EQ(json_get(j, "etw.buffers"), "360");
  EXPECT_EQ(json_get(j, "etw.compressed_buffers"), "359");
  EXPECT_EQ(json_get(j, "etw.events_by_header_kind.perf64"), "100157");
  EXPECT_EQ(json_get(j, "etw.events_by_header_kind.full32"), "27");
  EXPECT_EQ(json_get(j, "etw.events_by_hook.0x1820"), "252");
  EXPECT_EQ(json_get(j, "etw.events_by_hook.0x1826"), "7046");
  EXPECT_EQ(json_get(j, "etw.events_by_hook.0x030a"), "35");
  EXPECT_EQ(json_get(j, "etw.stacks.stack_walks"), "252");
  EXPECT_EQ(json_get(j, "etw.stacks.key_uses"), std::to_string(2061 + 7046));
  EXPECT_EQ(json_get(j, "summary.blocks"), "0");  // no heap events in it
  // Every Windows trace with process rundown names the System process (pid 4)
  // and the kernel image; the net sample's images carry their PDB identities.
  const CommandResult r = run_heapql("info " + shell_quote(etl) + " --format json");
  EXPECT_NE(r.out.find(R"({"pid":4,"name":"System"})"), std::string::npos);
  EXPECT_NE(r.out.find(R"({"name":"ntoskrnl.exe","loads":)"), std::string::npos);
  EXPECT_NE(r.out.find(R"("pdb":"ntkrnlmp.pdb )"), std::string::npos);
}

TEST(EtwSharedData, ShutdownLoggerNamesProcessesFromPerfinfoRundown) {
  const std::string etw = shared_data("etw");
  if (etw.empty()) GTEST_SKIP() << "../shared/data/etw is absent";
  const FlatJson j = json_of("info " + shell_quote(etw + "/etlparser-ShutdownPerfDiagLogger.etl"));
  EXPECT_EQ(json_get(j, "etw.buffers"), "49");
  EXPECT_EQ(json_get(j, "etw.events_by_hook.0x1403"), "6745");
  EXPECT_EQ(json_get(j, "etw.skipped.kernel events of other kinds").find("missing"), std::string::npos);
  const CommandResult r =
      run_heapql("info " + shell_quote(etw + "/etlparser-ShutdownPerfDiagLogger.etl") + " --format json");
  EXPECT_NE(r.out.find(R"({"pid":4,"name":"System"})"), std::string::npos);
  EXPECT_NE(r.out.find(R"({"name":"ntoskrnl.exe","loads":)"), std::string::npos);
  // The table says which count is which: processes with blocks, and every
  // process the trace names.
  const CommandResult table = run_heapql("info " + shell_quote(etw + "/etlparser-ShutdownPerfDiagLogger.etl"));
  EXPECT_NE(table.out.find("0 processes with blocks"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("processes named    97: Idle (0), System (4)"), std::string::npos) << table.out;
}

}  // namespace
}  // namespace heapql::test
