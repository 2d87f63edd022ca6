// An append-only column of 32-bit ids read at random, for ids that mostly
// step by one from the entry before: heaptrack's trace indices to stack ids,
// where a trace usually defines the next new stack node, and only a trace
// that meets a node made before (or an IP with inlined frames) breaks the run.
// Each block of 64 entries keeps its first id and a bit for each entry that
// breaks a run, whose id is kept apart: about a quarter of a byte an entry
// where a plain column takes four, and a block table small enough to stay
// in the caches.
//
// Where breaks are common (a C++ program's trace, whose symbolized frames
// merge many traces into one stack: a sixth of the allocation infos of a
// clang++ compile break their run), a lookup mostly takes the rank path,
// and whether it does is a branch that mispredicts. A column read many times
// an entry (allocation infos: once an event) can be made to turn plain then:
// four bytes an entry, one load a lookup.
#pragma once

#include <bit>
#include <cstdint>

#include "engine/util/bit_count.h"
#include "engine/util/chunked_vector.h"

namespace heapql {

class IdRunColumn {
 public:
  enum class WhenBreaksAreCommon { kStayRuns, kTurnPlain };

  explicit IdRunColumn(WhenBreaksAreCommon policy = WhenBreaksAreCommon::kStayRuns)
      : may_turn_plain_(policy == WhenBreaksAreCommon::kTurnPlain) {}

  void push_back(std::uint32_t id) {
    const std::size_t at = size_ % kBlock;
    if (at == 0 || plain_) [[unlikely]] {
      push_back_slow(id);
      return;
    }
    if (id != last_ + 1) {
      blocks_[blocks_.size() - 1].breaks |= std::uint64_t{1} << at;
      breaks_.push_back(id);
    }
    last_ = id;
    ++size_;
  }

  std::uint32_t operator[](std::size_t i) const {
    if (plain_) return plain_ids_[i];
    const Block& block = blocks_[i / kBlock];
    const auto at = static_cast<unsigned>(i % kBlock);
    // The block's breaks at or before `at`, shifted so that `at` is the top bit.
    const std::uint64_t up_to = block.breaks << (kBlock - 1 - at);
    if (up_to == 0) return block.first + at;
    const auto latest = at - static_cast<unsigned>(std::countl_zero(up_to));
    const auto rank = std::size_t{count_set_bits(block.breaks & ((std::uint64_t{1} << latest) - 1))};
    return breaks_[block.first_break + rank] + (at - latest);
  }

  // The last entry, with no lookup: most of heaptrack's traces continue the
  // trace just before.
  std::uint32_t back() const { return last_; }
  std::size_t size() const { return size_; }
  bool is_plain() const { return plain_; }
  std::size_t memory_bytes() const {
    return blocks_.memory_bytes() + breaks_.memory_bytes() + plain_ids_.memory_bytes();
  }

 private:
  static constexpr std::size_t kBlock = 64;
  // Breaks are judged common past one a block on average (about half of the
  // lookups then take the rank path) over the last kJudgedBlocks blocks:
  // recent ones, since a program's start (an interpreter's own C code) can
  // break runs that its main part does not.
  static constexpr std::size_t kJudgedBlocks = 1024;
  struct Block {
    std::uint32_t first;        // the id of the block's first entry
    std::uint32_t first_break;  // into breaks_: the block's first break
    std::uint64_t breaks;       // bit k: entry k's id is not the one before's plus one
  };

  // Whether the blocks since the last judgement broke runs commonly; starts
  // the next judgement.
  bool judge_breaks() {
    const std::size_t breaks = breaks_.size() - breaks_at_last_judgement_;
    breaks_at_last_judgement_ = breaks_.size();
    return breaks > kJudgedBlocks;
  }

  // push_back at a block's start, or once plain: out of line, so that
  // push_back inlines where most entries go.
  [[gnu::noinline]] void push_back_slow(std::uint32_t id) {
    if (!plain_ && may_turn_plain_ && blocks_.size() % kJudgedBlocks == 0 && judge_breaks()) turn_plain();
    if (plain_) {
      plain_ids_.push_back(id);
    } else {
      blocks_.push_back(Block{id, static_cast<std::uint32_t>(breaks_.size()), 0});
    }
    last_ = id;
    ++size_;
  }

  // Copies every entry into the plain column, then frees the runs.
  void turn_plain() {
    for (std::size_t i = 0; i < size_; ++i) plain_ids_.push_back((*this)[i]);
    plain_ = true;
    blocks_ = {};
    breaks_ = {};
  }

  ChunkedVector<Block> blocks_;
  ChunkedVector<std::uint32_t> breaks_;
  ChunkedVector<std::uint32_t> plain_ids_;  // every entry, once plain_
  std::uint32_t last_ = 0;  // the last entry
  std::size_t size_ = 0;
  std::size_t breaks_at_last_judgement_ = 0;
  bool may_turn_plain_ = false;
  bool plain_ = false;
};

}  // namespace heapql
