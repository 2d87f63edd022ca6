// The live blocks of a source with addresses, by address key: open
// addressing with linear probing, the block stored in its slot (32 bytes),
// deletion by shifting the probe run back (no tombstones, so a trace that
// allocates and frees a billion times never degrades it). A node-based
// std::unordered_map spent much of a raw-twin read in malloc, free and
// pointer chasing.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/store/events.h"
#include "engine/util/flat_index.h"
#include "engine/util/huge_page_allocator.h"
#include "engine/util/prefetch_hint.h"

namespace heapql {

class LiveBlockMap {
 public:
  // The block alive at the key, or nullptr.
  const LiveBlock* find(std::uint64_t key) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.block.id.valid()) return nullptr;
      if (s.key == key) return &s.block;
    }
  }

  // The slot for the key: its block if one is alive there (and false),
  // else a new slot (and true) whose block the caller must set (a valid id).
  std::pair<LiveBlock*, bool> find_or_add(std::uint64_t key) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.block.id.valid()) {
        s.key = key;
        ++size_;
        return {&s.block, true};
      }
      if (s.key == key) return {&s.block, false};
    }
  }

  // Removes the block alive at the key into `out`; false if there is none.
  bool take(std::uint64_t key, LiveBlock& out) {
    if (slots_.empty()) return false;
    std::size_t i = slot_of(key);
    for (;; i = (i + 1) & mask_) {
      if (!slots_[i].block.id.valid()) return false;
      if (slots_[i].key == key) break;
    }
    out = slots_[i].block;
    // Shift later members of the probe run back into the hole, unless their
    // home slot lies cyclically in (hole, j].
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & mask_; slots_[j].block.id.valid(); j = (j + 1) & mask_) {
      const std::size_t home = slot_of(slots_[j].key);
      const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (stays) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole] = Slot{};
    --size_;
    return true;
  }

  // A hint: the key is looked up soon (its probe run starts in its slot).
  void prefetch(std::uint64_t key) const {
    if (!slots_.empty()) prefetch_hint(&slots_[slot_of(key)]);
  }

  std::size_t size() const { return size_; }

  template <class F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.block.id.valid()) f(s.block);
    }
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    LiveBlock block;  // an invalid id: empty
  };

  // Keys in one KiB of addresses take neighbouring slots from a place
  // hashed from that KiB: blocks allocated together mostly lie together, so
  // their slots share cache lines instead of each costing a miss. The place
  // is any slot, and the stretch short (64 slots), so that dense heaps and
  // keys at one offset of many pages (aligned blocks) still spread, at
  // little more than the cost of a hash of each key.
  std::size_t slot_of(std::uint64_t key) const {
    return static_cast<std::size_t>(FlatIndex::mix(key >> 10) + ((key >> 4) & 0x3F)) & mask_;
  }

  void grow() {
    decltype(slots_) old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (!s.block.id.valid()) continue;
      std::size_t i = slot_of(s.key);
      while (slots_[i].block.id.valid()) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace heapql
