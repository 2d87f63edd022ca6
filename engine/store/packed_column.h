// A column of u32 values packed in blocks of 64, each at the bit width its
// own range needs (docs/store-format.md, "Packed columns"), read in place:
// value i is its block's base plus i's bits, found from a directory entry
// without decoding anything else. The store's three block columns are kept
// so, in memory as in the file.
//
// The words: the blocks, one after another, block k's 64 values of w bits
// in w words (value j at bit j*w). Then the directory: per block a u64,
// its base in the low 32 bits and its first word in the high 32, and one
// more entry (base 0) whose first word is the words' count. Block k's width
// is the next entry's first word minus its own, so it takes no field.
//
// A value is stored rotated left by `rotation` bits (and rotated back when
// read): the frees column rotates the temporary bit to the bottom, so that
// a block's ids, not that bit, set its range.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>

#include "engine/error.h"
#include "engine/store/bit_unpack.h"

namespace heapql {

// Values are read as bytes of the u64 words (a value's 8 bytes from its
// first): the words are little-endian, in the file and in memory.
static_assert(std::endian::native == std::endian::little);

class PackedColumn {
 public:
  static constexpr std::size_t kBlockValues = BitUnpack::kValues;
  static constexpr std::uint32_t kMaxWidth = BitUnpack::kMaxWidth;

  static constexpr std::uint64_t block_count(std::uint64_t values) { return (values + kBlockValues - 1) / kBlockValues; }
  static constexpr std::uint64_t directory_entry(std::uint32_t base, std::uint32_t first_word) {
    return std::uint64_t{first_word} << 32 | base;
  }

  // Whether a block whose words are [first, end) lies in order within a
  // column's `packed_words` words, at most 32 bits wide. Entries out of
  // order make `end - first` wrap: mostly far beyond 32, but a first word
  // near 2^32 wraps to a small width (found by the store fuzz target), so
  // the order is checked too.
  static constexpr bool block_lies_within(std::uint64_t first, std::uint64_t end, std::uint64_t packed_words) {
    return first <= end && end - first <= kMaxWidth && end <= packed_words;
  }

  PackedColumn() = default;

  // A view of `count` values in `words` (the words, then the directory).
  // Empty text when the sizes agree; else what is wrong. A block's width
  // and place are checked when it is read (a damaged one throws there), so
  // that a view costs no pass over the directory.
  static std::string view(std::span<const std::uint64_t> words, std::uint64_t count, unsigned rotation,
                          PackedColumn& out) {
    const std::uint64_t blocks = block_count(count);
    if (words.size() < blocks + 1) return "its bytes are fewer than its values' directory";
    const std::uint64_t packed = words.size() - blocks - 1;
    const std::uint64_t end = words[words.size() - 1];
    if (end != directory_entry(0, static_cast<std::uint32_t>(packed)) || packed > 0xFFFFFFFFu) {
      return "its directory's last entry is not the count of its words";
    }
    out = PackedColumn();
    out.words_ = words.data();
    out.directory_ = words.data() + packed;
    out.packed_words_ = static_cast<std::uint32_t>(packed);
    out.count_ = static_cast<std::size_t>(count);
    out.rotation_ = rotation % 32;
    return {};
  }

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }

  std::uint32_t operator[](std::size_t i) const {
    const std::size_t k = i / kBlockValues;
    const std::uint64_t entry = directory_[k];
    const auto first = static_cast<std::uint32_t>(entry >> 32);
    const auto end = static_cast<std::uint32_t>(directory_[k + 1] >> 32);
    const std::uint32_t width = checked_width(k, first, end);
    // The 8 bytes from the value's first: at most 7 bits before it and 32
    // of it, so one load and no branch (a replay's lookups pick blocks and
    // widths at random). They may reach up to 7 bytes past the block's
    // words: into the next block or the directory, which follows the words
    // and has at least its end entry. A width-0 block's mask is 0.
    const std::uint64_t bit = std::uint64_t{first} * 64 + std::uint64_t{i % kBlockValues} * width;
    std::uint64_t v;
    std::memcpy(&v, reinterpret_cast<const unsigned char*>(words_) + bit / 8, sizeof v);
    const auto bits = static_cast<std::uint32_t>((v >> (bit % 8)) & ((std::uint64_t{1} << width) - 1));
    return std::rotr(static_cast<std::uint32_t>(entry) + bits, static_cast<int>(rotation_));
  }

