// An append-only column of 32-bit ids read at random, for ids that mostly
// step by one from the entry before: heaptrack's trace indices to stack ids,
// where a trace usually defines the next new stack node, and only a trace
// that meets a node made before (or an IP with inlined frames) breaks the run.
// Each block of 64 entries keeps its first id and a bit for each entry that
// breaks a run, whose id is kept apart: about a quarter of a byte an entry
// where a plain column takes four (28 MB on the walk bench trace's 7 M
// traces), and a block table small enough to stay in the caches.
#pragma once

#include <bit>
#include <cstdint>

#include "engine/store/bit_count.h"
#include "engine/store/chunked_vector.h"

namespace heapql {

class IdRunColumn {
 public:
  void push_back(std::uint32_t id) {
    const std::size_t at = size_ % kBlock;
    if (at == 0) {
      blocks_.push_back(Block{id, static_cast<std::uint32_t>(breaks_.size()), 0});
    } else if (id != last_ + 1) {
      blocks_[blocks_.size() - 1].breaks |= std::uint64_t{1} << at;
      breaks_.push_back(id);
    }
    last_ = id;
    ++size_;
  }

  std::uint32_t operator[](std::size_t i) const {
    const Block& block = blocks_[i / kBlock];
    const auto at = static_cast<unsigned>(i % kBlock);
    // The block's breaks at or before `at`, shifted so that `at` is the top bit.
    const std::uint64_t up_to = block.breaks << (kBlock - 1 - at);
    if (up_to == 0) return block.first + at;
    const auto latest = at - static_cast<unsigned>(std::countl_zero(up_to));
    const auto rank = std::size_t{count_set_bits(block.breaks & ((std::uint64_t{1} << latest) - 1))};
    return breaks_[block.first_break + rank] + (at - latest);
  }

  std::size_t size() const { return size_; }
  std::size_t memory_bytes() const { return blocks_.memory_bytes() + breaks_.memory_bytes(); }

 private:
  static constexpr std::size_t kBlock = 64;
  struct Block {
    std::uint32_t first;        // the id of the block's first entry
    std::uint32_t first_break;  // into breaks_: the block's first break
    std::uint64_t breaks;       // bit k: entry k's id is not the one before's plus one
  };

  ChunkedVector<Block> blocks_;
  ChunkedVector<std::uint32_t> breaks_;
  std::uint32_t last_ = 0;
  std::size_t size_ = 0;
};

}  // namespace heapql
