// A set of 64-bit address keys, open addressing, 8 bytes a slot: the
// addresses a trace has freed, kept so that a second free of one is told
// apart from a free of an address never seen (semantics.md §1). A node-based
// map kept every freed address at about 60 bytes each; this keeps them at
// 8-16 and keeps the map of live blocks small.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/store/flat_index.h"
#include "engine/store/huge_page_allocator.h"

namespace heapql {

class AddressSet {
 public:
  bool contains(std::uint64_t key) const {
    if (key == kEmpty) return has_empty_key_;
    if (slots_.empty()) return false;
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      if (slots_[i] == key) return true;
      if (slots_[i] == kEmpty) return false;
    }
  }

  void insert(std::uint64_t key) {
    if (key == kEmpty) {
      has_empty_key_ = true;
      return;
    }
    if ((size_ + 1) * 10 > slots_.size() * 7) grow();
    if (place(key)) ++size_;
  }

  std::size_t size() const { return size_ + (has_empty_key_ ? 1 : 0); }
  std::size_t memory_bytes() const { return slots_.capacity() * sizeof(std::uint64_t); }

 private:
  static constexpr std::uint64_t kEmpty = 0;

  std::size_t slot_of(std::uint64_t key) const { return static_cast<std::size_t>(FlatIndex::mix(key)) & mask_; }

  // False when the key was there already.
  bool place(std::uint64_t key) {
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      if (slots_[i] == key) return false;
      if (slots_[i] == kEmpty) {
        slots_[i] = key;
        return true;
      }
    }
  }

  void grow() {
    decltype(slots_) old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, kEmpty);
    mask_ = slots_.size() - 1;
    for (std::uint64_t key : old) {
      if (key != kEmpty) place(key);
    }
  }

  std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
  bool has_empty_key_ = false;
};

}  // namespace heapql
