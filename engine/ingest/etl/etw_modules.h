// Which module an address of an ETW stack lies in, at the time of the event
// (etw-heap.md §3.7): per-process module ranges from image load, rundown and
// unload events, kernel-space modules shared by every process; and the frames
// an address becomes: module!function (with inline frames) where a PDB
// resolves it, module!0xOFFSET where none does, ?!0xADDRESS outside any module.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ingest/etl/etl_record.h"
#include "engine/store/trace_tables.h"
#include "engine/symbols/pdb_identity.h"

namespace heapql {

// Resolves a module-relative address through the module's PDB (its identity
// as the trace records it, from the image's DbgID_RSDS event): the function
// names at `rva`, innermost (inlined) first. False: not resolved.
class EtwSymbolLookup {
 public:
  virtual ~EtwSymbolLookup() = default;
  virtual bool lookup(const PdbIdentity& pdb, std::uint32_t rva, std::vector<std::string>& names) = 0;
};

class EtwModules {
 public:
  struct Instance {
    std::uint32_t process = 0;
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    StringId name;            // base name, e.g. ntdll.dll
    std::int32_t pdb = -1;    // index into pdbs(), or -1
  };

  EtwModules(TraceTables& tables, EtwSymbolLookup* symbols) : tables_(tables), symbols_(symbols) {}

  // The PDB identity of the image at (process, base), from the trace's RSDS records.
  void add_pdb(std::uint32_t process, std::uint64_t image_base, PdbIdentity identity);

  // In time order: a load (or rundown) maps [base, base+size) in `process`
  // (kernel-space images in every process); an unload removes it.
  void load(std::uint32_t process, std::uint64_t base, std::uint64_t size, std::string_view file_name,
            std::uint8_t pointer_size);
  void unload(std::uint32_t process, std::uint64_t base, std::uint8_t pointer_size);

  // Changes whenever `process`'s map (or the kernel's) changes: stacks
  // resolved at equal generations resolve equally.
  std::uint64_t generation(std::uint32_t process) const;

  // Appends the frames of `address` in `process`, innermost first (a PDB may
  // give inline frames before their caller).
  void frames_of(std::uint32_t process, std::uint64_t address, std::uint8_t pointer_size, std::vector<FrameId>& out);

  const std::vector<Instance>& instances() const { return instances_; }
  const std::vector<PdbIdentity>& pdbs() const { return pdbs_; }
  // Counted once per distinct (module, offset).
  std::uint64_t frames_symbolized() const { return frames_symbolized_; }
  std::uint64_t frames_with_pdb_unresolved() const { return frames_with_pdb_unresolved_; }
  std::uint64_t frames_without_module() const { return frames_without_module_; }

 private:
  using RangeMap = std::map<std::uint64_t, std::uint32_t>;  // base -> instance
  const Instance* find(const RangeMap& map, std::uint64_t address) const;

  TraceTables& tables_;
  EtwSymbolLookup* symbols_;
  std::vector<Instance> instances_;
  std::unordered_map<std::uint32_t, RangeMap> by_process_;
  RangeMap kernel_;
  std::unordered_map<std::uint32_t, std::uint64_t> generations_;
  std::uint64_t kernel_generation_ = 0;
  std::vector<PdbIdentity> pdbs_;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::int32_t> pdb_by_image_;
  struct CacheKey {
    std::uint32_t instance;
    std::uint64_t offset;
    friend bool operator==(const CacheKey&, const CacheKey&) = default;
  };
  struct CacheKeyHash {
    std::size_t operator()(const CacheKey& k) const noexcept;
  };
  // (module instance, offset) -> its frames, innermost first: each address is resolved once.
  std::unordered_map<CacheKey, std::vector<FrameId>, CacheKeyHash> frame_cache_;
  std::vector<std::string> names_;
  std::uint64_t frames_symbolized_ = 0;
  std::uint64_t frames_with_pdb_unresolved_ = 0;
  std::uint64_t frames_without_module_ = 0;
};

}  // namespace heapql
