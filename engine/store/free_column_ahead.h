// Reads a store's free column in order, fetching ahead what each free's
// block is looked up in: its bucket (and, for a replay that feeds blocks,
// its allocation time), each a random read in a big packed column, a
// directory entry and then the bits it points to. The entries are fetched
// kFar frees ahead, the bits (their entry read by then) kNear ahead. One
// decoding of the free column serves all three: the words read kFar ahead
// wait in a ring until their turn, where three readers of the column
// decoded each of its blocks three times (cxx's window, nearly all of
// whose time is the columns' decoding: docs/store.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "engine/store/packed_column.h"
#include "engine/store/store_columns.h"
#include "engine/util/prefetch_hint.h"

namespace heapql {

class FreeColumnAhead {
 public:
  enum class Lookups { kBucket, kBucketAndAllocation };

  // Frees [first, end) will be read, each once and in order; only blocks
  // below `blocks` are fetched (a damaged id is the caller's to refuse).
  FreeColumnAhead(const StoreColumns& c, std::size_t first, std::size_t end, std::size_t blocks,
                  Lookups lookups = Lookups::kBucket)
      : c_(c), reader_(c.free_order), end_(end), blocks_(blocks), lookups_(lookups) {
    for (std::size_t f = first; f < end && f < first + kFar; ++f) {
      ring_[f & kRingMask] = reader_[f];
      fetch_entries(ring_[f & kRingMask]);
    }
  }

  // Free f's word (its block and temporary bit): f is `first` at the first
  // call, then one more at each.
  std::uint32_t word(std::size_t f) {
    if (f + kFar < end_) {
      const std::uint32_t far = reader_[f + kFar];
      ring_[(f + kFar) & kRingMask] = far;
      fetch_entries(far);
    }
    if (f + kNear < end_) fetch_bits(ring_[(f + kNear) & kRingMask]);
    return ring_[f & kRingMask];
  }

 private:
  static constexpr std::size_t kFar = 16, kNear = 8;
  static constexpr std::size_t kRingMask = 31;  // a power of two minus one, above kFar
  static_assert(kFar <= kRingMask && kNear < kFar);

  void fetch_entries(std::uint32_t word) const {
    const std::uint32_t block = word & StoreColumns::kBlockMask;
    if (block >= blocks_) return;
    prefetch_hint(c_.bucket.entry_address(block));
    if (lookups_ == Lookups::kBucketAndAllocation) prefetch_hint(c_.alloc_seq.entry_address(block));
  }
  void fetch_bits(std::uint32_t word) const {
    const std::uint32_t block = word & StoreColumns::kBlockMask;
    if (block >= blocks_) return;
    prefetch_hint(c_.bucket.bits_address(block));
    if (lookups_ == Lookups::kBucketAndAllocation) prefetch_hint(c_.alloc_seq.bits_address(block));
  }

  const StoreColumns& c_;
  PackedReader reader_;
  std::size_t end_;
  std::size_t blocks_;
  Lookups lookups_;
  std::array<std::uint32_t, kRingMask + 1> ring_{};
};

}  // namespace heapql
