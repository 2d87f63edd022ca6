// A table whose first entries are viewed in place (a store file's mapping,
// whose records have the entries' own layout) and whose later ones, if any
// are ever added, are owned. Opening a store then copies neither of its big
// tables and touches none of their pages (a table is checked, whole, when a
// query first reads it: TraceStore). A live journal's tables, whose rows
// lie in many pieces, are viewed a whole chunk at a time instead. A copy
// owns all its entries, so it never depends on the mapping.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>

#include "engine/util/chunked_vector.h"

namespace heapql {

template <class T>
class ViewedPrefixVector {
 public:
  // The added entries' chunks: about 256 KiB (chunked_vector.h; big enough
  // for the chunk warmer to fault their pages in ahead), in every build,
  // the fuzz builds' too, whose other chunks are smaller: a live journal
  // sends its tables in chunks of this many rows, each viewed in place
  // (view_chunk).
  static constexpr std::size_t kChunkBits = chunk_bits_of_256_kib<T>();
  static constexpr std::size_t kChunkRows = std::size_t{1} << kChunkBits;

  ViewedPrefixVector() = default;
  ViewedPrefixVector(const ViewedPrefixVector& other) {
    for (std::size_t i = 0; i < other.size(); ++i) added_.push_back(other[i]);
  }
  ViewedPrefixVector& operator=(const ViewedPrefixVector& other) {
    if (this != &other) *this = ViewedPrefixVector(other);
    return *this;
  }
  ViewedPrefixVector(ViewedPrefixVector&&) noexcept = default;
  ViewedPrefixVector& operator=(ViewedPrefixVector&&) noexcept = default;

  // Only before anything was added; the viewed memory must outlive the vector.
  void view(std::span<const T> entries) {
    if (!viewed_.empty() || !added_.empty()) throw std::logic_error("ViewedPrefixVector: view() on a filled vector");
    viewed_ = entries;
  }

  // Appends kChunkRows entries viewed in place (memory that must outlive
  // the vector), after the viewed prefix and any whole chunks added before.
  void view_chunk(std::span<const T> rows) {
    if (rows.size() != kChunkRows) throw std::logic_error("ViewedPrefixVector: a chunk of the wrong size");
    added_.append_borrowed_chunk(rows.data());
  }

  const T& operator[](std::size_t i) const { return i < viewed_.size() ? viewed_[i] : added_[i - viewed_.size()]; }
  std::size_t size() const { return viewed_.size() + added_.size(); }
  bool empty() const { return size() == 0; }
  void push_back(const T& value) { added_.push_back(value); }
  // Owned memory only: the viewed part belongs to its mapping.
  std::size_t memory_bytes() const { return added_.memory_bytes(); }

 private:
  std::span<const T> viewed_;
  ChunkedVector<T, kChunkBits> added_;
};

}  // namespace heapql
