// The PDB side of ETW frame resolution: finds each module's PDB by the
// identity the trace records (in folders or symbol stores given with
// --symbols), checks it, and looks addresses up in it. Counts what it found.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/ingest/etl/etw_info.h"
#include "engine/ingest/etl/etw_modules.h"
#include "engine/store/source_info.h"

namespace heapql {

class EtwPdbLookup : public EtwSymbolLookup {
 public:
  // PDBs loaded, missing, mismatched and unreadable, into `info`.
  virtual void fill_counts(EtwInfo& info) const = 0;
};

// `confined`: PDBs only as walked beneath their folder (SymbolResolver).
std::unique_ptr<EtwPdbLookup> make_pdb_lookup(const std::vector<std::string>& symbol_paths, bool confined = false);

}  // namespace heapql
