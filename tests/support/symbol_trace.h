// An ETL trace whose one module, heapdemo.exe, has the identity (GUID, age)
// of a PDB fixture (tests/fixtures/pdb): what the symbol tests read through
// --symbols, the CLI's (tests/cli/etw_test.cpp) and the packaged heapql.exe's
// (tests/windows/package_test.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/symbols/pdb_symbol_table.h"
#include "tests/support/test_support.h"

namespace heapql::test {

struct SymbolTrace {
  std::string etl;
  std::vector<std::uint32_t> rvas;
  std::vector<std::vector<std::string>> expected;  // per rva, innermost first
};

// One heap block per function start of the table's PDB, each with a one-frame
// stack in heapdemo.exe, which the trace identifies as heapdemo.pdb; written
// to symbols.etl in `dir`.
SymbolTrace write_symbol_trace(const TempDir& dir, const PdbSymbolTable& table);

// tests/fixtures/pdb's heapdemo.pdb of one build: "full" (the one the trace
// names) or "wrong" (another build's, whose identity does not match).
std::string heapdemo_pdb(const std::string& build);

// Copies `pdb` under its own name into `folder` (made if missing): a flat
// folder of PDBs, as --symbols takes it.
void copy_pdb_into(const std::string& pdb, const std::string& folder);

}  // namespace heapql::test
