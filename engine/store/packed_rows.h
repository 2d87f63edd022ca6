// Rows of kFields unsigned fields (up to 64 bits each), packed 64 rows to a
// block (docs/store-format.md, "Packed rows"): per block, each field's base
// (the block's least value) and width (the bits of its largest value less
// the base), and the block's rows side by side, each row's fields one after
// another, all rows of a block equally wide. Row i is then read from its
// block's directory entry and its own bits, without decoding anything else:
// two reads where a table of records took one, in a fraction of the bytes.
// The store's stack tree and buckets are kept so.
//
// The words: the blocks' rows, one block after another (64 rows of W bits
// take W words). Then the directory: per block kEntryWords words, the
// first word of its rows, then each field's base, then the fields' widths,
// a byte each; and one more word, the rows' words count.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "engine/error.h"

namespace heapql {

template <std::size_t kFields>
class PackedRows {
 public:
  static constexpr std::size_t kBlockRows = 64;
  static constexpr std::size_t kWidthWords = (kFields + 7) / 8;
  static constexpr std::size_t kEntryWords = 1 + kFields + kWidthWords;
  static constexpr std::size_t kFieldCount = kFields;
  using Row = std::array<std::uint64_t, kFields>;

  static constexpr std::uint64_t block_count(std::uint64_t rows) { return (rows + kBlockRows - 1) / kBlockRows; }

 private:
  // A block's entry, its rows' words and its widths, checked (block()).
  struct Block {
    const std::uint64_t* entry;
    const std::uint64_t* rows;
    std::array<unsigned, kFields> widths;
    std::uint64_t row_width;
  };

 public:
  PackedRows() = default;

  // A view of `count` rows in `words` (the rows' words, then the
  // directory). Empty text when the sizes agree; else what is wrong. A
  // block's widths and place are checked when it is read (a damaged one
  // throws there), so that a view costs no pass over the directory.
  static std::string view(std::span<const std::uint64_t> words, std::uint64_t count, PackedRows& out) {
    const std::uint64_t blocks = block_count(count);
    if (words.size() < 1 || (words.size() - 1) / kEntryWords < blocks) {
      return "its bytes are fewer than its rows' directory";
    }
    const std::uint64_t row_words = words.size() - 1 - blocks * kEntryWords;
    if (words[words.size() - 1] != row_words) return "its directory's last word is not the count of its rows' words";
    out = PackedRows();
    out.words_ = words.data();
    out.directory_ = words.data() + row_words;
    out.row_words_ = row_words;
    out.count_ = static_cast<std::size_t>(count);
    return {};
  }

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }

  Row operator[](std::size_t i) const {
    const Block b = block(i / kBlockRows);
    std::uint64_t at = std::uint64_t{i % kBlockRows} * b.row_width;
    Row row;
    for (std::size_t f = 0; f < kFields; ++f) {
      row[f] = b.entry[1 + f] + (bits_at(b.rows, at) & mask(b.widths[f]));
      at += b.widths[f];
    }
    return row;
  }

  // Block k's rows into `out` (past the table's end: the bases), a field
  // at a time.
  void decode_block(std::size_t k, Row* out) const {
    const Block b = block(k);
    if (b.row_width <= kNarrow) {  // a row's fields all from one load (most blocks)
      std::array<unsigned, kFields> shifts;
      std::array<std::uint64_t, kFields> masks;
      unsigned shift = 0;
      for (std::size_t f = 0; f < kFields; ++f) {
        shifts[f] = shift;
        masks[f] = mask(b.widths[f]);
        shift += b.widths[f];
      }
      std::uint64_t at = 0;
      for (std::size_t j = 0; j < kBlockRows; ++j, at += b.row_width) {
        const std::uint64_t v = b.row_width == 0 ? 0 : narrow_bits_at(b.rows, at);
        for (std::size_t f = 0; f < kFields; ++f) out[j][f] = b.entry[1 + f] + ((v >> shifts[f]) & masks[f]);
      }
      return;
    }
    std::uint64_t offset = 0;
    for (std::size_t f = 0; f < kFields; ++f) {
      const std::uint64_t base = b.entry[1 + f];
      if (b.widths[f] == 0) {  // one value (a bucket's heap and thread, mostly): no bits to read
        for (std::size_t j = 0; j < kBlockRows; ++j) out[j][f] = base;
        continue;
      }
      const std::uint64_t m = mask(b.widths[f]);
      std::uint64_t at = offset;
      if (b.widths[f] <= kNarrow) {
        for (std::size_t j = 0; j < kBlockRows; ++j, at += b.row_width) out[j][f] = base + (narrow_bits_at(b.rows, at) & m);
      } else {
        for (std::size_t j = 0; j < kBlockRows; ++j, at += b.row_width) out[j][f] = base + (bits_at(b.rows, at) & m);
      }
      offset += b.widths[f];
    }
  }

