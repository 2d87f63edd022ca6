// The store's precomputed answer to its most asked question: the whole
// trace grouped by culled stack under the built-in cull list, with no
// filter (docs/store.md, "The stack view"). One row per culled stack, in the
// order a query over the bucket sums numbers them (first met), with the five
// xperf measures; a query that asks exactly this reads these columns instead
// of rolling up every bucket. The view is tied to the cull list it was made
// with by a fingerprint, so a heapql whose built-in list differs ignores it.
//
// Its columns are packed (packed_column.h; docs/store-format.md, "Packed
// tables"), in a store file as in memory: the stacks, then each measure as
// two columns of 32 bits, its low half and its high half (a row's bytes can
// pass 4 GiB; most rows' high halves are 0, and a block of 64 zeros takes
// no word).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/store/packed_column.h"

namespace heapql {

// The measures' order in the view: xperf's so, soc, st, stc, src.
inline constexpr std::size_t kViewMeasures = 5;
// The stacks, then each measure's low and high halves.
inline constexpr std::size_t kViewColumns = 1 + 2 * kViewMeasures;

struct StackView {
  std::uint64_t cull_fingerprint = 0;
  std::uint64_t temporary_blocks = 0;
  std::array<std::uint64_t, kViewMeasures> totals{};
  std::array<PackedColumn, kViewColumns> columns{};
  // A file's view whose columns do not fit its section: no rows, and what
  // is wrong, which its check reports.
  std::string unreadable;

  std::size_t rows() const { return columns[0].size(); }
  // A row's StackId value (or a session view's key value).
  std::uint32_t stack(std::size_t row) const { return columns[0][row]; }
  std::uint64_t value(std::size_t measure, std::size_t row) const {
    return std::uint64_t{columns[2 + 2 * measure][row]} << 32 | columns[1 + 2 * measure][row];
  }
  // One measure's values in row order, `visit(std::span<const std::uint64_t>)`
  // a chunk of rows at a time: never decoded whole (13.7 MB of fresh memory
  // for walk's 1.7 M rows, whose page faults cost more than the decoding).
  template <class Visit>
  void each_value_chunk(std::size_t measure, Visit&& visit) const;

  // The rows a block of 64 at a time, in order: `each(first row, rows in
  // the block, values)`, values[c][j] the j-th row's value in column c.
  using Block = std::array<std::array<std::uint32_t, PackedColumn::kBlockValues>, kViewColumns>;
  template <class F>
  void each_block(F&& each) const {
    Block values;
    for (std::size_t first = 0; first < rows(); first += PackedColumn::kBlockValues) {
      for (std::size_t c = 0; c < kViewColumns; ++c) {
        columns[c].decode_block(first / PackedColumn::kBlockValues, values[c].data());
      }
      each(first, std::min(PackedColumn::kBlockValues, rows() - first), static_cast<const Block&>(values));
    }
  }
  static std::uint64_t value_in(const Block& values, std::size_t measure, std::size_t j) {
    return std::uint64_t{values[2 + 2 * measure][j]} << 32 | values[1 + 2 * measure][j];
  }
};

template <class Visit>
void StackView::each_value_chunk(std::size_t measure, Visit&& visit) const {
  constexpr std::size_t kChunkBlocks = 64;
  std::vector<std::uint64_t> chunk(std::min(rows(), kChunkBlocks * PackedColumn::kBlockValues));
  std::array<std::uint32_t, PackedColumn::kBlockValues> low, high;
  for (std::size_t first = 0; first < rows(); first += chunk.size()) {
    const std::size_t n = std::min(chunk.size(), rows() - first);
    for (std::size_t at = 0; at < n; at += PackedColumn::kBlockValues) {
      const std::size_t k = (first + at) / PackedColumn::kBlockValues;
      columns[1 + 2 * measure].decode_block(k, low.data());
      columns[2 + 2 * measure].decode_block(k, high.data());
      const std::size_t m = std::min(PackedColumn::kBlockValues, n - at);
      for (std::size_t j = 0; j < m; ++j) chunk[at + j] = std::uint64_t{high[j]} << 32 | low[j];
    }
    visit(std::span<const std::uint64_t>(chunk.data(), n));
  }
}

}  // namespace heapql
