#include "engine/ingest/etl/etw_modules.h"

#include "engine/file_base_name.h"

#include "engine/ingest/etl/etw_stacks.h"
#include "engine/util/flat_index.h"

namespace heapql {

std::size_t EtwModules::CacheKeyHash::operator()(const CacheKey& k) const noexcept {
  return FlatIndex::mix(k.offset * 0x9e3779b97f4a7c15ull ^ k.instance);
}

void EtwModules::add_pdb(std::uint32_t process, std::uint64_t image_base, PdbIdentity identity) {
  pdbs_.push_back(std::move(identity));
  pdb_by_image_[{process, image_base}] = static_cast<std::int32_t>(pdbs_.size() - 1);
}

void EtwModules::load(std::uint32_t process, std::uint64_t base, std::uint64_t size, std::string_view file_name,
                      std::uint8_t pointer_size) {
  Instance instance{process, base, size, tables_.intern_string(file_base_name(file_name)), -1};
  if (auto pdb = pdb_by_image_.find({process, base}); pdb != pdb_by_image_.end()) {
    instance.pdb = pdb->second;
  } else if (auto system = pdb_by_image_.find({0, base}); system != pdb_by_image_.end()) {
    instance.pdb = system->second;  // kernel images are identified once, for the System process
  }
  instances_.push_back(instance);
  const auto index = static_cast<std::uint32_t>(instances_.size() - 1);
  if (EtwStacks::is_kernel_address(base, pointer_size)) {
    kernel_[base] = index;
    ++kernel_generation_;
  } else {
    by_process_[process][base] = index;
    ++generations_[process];
  }
}

void EtwModules::unload(std::uint32_t process, std::uint64_t base, std::uint8_t pointer_size) {
  if (EtwStacks::is_kernel_address(base, pointer_size)) {
    if (kernel_.erase(base) != 0) ++kernel_generation_;
    return;
  }
  auto map = by_process_.find(process);
  if (map != by_process_.end() && map->second.erase(base) != 0) ++generations_[process];
}

std::uint64_t EtwModules::generation(std::uint32_t process) const {
  auto found = generations_.find(process);
  const std::uint64_t own = found == generations_.end() ? 0 : found->second;
  return FlatIndex::mix(own * 0x100000001b3ull ^ kernel_generation_);
}

const EtwModules::Instance* EtwModules::find(const RangeMap& map, std::uint64_t address) const {
  auto it = map.upper_bound(address);
  if (it == map.begin()) return nullptr;
  const Instance& candidate = instances_[std::prev(it)->second];
  if (address - candidate.base >= candidate.size) return nullptr;
  return &candidate;
}

void EtwModules::frames_of(std::uint32_t process, std::uint64_t address, std::uint8_t pointer_size,
                           std::vector<FrameId>& out) {
  const Instance* module = nullptr;
  if (EtwStacks::is_kernel_address(address, pointer_size)) {
    module = find(kernel_, address);
  } else if (auto map = by_process_.find(process); map != by_process_.end()) {
    module = find(map->second, address);
  }
  if (module == nullptr) {
    ++frames_without_module_;
    out.push_back(tables_.intern_frame(tables_.unknown_module(), StringId(), address));
    return;
  }
  const std::uint64_t offset = address - module->base;
  const auto instance = static_cast<std::uint32_t>(module - instances_.data());
  auto [cached, inserted] = frame_cache_.try_emplace(CacheKey{instance, offset});
  if (inserted) {
    std::vector<FrameId>& resolved = cached->second;
    if (module->pdb >= 0 && symbols_ != nullptr && offset <= 0xFFFFFFFFu) {
      names_.clear();
      if (symbols_->lookup(pdbs_[static_cast<std::size_t>(module->pdb)], static_cast<std::uint32_t>(offset),
                           names_) &&
          !names_.empty()) {
        ++frames_symbolized_;
        for (const std::string& name : names_) {
          resolved.push_back(tables_.intern_frame(module->name, tables_.intern_string(name), offset));
        }
      } else {
        ++frames_with_pdb_unresolved_;
      }
    }
    if (resolved.empty()) resolved.push_back(tables_.intern_frame(module->name, StringId(), offset));
  }
  out.insert(out.end(), cached->second.begin(), cached->second.end());
}

}  // namespace heapql
