// An open-addressing hash index of 32-bit ids, for the interning hot paths
// (millions of stack nodes and buckets). It stores ids only, 4 bytes a slot:
// the caller keeps the keys in its own table and says how to hash and compare
// an id, so nothing is stored twice and there is no node per entry.
#pragma once

#include <cstdint>
#include <vector>

namespace heapql {

class FlatIndex {
 public:
  static constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;

  // The id whose key equals the probe (`is_key(id)`), among those stored
  // with `hash`; kAbsent if none.
  template <class IsKey>
  std::uint32_t find(std::uint64_t hash, IsKey&& is_key) const {
    if (slots_.empty()) return kAbsent;
    for (std::size_t i = slot_of(hash);; i = (i + 1) & mask_) {
      const std::uint32_t id = slots_[i];
      if (id == kAbsent) return kAbsent;
      if (is_key(id)) return id;
    }
  }

  // Stores `id` (absent so far) under `hash`; `hash_of(id)` rehashes stored
  // ids when the table grows.
  template <class HashOf>
  void insert(std::uint64_t hash, std::uint32_t id, HashOf&& hash_of) {
    if ((size_ + 1) * 4 > slots_.size() * 3) {
      std::vector<std::uint32_t> old = std::move(slots_);
      slots_.assign(old.empty() ? 1024 : old.size() * 2, kAbsent);
      mask_ = slots_.size() - 1;
      for (std::uint32_t stored : old) {
        if (stored != kAbsent) place(hash_of(stored), stored);
      }
    }
    place(hash, id);
    ++size_;
  }

  std::size_t size() const { return size_; }
  std::size_t memory_bytes() const { return slots_.capacity() * sizeof(std::uint32_t); }

  static std::uint64_t mix(std::uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ull;
    key ^= key >> 33;
    return key;
  }

 private:
  std::size_t slot_of(std::uint64_t hash) const { return static_cast<std::size_t>(hash) & mask_; }

  void place(std::uint64_t hash, std::uint32_t id) {
    std::size_t i = slot_of(hash);
    while (slots_[i] != kAbsent) i = (i + 1) & mask_;
    slots_[i] = id;
  }

  std::vector<std::uint32_t> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace heapql
