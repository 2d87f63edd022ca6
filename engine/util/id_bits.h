// A bit per dense id, grown as ids come: which stack nodes have children
// indexed, which stacks have buckets. A clear bit answers "absent" from a
// megabyte that stays in cache, without probing an index of tens of megabytes.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace heapql {

class IdBits {
 public:
  bool test(std::uint32_t id) const {
    const std::size_t word = id / 64;
    return word < words_.size() && (words_[word] >> (id % 64) & 1u) != 0;
  }
  void set(std::uint32_t id) {
    const std::size_t word = id / 64;
    if (word >= words_.size()) words_.resize(word + 1 + words_.size() / 2);
    words_[word] |= std::uint64_t{1} << (id % 64);
  }
  std::size_t memory_bytes() const { return words_.capacity() * sizeof(std::uint64_t); }
  // Bit `id % 64` of word `id / 64` is id's; words past the last set bit may be missing.
  const std::vector<std::uint64_t>& words() const { return words_; }
  // The words, handed over: this is then empty.
  std::vector<std::uint64_t> take_words() { return std::move(words_); }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace heapql