  // Block k's fields, its entry read and checked once: each field's least
  // and greatest value its base and width allow (every row's lies between:
  // a rule they both meet needs no row decoded), and its values decoded.
  struct FieldRange {
    std::uint64_t least, greatest;
    bool wraps;  // the greatest passes 2^64: no bound
  };
  class BlockFields {
   public:
    FieldRange range(std::size_t f) const {
      const std::uint64_t base = b_.entry[1 + f];
      const std::uint64_t greatest = base + mask(b_.widths[f]);
      return {base, greatest, greatest < base};
    }
    void decode(std::size_t f, std::uint64_t* out) const {
      std::uint64_t at = 0;
      for (std::size_t g = 0; g < f; ++g) at += b_.widths[g];
      const std::uint64_t base = b_.entry[1 + f];
      const std::uint64_t m = mask(b_.widths[f]);
      for (std::size_t j = 0; j < kBlockRows; ++j, at += b_.row_width) out[j] = base + (bits_at(b_.rows, at) & m);
    }

   private:
    friend class PackedRows;
    explicit BlockFields(const Block& b) : b_(b) {}
    Block b_;
  };
  BlockFields block_fields(std::size_t k) const { return BlockFields(block(k)); }

  // Where row i's directory entry lies, to fetch it ahead (prefetch_hint).
  const void* entry_address(std::size_t i) const { return directory_ + (i / kBlockRows) * kEntryWords; }

  // The rows' words and the directory's bytes.
  std::size_t bytes() const {
    return directory_ == nullptr ? 0 : (row_words_ + block_count(count_) * kEntryWords + 1) * 8;
  }

 private:

  // Block k's entry, its widths and place checked.
  Block block(std::size_t k) const {
    Block b;
    b.entry = directory_ + k * kEntryWords;
    const std::uint64_t first = b.entry[0];
    b.row_width = 0;
    for (std::size_t f = 0; f < kFields; ++f) {
      b.widths[f] = static_cast<std::uint8_t>(b.entry[1 + kFields + f / 8] >> (8 * (f % 8)));
      b.row_width += b.widths[f];
    }
    unsigned too_wide = 0;
    for (std::size_t f = 0; f < kFields; ++f) too_wide |= unsigned{b.widths[f] > 64};
    // 64 rows of row_width bits take row_width words.
    if (too_wide != 0 || first > row_words_ || b.row_width > row_words_ - first) [[unlikely]] {
      bad_block(k, too_wide != 0);
    }
    b.rows = words_ + first;
    return b;
  }

  // The 64 bits from bit `at` of `words` on (those past the word after
  // the one `at` is in read as 0). Without a branch: `at`'s word and the
  // next are read whatever the width, so a block's last bits read the word
  // after it, which is the next block's, or the directory's.
  static std::uint64_t bits_at(const std::uint64_t* words, std::uint64_t at) {
    const std::uint64_t* word = words + (at >> 6);
    const auto shift = static_cast<unsigned>(at & 63);
    return (word[0] >> shift) | ((word[1] << 1) << (63 - shift));
  }
  // A field of at most kNarrow bits is read as the 8 bytes its first bit
  // is in, one load (within the block's words and the word after them).
  static constexpr unsigned kNarrow = 56;
  static std::uint64_t narrow_bits_at(const std::uint64_t* words, std::uint64_t at) {
    std::uint64_t v;
    std::memcpy(&v, reinterpret_cast<const unsigned char*>(words) + (at >> 3), sizeof v);
    return v >> (at & 7);
  }
  static std::uint64_t mask(unsigned width) { return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1; }

  [[noreturn]] static void bad_block(std::size_t k, bool too_wide) {
    throw Error("store is inconsistent: block " + std::to_string(k) + " of a packed table " +
                (too_wide ? std::string("has a field wider than 64 bits") : std::string("lies past its words")));
  }

  const std::uint64_t* words_ = nullptr;
  const std::uint64_t* directory_ = nullptr;
  std::uint64_t row_words_ = 0;
  std::size_t count_ = 0;
};

}  // namespace heapql
