// One PDB read once into a sorted address table: every function (S_GPROC32 /
// S_LPROC32 with its code size), every inline site inside it (S_INLINESITE,
// binary annotations decoded to ranges, nested sites as chains), and the
// public symbols (S_PUB32) as a bounded fallback where no function is known.
// Built with LLVM's native PDB reader (see docs/symbols.md); nothing of LLVM
// shows in this header and no LLVM error escapes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/symbols/pdb_identity.h"

namespace heapql {

class PdbSymbolTable {
 public:
  struct Stats {
    std::size_t modules = 0;          // DBI modules read
    std::size_t modules_skipped = 0;  // modules whose symbol stream could not be read
    std::size_t procs = 0;            // S_*PROC32 records with code
    std::size_t inline_sites = 0;     // S_INLINESITE records with at least one range
    std::size_t publics = 0;          // S_PUB32 records in executable sections
    std::size_t ranges = 0;           // entries of the final address table
    bool publics_unreadable = false;  // the publics / symbol record stream failed
  };

  // Reads the PDB at `path`. Throws heapql::Error naming the file when it is
  // not a PDB or its MSF container, info or DBI stream cannot be read.
  // Damage further in (a module's symbol stream, the publics) is skipped and
  // counted in stats(); it never crashes.
  explicit PdbSymbolTable(const std::string& path);

  // GUID from the PDB info stream; age from the DBI stream (what MS tools
  // match), the info stream's age when there is no DBI stream; pdb_name is
  // the file's base name.
  const PdbIdentity& identity() const { return identity_; }
  const std::string& path() const { return path_; }
  const Stats& stats() const { return stats_; }

  // Fills `frames_innermost_first` (cleared first) with the function at
  // `rva` and, innermost first, the functions inlined there; the last entry
  // is the real (outermost) function. Names are what llvm-symbolizer prints
  // by default. False (frames empty) when the rva is in no known function.
  bool lookup(std::uint32_t rva, std::vector<std::string>& frames_innermost_first) const;

  // The table itself, for tests and tools: [begin, end) -> chain.
  struct Range {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    std::uint32_t chain = 0;  // index into chain_offsets_
  };
  const std::vector<Range>& ranges() const { return ranges_; }

 private:
  std::string path_;
  PdbIdentity identity_;
  Stats stats_;
  std::vector<std::string> names_;
  // Chain k is chain_names_[chain_offsets_[k] .. chain_offsets_[k+1]), name
  // indexes innermost first.
  std::vector<std::uint32_t> chain_names_;
  std::vector<std::uint32_t> chain_offsets_;
  std::vector<Range> ranges_;  // sorted by begin, disjoint

  friend struct PdbTableBuilder;
};

}  // namespace heapql
