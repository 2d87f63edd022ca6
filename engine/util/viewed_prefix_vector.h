// A table whose first entries are viewed in place (a store file's mapping)
// and whose later ones, if any are ever added, are owned. The viewed prefix
// is either records in the entries' own layout, or packed rows that
// `Layout` turns into entries (Layout::Rows, Layout::join: a store's stack
// tree and buckets, docs/store-format.md, "Packed rows"), so entries are
// read by value. Opening a store then copies neither of its big tables and
// touches none of their pages (a table is checked, whole, when a query
// first reads it: TraceStore). A live journal's tables, whose rows lie in
// many pieces, are viewed a whole chunk at a time instead. A copy owns all
// its entries, so it never depends on the mapping.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>

#include "engine/util/chunked_vector.h"

namespace heapql {

template <class T, class Layout>
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
    if (size() != 0) throw std::logic_error("ViewedPrefixVector: view() on a filled vector");
    viewed_ = entries;
    prefix_ = entries.size();
  }
  void view_packed(const typename Layout::Rows& rows) {
    if (size() != 0) throw std::logic_error("ViewedPrefixVector: view_packed() on a filled vector");
    packed_ = rows;
    prefix_ = rows.size();
    static std::atomic<std::uint64_t> tables{0};
    packed_id_ = ++tables;
  }

  // Appends kChunkRows entries viewed in place (memory that must outlive
  // the vector), after the viewed prefix and any whole chunks added before.
  void view_chunk(std::span<const T> rows) {
    if (rows.size() != kChunkRows) throw std::logic_error("ViewedPrefixVector: a chunk of the wrong size");
    added_.append_borrowed_chunk(rows.data());
  }

  T operator[](std::size_t i) const {
    if (i < prefix_) return packed_.empty() ? viewed_[i] : from_packed(i);
    return added_[i - prefix_];
  }
  std::size_t size() const { return prefix_ + added_.size(); }
  // Where entry i lies (its packed row's directory entry), to fetch it ahead.
  const void* address_of(std::size_t i) const {
    if (i < prefix_) return packed_.empty() ? static_cast<const void*>(&viewed_[i]) : packed_.entry_address(i);
    return &added_[i - prefix_];
  }
  bool empty() const { return size() == 0; }
  void push_back(const T& value) { added_.push_back(value); }
  // Owned memory only: the viewed part belongs to its mapping.
  std::size_t memory_bytes() const { return added_.memory_bytes(); }

 private:
  // A packed row, through a small cache of decoded blocks on each thread:
  // a query that reads a table whole (a plan of every bucket, the culled
  // form of every stack) reads each block's rows together or close in
  // time (a chain of stack nodes, buckets numbered in order of first use),
  // where a row decoded alone costs its block's directory entry and its
  // own bits. Keyed by the table's id, never reused, not its address.
  T from_packed(std::size_t i) const {
    using Rows = typename Layout::Rows;
    struct Slot {
      std::uint64_t table;  // 0: empty
      std::size_t block;
      std::array<typename Rows::Row, Rows::kBlockRows> rows;
    };
    static constexpr std::size_t kSlots = 16;
    thread_local std::array<Slot, kSlots> cache;  // zero-initialized: no guard on each read
    const std::size_t k = i / Rows::kBlockRows;
    Slot& slot = cache[k % kSlots];
    if (slot.table != packed_id_ || slot.block != k) [[unlikely]] {
      slot.table = 0;  // (a damaged block throws here: the slot stays empty)
      packed_.decode_block(k, slot.rows.data());
      slot.table = packed_id_;
      slot.block = k;
    }
    return Layout::join(slot.rows[i % Rows::kBlockRows]);
  }

  std::span<const T> viewed_;
  typename Layout::Rows packed_;
  std::uint64_t packed_id_ = 0;  // for from_packed's cache
  std::size_t prefix_ = 0;  // viewed_ or packed_'s entries
  ChunkedVector<T, kChunkBits> added_;
};

}  // namespace heapql
