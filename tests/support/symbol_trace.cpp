#include "tests/support/symbol_trace.h"

#include <algorithm>
#include <filesystem>

#include "tests/support/etl_writer.h"

namespace heapql::test {

SymbolTrace write_symbol_trace(const TempDir& dir, const PdbSymbolTable& table) {
  SymbolTrace t;
  t.etl = dir.file("symbols.etl");
  EtlWriter w;
  const std::uint32_t pid = 77, tid = 78;
  const std::uint64_t base = 0x7ff7'1000'0000;
  ProcessInfo p;
  p.pid = pid;
  p.image_file_name = "heapdemo.exe";
  w.process_start(0, w.ticks_at_ms(0), p);
  w.image_load(0, w.ticks_at_ms(0), ImageInfo{base, 0x100000, pid, 0, 0, 0, u"\\Device\\X\\heapdemo.exe"});
  EtlGuid guid;
  std::copy(table.identity().guid.begin(), table.identity().guid.end(), guid.begin());
  w.image_id_rsds(0, w.ticks_at_ms(0), base, pid, guid, table.identity().age, "heapdemo.pdb");
  std::int64_t ms = 1;
  for (const auto& range : table.ranges()) {
    std::vector<std::string> names;
    if (!table.lookup(range.begin, names)) continue;
    t.rvas.push_back(range.begin);
    t.expected.push_back(names);
    const std::int64_t ts = w.ticks_at_ms(ms);
    w.heap_alloc(0, tid, pid, ts, 0x10000, static_cast<std::uint64_t>(ms), 0x1000 * static_cast<std::uint64_t>(ms));
    const std::uint64_t frames[] = {base + range.begin};
    w.stack_walk(0, ts, pid, tid, frames);
    ++ms;
  }
  w.write(t.etl);
  return t;
}

std::string heapdemo_pdb(const std::string& build) {
  return std::string(HEAPQL_PDB_FIXTURE_DIR) + "/" + build + "/heapdemo.pdb";
}

void copy_pdb_into(const std::string& pdb, const std::string& folder) {
  namespace fs = std::filesystem;
  fs::create_directories(folder);
  fs::copy_file(pdb, fs::path(folder) / fs::path(pdb).filename());
}

}  // namespace heapql::test
