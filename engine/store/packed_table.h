// Several packed columns of as many values each, in one run of words
// (docs/store-format.md, "Packed tables"): a u64 per column, its length in
// words (its packed words, its directory and its end entry), then the
// columns one after another (packed_column.h). The store's accelerators
// are kept so: their values are counts and ids, most of them small.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/store/packed_column.h"

namespace heapql {

// The columns' words (each as pack_values leaves it) as one packed table.
inline std::vector<std::uint64_t> packed_table(std::span<const std::vector<std::uint64_t>> columns) {
  std::vector<std::uint64_t> table;
  std::size_t words = columns.size();
  for (const auto& column : columns) words += column.size();
  table.reserve(words);
  for (const auto& column : columns) table.push_back(column.size());
  for (const auto& column : columns) table.insert(table.end(), column.begin(), column.end());
  return table;
}

// Views `out.size()` columns of `count` values each in `words`. Empty text
// when their sizes agree; else what is wrong.
inline std::string view_packed_table(std::span<const std::uint64_t> words, std::uint64_t count,
                                     std::span<PackedColumn> out) {
  if (words.size() < out.size()) return "its bytes are fewer than its columns' lengths";
  std::uint64_t at = out.size();
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::uint64_t length = words[k];
    if (length > words.size() - at) return "a column's length runs past its bytes";
    const std::string wrong = PackedColumn::view(words.subspan(at, length), count, 0, out[k]);
    if (!wrong.empty()) return "column " + std::to_string(k + 1) + ": " + wrong;
    at += length;
  }
  if (at != words.size()) return "bytes after its last column";
  return {};
}

}  // namespace heapql
