#include "engine/ingest/etl/etw_pdb_lookup.h"

#include "engine/symbols/symbol_resolver.h"

namespace heapql {

namespace {

class ResolverLookup final : public EtwPdbLookup {
 public:
  ResolverLookup(const std::vector<std::string>& paths, bool confined) : resolver_(paths, confined) {}

  bool lookup(const PdbIdentity& pdb, std::uint32_t rva, std::vector<std::string>& names) override {
    return resolver_.resolve(pdb, rva, names);
  }

  void fill_counts(EtwInfo& info) const override {
    const auto& stats = resolver_.stats();
    info.pdbs_loaded = stats.pdbs_loaded;
    info.pdbs_missing = stats.pdbs_missing;
    info.pdbs_mismatched = stats.pdbs_mismatched;
    info.pdbs_unreadable = stats.pdbs_unreadable;
  }

 private:
  SymbolResolver resolver_;
};

}  // namespace

std::unique_ptr<EtwPdbLookup> make_pdb_lookup(const std::vector<std::string>& symbol_paths, bool confined) {
  return std::make_unique<ResolverLookup>(symbol_paths, confined);
}

}  // namespace heapql
