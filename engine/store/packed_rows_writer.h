// Packs rows as they come (packed_rows.h): 64 at a time, each field of a
// block at the width its range needs, into a sink of u64 words
// (push_back): a vector, or a section written a piece at a time. The
// directory is held until finish() appends it.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "engine/store/packed_rows.h"

namespace heapql {

template <std::size_t kFields, class Sink = std::vector<std::uint64_t>>
class PackedRowsWriter {
 public:
  using Rows = PackedRows<kFields>;
  using Row = typename Rows::Row;

  explicit PackedRowsWriter(Sink& words) : words_(words) {}

  void push_back(const Row& row) {
    pending_[count_ % Rows::kBlockRows] = row;
    if (++count_ % Rows::kBlockRows == 0) put_block(Rows::kBlockRows);
  }

  // Writes the last block (its unused rows as its bases) and the directory. Once.
  void finish() {
    if (const std::size_t rest = count_ % Rows::kBlockRows; rest != 0) put_block(rest);
    for (const std::uint64_t word : directory_) words_.push_back(word);
    words_.push_back(row_words_);
  }

  std::uint64_t count() const { return count_; }

 private:
  void put_block(std::size_t n) {
    Row base, highest{};
    for (std::size_t f = 0; f < kFields; ++f) {
      base[f] = pending_[0][f];
      for (std::size_t j = 1; j < n; ++j) base[f] = std::min(base[f], pending_[j][f]);
      for (std::size_t j = 0; j < n; ++j) highest[f] |= pending_[j][f] - base[f];
    }
    std::array<std::uint64_t, Rows::kWidthWords> widths{};
    std::uint64_t row_width = 0;
    for (std::size_t f = 0; f < kFields; ++f) {
      const auto width = static_cast<unsigned>(std::bit_width(highest[f]));
      widths[f / 8] |= std::uint64_t{width} << (8 * (f % 8));
      row_width += width;
    }
    directory_.push_back(row_words_);
    directory_.insert(directory_.end(), base.begin(), base.end());
    directory_.insert(directory_.end(), widths.begin(), widths.end());
    for (std::size_t j = 0; j < Rows::kBlockRows; ++j) {
      for (std::size_t f = 0; f < kFields; ++f) {
        const auto width = static_cast<unsigned>(std::bit_width(highest[f]));
        put_bits(j < n ? pending_[j][f] - base[f] : 0, width);
      }
    }
    row_words_ += row_width;  // 64 rows of row_width bits
  }

  // Appends the low `width` bits of `v` (which has no others).
  void put_bits(std::uint64_t v, unsigned width) {
    if (width == 0) return;
    word_ |= v << used_;
    const unsigned total = used_ + width;
    if (total < 64) {
      used_ = total;
      return;
    }
    words_.push_back(word_);
    word_ = used_ == 0 ? 0 : v >> (64 - used_);
    used_ = total - 64;
  }

  Sink& words_;
  std::array<Row, PackedRows<kFields>::kBlockRows> pending_{};
  std::uint64_t count_ = 0;
  std::uint64_t row_words_ = 0;
  std::vector<std::uint64_t> directory_;
  std::uint64_t word_ = 0;
  unsigned used_ = 0;
};

}  // namespace heapql
