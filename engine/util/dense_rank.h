// Numbers the set bits of a bit set densely, in bit order: the first set bit
// is 0, the next 1, and so on. For rows or keys of which only some exist, so
// that arrays hold the existing ones only: a count of the set bits before
// each word of 64, and a bit count within the word.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "engine/util/bit_count.h"

namespace heapql {

class DenseRank {
 public:
  DenseRank() = default;
  // Bit `i % 64` of word `i / 64` is bit i.
  explicit DenseRank(std::vector<std::uint64_t> words) : words_(std::move(words)), below_(words_.size()) {
    for (std::size_t word = 0; word < words_.size(); ++word) {
      below_[word] = static_cast<std::uint32_t>(count_);
      count_ += count_set_bits(words_[word]);
    }
    identity_ = first_bits_set();
  }

  // The dense number of bit i, which is set.
  std::uint32_t operator()(std::size_t i) const {
    if (identity_) return static_cast<std::uint32_t>(i);
    const std::uint64_t earlier = words_[i / 64] & ((std::uint64_t{1} << (i % 64)) - 1);
    return below_[i / 64] + count_set_bits(earlier);
  }
  // How many bits are set.
  std::size_t count() const { return count_; }
  // Whether the set bits are 0 .. count() - 1, each its own dense number.
  bool identity() const { return identity_; }
  // f(i) for every set bit i, ascending (in dense order, then).
  template <class F>
  void each(F&& f) const {
    for (std::size_t word = 0; word < words_.size(); ++word) {
      for (std::uint64_t bits = words_[word]; bits != 0; bits &= bits - 1) {
        f(word * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
      }
    }
  }

 private:
  // Whether the set bits are 0 .. count_ - 1: every row present, say.
  bool first_bits_set() const {
    const std::size_t full = count_ / 64;
    for (std::size_t word = 0; word < full; ++word) {
      if (words_[word] != ~std::uint64_t{0}) return false;
    }
    return count_ % 64 == 0 || words_[full] == (std::uint64_t{1} << (count_ % 64)) - 1;
  }

  std::vector<std::uint64_t> words_;
  std::vector<std::uint32_t> below_;  // set bits in the words before each
  std::size_t count_ = 0;
  bool identity_ = true;  // the dense number of bit i is i: no counting
};

}  // namespace heapql
