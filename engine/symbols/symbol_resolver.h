// Finds the PDB for a module's identity (GUID, age, pdb name) in a list of
// search paths and keeps one PdbSymbolTable per identity. A PDB is only ever
// used when its own GUID and age equal the identity's: a near miss is
// rejected and counted, never used for names. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/symbols/pdb_identity.h"
#include "engine/symbols/pdb_symbol_table.h"

namespace heapql {

class SymbolResolver {
 public:
  // Each identity asked for ends up in exactly one of the first four counts.
  struct Stats {
    std::size_t pdbs_loaded = 0;
    std::size_t pdbs_missing = 0;     // no file of that name anywhere
    std::size_t pdbs_mismatched = 0;  // only files whose GUID/age differ
    std::size_t pdbs_unreadable = 0;  // only files that are not readable PDBs
    // One line per identity: "foo.pdb {GUID} age 1" and, for mismatched and
    // unreadable ones, the files tried and why they were refused.
    std::vector<std::string> missing;
    std::vector<std::string> mismatched;
    std::vector<std::string> unreadable;
    std::size_t lookups = 0;           // resolve() calls
    std::size_t lookups_resolved = 0;  // ... that gave a function
  };

  // Each search path is either a folder holding NAME.pdb, or a symbol store
  // laid out as NAME.pdb/KEY/NAME.pdb (KEY: symbol_store_key()). Both are
  // tried for every path, the store layout first. Names match
  // case-insensitively (stores copied from Windows mix cases).
  // `confined` (a recipe's run): each file is opened only as walked beneath
  // its search path (engine/path_beneath.h), so a link in a PDB folder to a
  // file elsewhere counts as no file, whatever it points at.
  explicit SymbolResolver(std::vector<std::string> search_paths, bool confined = false);

  // The table for `id`, or nullptr when no matching PDB is found. The search
  // runs once per identity; later calls answer from the cache.
  const PdbSymbolTable* find(const PdbIdentity& id);

  // find() then PdbSymbolTable::lookup(); counted in lookups / lookups_resolved.
  bool resolve(const PdbIdentity& id, std::uint32_t rva, std::vector<std::string>& frames_innermost_first);

  const Stats& stats() const { return stats_; }
  const std::vector<std::string>& search_paths() const { return search_paths_; }

 private:
  std::vector<std::string> search_paths_;
  bool confined_ = false;
  std::map<std::string, std::unique_ptr<PdbSymbolTable>> cache_;  // null: searched, none found
  Stats stats_;
};

}  // namespace heapql
