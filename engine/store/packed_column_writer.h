// Packs a column of u32 values as they come (packed_column.h): 64 at a time,
// each block at the width its range needs, into a sink of u64 words
// (push_back): a vector in memory, or a scratch file while a trace is
// ingested. The directory is held until finish() appends it: a u64 per 64
// values, a bit a value.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/store/packed_column.h"
#include "engine/util/chunked_vector.h"

namespace heapql {

template <class Sink>
class PackedColumnWriter {
 public:
  PackedColumnWriter(Sink& words, unsigned rotation) : words_(words), rotation_(rotation % 32) {}

  void push_back(std::uint32_t value) {
    pending_[count_ % PackedColumn::kBlockValues] = std::rotl(value, static_cast<int>(rotation_));
    if (++count_ % PackedColumn::kBlockValues == 0) put_block(PackedColumn::kBlockValues);
  }

  // Writes the last block (its unused values as its base) and the
  // directory. Once.
  void finish() {
    if (const std::size_t rest = count_ % PackedColumn::kBlockValues; rest != 0) put_block(rest);
    for (std::size_t k = 0; k < directory_.size(); ++k) words_.push_back(directory_[k]);
    words_.push_back(PackedColumn::directory_entry(0, static_cast<std::uint32_t>(packed_words_)));
  }

  std::uint64_t count() const { return count_; }
  // The words and directory finish() leaves, for a column of `count()` values.
  std::uint64_t bytes() const { return (packed_words_ + directory_.size() + 1) * 8; }

 private:
  void put_block(std::size_t n) {
    const std::uint32_t base = *std::min_element(pending_.begin(), pending_.begin() + n);
    std::uint32_t highest = 0;
    for (std::size_t j = 0; j < n; ++j) highest |= pending_[j] - base;
    const auto width = static_cast<std::uint32_t>(std::bit_width(highest));
    if (packed_words_ + width > 0xFFFFFFFFu) throw Error("a packed column has more than 2^32-1 words");
    directory_.push_back(PackedColumn::directory_entry(base, static_cast<std::uint32_t>(packed_words_)));
    packed_words_ += width;
    if (width == 0) return;
    // 64 values of `width` bits fill `width` words exactly.
    std::uint64_t word = 0;
    unsigned used = 0;
    for (std::size_t j = 0; j < PackedColumn::kBlockValues; ++j) {
      const std::uint64_t v = j < n ? pending_[j] - base : 0;
      word |= v << used;
      used += width;
      if (used >= 64) {
        words_.push_back(word);
        used -= 64;
        word = used == 0 ? 0 : v >> (width - used);
      }
    }
  }

  Sink& words_;
  unsigned rotation_;
  std::array<std::uint32_t, PackedColumn::kBlockValues> pending_{};
  std::uint64_t count_ = 0;
  std::uint64_t packed_words_ = 0;
  ChunkedVector<std::uint64_t> directory_;
};

// The column a finished writer's `words` hold (they must outlive it).
inline PackedColumn finished_column(PackedColumnWriter<std::vector<std::uint64_t>>& writer,
                                    std::vector<std::uint64_t>& words, unsigned rotation) {
  writer.finish();
  words.shrink_to_fit();
  PackedColumn column;
  if (const std::string wrong = PackedColumn::view(words, writer.count(), rotation, column); !wrong.empty()) {
    throw Error("internal error: a packed column " + wrong);
  }
  return column;
}

// `values` packed into `words` (emptied first), and the column viewing them.
inline PackedColumn pack_values(std::span<const std::uint32_t> values, unsigned rotation,
                                std::vector<std::uint64_t>& words) {
  words.clear();
  PackedColumnWriter<std::vector<std::uint64_t>> writer(words, rotation);
  for (const std::uint32_t v : values) writer.push_back(v);
  return finished_column(writer, words, rotation);
}

}  // namespace heapql