  // Block k's 64 values into `out` (past the column's end: its base).
  void decode_block(std::size_t k, std::uint32_t* out) const {
    const std::uint64_t entry = directory_[k];
    const auto first = static_cast<std::uint32_t>(entry >> 32);
    const auto end = static_cast<std::uint32_t>(directory_[k + 1] >> 32);
    const std::uint32_t width = checked_width(k, first, end);
    // (Width 0, a block of equal values, reads no word: a view's high halves, mostly.)
    BitUnpack::block(width, words_ + first, static_cast<std::uint32_t>(entry), out);
    if (rotation_ != 0) {
      for (std::size_t j = 0; j < kBlockValues; ++j) out[j] = std::rotr(out[j], static_cast<int>(rotation_));
    }
  }

  // Whether block k's values are all one (its width is 0), and that value.
  std::optional<std::uint32_t> block_value(std::size_t k) const {
    const std::uint64_t entry = directory_[k];
    if (entry >> 32 != directory_[k + 1] >> 32) return std::nullopt;
    return std::rotr(static_cast<std::uint32_t>(entry), static_cast<int>(rotation_));
  }

  // The index of the first value at or past `v`, for a column whose values
  // ascend (the allocation times); any index in [0, size()] otherwise.
  std::size_t lower_bound(std::uint64_t v) const {
    // The blocks by their bases (their first values), then within one.
    std::size_t lo = 0, hi = block_count(count_);
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::uint32_t>(directory_[mid]) < v) lo = mid + 1;
      else hi = mid;
    }
    // Block lo-1 is the last whose first value is below v: the answer is in it, or at lo's first.
    std::size_t first = lo == 0 ? 0 : (lo - 1) * kBlockValues;
    std::size_t last = std::min(count_, lo * kBlockValues);
    while (first < last) {
      const std::size_t mid = first + (last - first) / 2;
      if ((*this)[mid] < v) first = mid + 1;
      else last = mid;
    }
    return first;
  }

  // Where value i's directory entry and its bits lie, to fetch them ahead
  // (prefetch_hint): an address in the column's memory, however damaged.
  const void* entry_address(std::size_t i) const { return directory_ + i / kBlockValues; }
  const void* bits_address(std::size_t i) const {
    const auto first = static_cast<std::uint32_t>(directory_[i / kBlockValues] >> 32);
    return words_ + std::min(first, packed_words_);
  }

  // The words and directory's bytes.
  std::size_t bytes() const {
    return count_ == 0 && directory_ == nullptr ? 0
                                                 : (std::size_t{packed_words_} + block_count(count_) + 1) * 8;
  }

 private:
  // Block k's width, its words checked to lie within the column's.
  std::uint32_t checked_width(std::size_t k, std::uint32_t first, std::uint32_t end) const {
    if (!block_lies_within(first, end, packed_words_)) [[unlikely]] bad_block(k, end - first, first > end);
    return end - first;
  }

  [[noreturn]] static void bad_block(std::size_t k, std::uint32_t width, bool starts_past_its_end) {
    throw Error("store is inconsistent: block " + std::to_string(k) + " of a packed column " +
                (width > kMaxWidth      ? "is " + std::to_string(width) + " bits wide, beyond 32"
                 : starts_past_its_end ? std::string("starts past its end")
                                       : std::string("lies past its words")));
  }

  const std::uint64_t* words_ = nullptr;
  const std::uint64_t* directory_ = nullptr;
  std::uint32_t packed_words_ = 0;
  std::size_t count_ = 0;
  unsigned rotation_ = 0;
};

// Reads a packed column mostly in order (a replay's allocations and frees):
// a block decoded at once, then its values from a buffer.
class PackedReader {
 public:
  explicit PackedReader(const PackedColumn& column) : column_(column) {}
  std::uint32_t operator[](std::size_t i) {
    const std::size_t k = i / PackedColumn::kBlockValues;
    if (k != block_) [[unlikely]] {
      column_.decode_block(k, values_);
      block_ = k;
    }
    return values_[i % PackedColumn::kBlockValues];
  }

 private:
  const PackedColumn& column_;
  std::size_t block_ = static_cast<std::size_t>(-1);
  std::uint32_t values_[PackedColumn::kBlockValues];
};

}  // namespace heapql
