#include "engine/ingest/etl/etw_stacks.h"

#include <algorithm>

#include "engine/util/flat_index.h"

namespace heapql {

namespace {
std::uint64_t hash_frames(std::span<const std::uint64_t> frames) {
  std::uint64_t h = frames.size();
  for (std::uint64_t f : frames) h = FlatIndex::mix(h ^ f) + 0x9e3779b97f4a7c15ull;
  return h;
}
}  // namespace

bool EtwStacks::is_kernel_address(std::uint64_t address, std::uint8_t pointer_size) {
  return pointer_size == 4 ? address >= 0x80000000ull : address >= 0xFFFF800000000000ull;
}

std::uint32_t EtwStacks::intern(std::span<const std::uint64_t> frames) {
  const std::uint64_t h = hash_frames(frames);
  auto [first, last] = lists_by_hash_.equal_range(h);
  for (auto it = first; it != last; ++it) {
    const List& l = lists_[it->second];
    if (l.count == frames.size() &&
        std::equal(frames.begin(), frames.end(), addresses_.begin() + static_cast<std::ptrdiff_t>(l.offset))) {
      return it->second;
    }
  }
  const auto id = static_cast<std::uint32_t>(lists_.size());
  lists_.push_back(List{addresses_.size(), static_cast<std::uint32_t>(frames.size())});
  addresses_.insert(addresses_.end(), frames.begin(), frames.end());
  lists_by_hash_.emplace(h, id);
  return id;
}

void EtwStacks::fill(std::uint32_t& slot, std::uint32_t value) {
  if (slot != kNone) {
    ++duplicate_fragments_;
    return;
  }
  slot = value;
}

void EtwStacks::attach_frames(EventStack& stack, std::span<const std::uint64_t> frames, std::uint8_t pointer_size) {
  if (frames.empty()) return;
  const bool kernel = is_kernel_address(frames.front(), pointer_size);
  fill(kernel ? stack.kernel : stack.user, intern(frames));
}

void EtwStacks::attach_key(EventStack& stack, bool kernel, std::uint64_t key, std::int64_t timestamp) {
  if ((key_uses_.size() & kKeyUseBit) != 0) return;  // over 2^31 key uses: beyond what an index can name
  const auto use = static_cast<std::uint32_t>(key_uses_.size()) | kKeyUseBit;
  std::uint32_t& slot = kernel ? stack.kernel : stack.user;
  if (slot != kNone) {
    ++duplicate_fragments_;
    return;
  }
  key_uses_.push_back(KeyUse{key, timestamp, kernel});
  slot = use;
}

void EtwStacks::define_key(std::uint64_t key, std::span<const std::uint64_t> frames, std::uint8_t pointer_size,
                           std::int64_t timestamp) {
  const bool kernel = !frames.empty() && is_kernel_address(frames.front(), pointer_size);
  (kernel ? kernel_definitions_ : user_definitions_)[key].push_back(Definition{timestamp, intern(frames)});
}

void EtwStacks::resolve_keys() {
  for (auto* definitions : {&kernel_definitions_, &user_definitions_}) {
    for (auto& [key, list] : *definitions) {
      std::stable_sort(list.begin(), list.end(),
                       [](const Definition& a, const Definition& b) { return a.timestamp < b.timestamp; });
    }
  }
  unresolved_keys_ = 0;
  for (KeyUse& use : key_uses_) {
    const auto& definitions = use.kernel ? kernel_definitions_ : user_definitions_;
    auto found = definitions.find(use.key);
    use.list = kNone;
    if (found != definitions.end()) {
      const auto& list = found->second;
      auto at = std::lower_bound(list.begin(), list.end(), use.timestamp,
                                 [](const Definition& d, std::int64_t ts) { return d.timestamp < ts; });
      if (at != list.end()) use.list = at->list;
    }
    if (use.list == kNone) ++unresolved_keys_;
  }
}

std::uint32_t EtwStacks::list_of(std::uint32_t slot) const {
  if (slot == kNone) return kNone;
  if ((slot & kKeyUseBit) != 0) return key_uses_[slot & ~kKeyUseBit].list;
  return slot;
}

void EtwStacks::frames(const EventStack& stack, std::vector<std::uint64_t>& out) const {
  out.clear();
  for (std::uint32_t slot : {stack.kernel, stack.user}) {
    const std::uint32_t list = list_of(slot);
    if (list == kNone) continue;
    const List& l = lists_[list];
    out.insert(out.end(), addresses_.begin() + static_cast<std::ptrdiff_t>(l.offset),
               addresses_.begin() + static_cast<std::ptrdiff_t>(l.offset + l.count));
  }
}

std::uint64_t EtwStacks::identity(const EventStack& stack) const {
  return (std::uint64_t{list_of(stack.kernel)} << 32) | list_of(stack.user);
}

}  // namespace heapql
