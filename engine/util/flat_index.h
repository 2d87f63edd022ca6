// An open-addressing hash index of 32-bit ids, for the interning hot paths
// (millions of stack nodes and buckets). It stores ids only, 4 bytes a slot:
// the caller keeps the keys in its own table and says how to hash and compare
// an id, so nothing is stored twice and there is no node per entry.
//
// Ids are dense (the n-th id inserted is n), and a table of 2^k slots holds
// fewer than 2^k ids, so the bits of a slot above the k an id needs carry a
// tag from the hash: a probe compares keys only when the tag matches, instead
// of reading a random key for every occupied slot it passes.
//
// The table is at most half full by default. Most lookups while interning
// are for keys not there yet, and such a lookup (and an insert) walks to the
// next empty slot: at 3/4 full that is 8.5 slots on average, often into the
// next cache line, a second miss; at half full, 2.5. Measured faster for
// about the same memory (docs/one-shot-speed.md). An index looked up far
// less often than it holds memory may take up to 3/4 full instead.
//
// Inserts wait in a short queue and go into the table a batch at a time,
// each slot fetched as its id is queued, so that their cache misses overlap
// instead of following one another (an interning read inserts millions of
// ids into tens of megabytes of slots); a lookup looks in the queue first.
// Growing the table places the stored ids in batches too.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "engine/util/huge_page_allocator.h"
#include "engine/util/prefetch_hint.h"

namespace heapql {

class FlatIndex {
 public:
  static constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;

  // How full the table gets before it doubles.
  enum class MostFull { kHalf, kThreeQuarters };
  explicit FlatIndex(MostFull most_full = MostFull::kHalf) : most_full_(most_full) {}

  // The id whose key equals the probe (`is_key(id)`), among those stored
  // with `hash`; kAbsent if none.
  template <class IsKey>
  std::uint32_t find(std::uint64_t hash, IsKey&& is_key) const {
    for (std::size_t q = 0; q < queued_; ++q) {
      if (queue_[q].hash == hash && is_key(queue_[q].id)) return queue_[q].id;
    }
    if (slots_.empty()) return kAbsent;
    const std::uint32_t tag = tag_of(hash);
    for (std::size_t i = slot_of(hash);; i = (i + 1) & mask_) {
      const std::uint32_t slot = slots_[i];
      if (slot == kAbsent) return kAbsent;
      if ((slot & ~id_mask_) == tag && is_key(slot & id_mask_)) return slot & id_mask_;
    }
  }

  // Stores the next id (ids are inserted as 0, 1, 2, ...) under `hash`, after
  // `find` said it is absent; `hash_of(id)` rehashes stored ids, in id order,
  // when the table grows.
  template <class HashOf>
  void insert(std::uint64_t hash, std::uint32_t id, HashOf&& hash_of) {
    if (id != size_) throw std::logic_error("FlatIndex: ids must be inserted densely, in order");
    queue_[queued_++] = Queued{hash, id};
    ++size_;
    prefetch(hash);
    if (queued_ == kQueueLength) place_queue(hash_of);
  }

  // A hint: the slot where a lookup of `hash` starts will be read soon.
  void prefetch(std::uint64_t hash) const {
    if (!slots_.empty()) prefetch_hint(&slots_[slot_of(hash)]);
  }

  std::size_t size() const { return size_; }  // the queued ids too
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
  // The slot position takes the hash's low bits; the tag its high ones.
  std::uint32_t tag_of(std::uint64_t hash) const { return static_cast<std::uint32_t>(hash >> 32) & ~id_mask_; }

  // Stored ids are placed again from their hashes, not from the old slots:
  // those go first, so the table never needs twice its memory.
  void resize(std::size_t slot_count) {
    slots_ = {};
    slots_.assign(slot_count, kAbsent);
    mask_ = slot_count - 1;
    std::uint32_t id_bits = 0;
    while (id_bits < 32 && (std::size_t{1} << id_bits) < slot_count) ++id_bits;
    // Fewer ids than slots, at most 3/4: an id never sets all its bits, so a
    // slot is never kAbsent by accident.
    id_mask_ = id_bits >= 32 ? 0xFFFFFFFFu : (1u << id_bits) - 1;
  }

  static constexpr std::size_t kQueueLength = 32;
  struct Queued {
    std::uint64_t hash;
    std::uint32_t id;
  };

  template <class HashOf>
  void place_queue(HashOf&& hash_of) {
    const std::size_t placed = size_ - queued_;
    if (too_many_for(slots_.size())) {
      std::size_t slot_count = slots_.empty() ? 1024 : slots_.size() * 2;
      while (too_many_for(slot_count)) slot_count *= 2;
      resize(slot_count);
      std::array<std::uint64_t, kQueueLength> hashes;
      for (std::size_t first = 0; first < placed; first += kQueueLength) {
        const std::size_t count = std::min(kQueueLength, placed - first);
        for (std::size_t k = 0; k < count; ++k) {
          hashes[k] = hash_of(static_cast<std::uint32_t>(first + k));
          prefetch(hashes[k]);
        }
        for (std::size_t k = 0; k < count; ++k) place(hashes[k], static_cast<std::uint32_t>(first + k));
      }
    }
    for (std::size_t q = 0; q < queued_; ++q) place(queue_[q].hash, queue_[q].id);
    queued_ = 0;
  }

  bool too_many_for(std::size_t slot_count) const {
    return most_full_ == MostFull::kHalf ? size_ * 2 > slot_count : size_ * 4 > slot_count * 3;
  }

  void place(std::uint64_t hash, std::uint32_t id) {
    std::size_t i = slot_of(hash);
    while (slots_[i] != kAbsent) i = (i + 1) & mask_;
    slots_[i] = id | tag_of(hash);
  }

  MostFull most_full_;
  std::vector<std::uint32_t, HugePageAllocator<std::uint32_t>> slots_;
  std::size_t mask_ = 0;
  std::uint32_t id_mask_ = 0xFFFFFFFFu;
  std::size_t size_ = 0;  // ids placed and queued
  std::array<Queued, kQueueLength> queue_{};
  std::size_t queued_ = 0;
};

}  // namespace heapql
