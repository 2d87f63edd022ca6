// A vector that grows by fixed chunks instead of reallocating: no element is
// ever moved, and growth never holds an old and a new copy at once. For the
// tables and per-bucket arrays that grow while a trace streams in, where
// std::vector's doubling made peak memory up to three times the data.
// A chunk is about 256 KiB, its pages faulted in ahead on another thread
// (chunk_warmer.h), so the unused end of the last chunk costs at most that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "engine/platform/aligned_stretch.h"
#include "engine/util/chunk_warmer.h"

namespace heapql {

// Chunks of about 256 KiB (at most 64 Ki elements): big enough that a table
// of millions of entries has few, small enough that the warmer's ready
// chunks and each table's last one cost little memory. Fuzz builds use 256-element
// chunks (CMakeLists.txt): their inputs are small, and a 64 Ki-element chunk
// per table cost most of each run under ASan (mmap, page faults,
// quarantine); small chunks also cross a chunk boundary far more often,
// which is worth fuzzing.
template <class T>
constexpr std::size_t chunk_bits_of_256_kib() {
  std::size_t bits = 8;
  while (bits < 16 && (std::size_t{2} << bits) * sizeof(T) <= (std::size_t{256} << 10)) ++bits;
  return bits;
}

template <class T>
constexpr std::size_t default_chunk_bits() {
#ifdef HEAPQL_CHUNK_BITS
  return HEAPQL_CHUNK_BITS;
#else
  return chunk_bits_of_256_kib<T>();
#endif
}

template <class T, std::size_t kChunkBits = default_chunk_bits<T>()>
class ChunkedVector {
  static_assert(std::is_trivially_destructible_v<T>, "elements are never destroyed one by one");
  // Each chunk starts on a cache line, so an element of 16, 32 or 64 bytes
  // never straddles two: a table read at random then misses once per
  // element (chunks come from malloc, 16-byte aligned at best).
  static constexpr std::size_t kChunkAlignment = 64;
  static_assert(alignof(T) <= kChunkAlignment);

 public:
  static constexpr std::size_t kChunkSize = std::size_t{1} << kChunkBits;

  ChunkedVector() = default;
  ChunkedVector(const ChunkedVector& other) { *this = other; }
  ChunkedVector& operator=(const ChunkedVector& other) {
    if (this == &other) return *this;
    chunks_.clear();
    blocks_.clear();
    size_ = 0;
    borrowed_chunks_ = 0;
    stand_in_ = nullptr;
    stand_in_chunks_ = 0;
    next_owned_ = nullptr;
    for (std::size_t i = 0; i < other.size_; ++i) push_back(other[i]);
    return *this;
  }
  ChunkedVector(ChunkedVector&&) noexcept = default;
  ChunkedVector& operator=(ChunkedVector&&) noexcept = default;

  T& operator[](std::size_t i) { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  const T& operator[](std::size_t i) const { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void push_back(const T& value) {
    if ((size_ >> kChunkBits) == chunks_.size()) [[unlikely]] add_chunk();
    ::new (static_cast<void*>(&(*this)[size_])) T(value);
    ++size_;
  }

  // Grows to `n` elements, new ones set to `value`; never shrinks.
  void grow_to(std::size_t n, const T& value = T()) {
    while (size_ < n) push_back(value);
  }

  // grow_to(n) of an empty vector whose whole chunks are, until one of
  // their elements is asked for writable(), a stand-in: `stand_in`,
  // kChunkSize elements equal to the value new elements take, read in place
  // (it must outlive the vector). For a state per bucket of which a pass
  // meets a part (a window's replay of a store): the chunks it writes are
  // taken in turn from one block reserved for them all, so that the memory
  // touched is theirs alone, side by side (huge pages), and the chunks it
  // never writes take none.
  void grow_sparse_to(std::size_t n, const T* stand_in) {
    if (size_ != 0) throw std::logic_error("ChunkedVector: sparse growth of a vector not empty");
    stand_in_ = stand_in;
    chunks_.assign(n >> kChunkBits, const_cast<T*>(stand_in));
    stand_in_chunks_ = chunks_.size();
    if (stand_in_chunks_ > 0) {
      Block block(::operator new(stand_in_chunks_ * kChunkSize * sizeof(T) + kChunkAlignment));
      next_owned_ = aligned(block.get());
      blocks_.push_back(std::move(block));
    }
    size_ = chunks_.size() * kChunkSize;
    grow_to(n, stand_in[0]);  // the last part chunk is the vector's own
  }
  // Element i to write to: in a chunk of the vector's own.
  T& writable(std::size_t i) {
    T*& chunk = chunks_[i >> kChunkBits];
    if (chunk == stand_in_) [[unlikely]] own_stand_in(chunk);
    return chunk[i & (kChunkSize - 1)];
  }

  // grow_to(n), the chunks it adds taken as one block: for a size known at
  // once (a state for every bucket of a store), where one big block is
  // backed by huge pages (cli/counted_new.cpp) and many chunks each fault
  // their own pages.
  void grow_at_once_to(std::size_t n, const T& value = T()) {
    const std::size_t chunks_needed = (n + kChunkSize - 1) >> kChunkBits;
    if (chunks_needed > chunks_.size() + 1) {
      const std::size_t added = chunks_needed - chunks_.size();
      Block block(::operator new(added * kChunkSize * sizeof(T) + kChunkAlignment));
      T* first = aligned(block.get());
      blocks_.push_back(std::move(block));
      for (std::size_t k = 0; k < added; ++k) chunks_.push_back(first + k * kChunkSize);
    }
    grow_to(n, value);
  }

  // Appends kChunkSize elements that live elsewhere, at `rows`, viewed in
  // place: for a table read from a file in whole chunks (a live journal's).
  // `rows` must outlive the vector (and its moves) and is never written;
  // only while every chunk is full, so that no push_back writes to it.
  void append_borrowed_chunk(const T* rows) {
    if (size_ != chunks_.size() * kChunkSize) throw std::logic_error("ChunkedVector: a borrowed chunk after a partial one");
    chunks_.push_back(const_cast<T*>(rows));
    size_ += kChunkSize;
    ++borrowed_chunks_;
  }

  // Owned memory only: borrowed chunks belong to their file.
  std::size_t memory_bytes() const {
    return (chunks_.size() - borrowed_chunks_ - stand_in_chunks_) * kChunkSize * sizeof(T) +
           blocks_.size() * kChunkAlignment +
           chunks_.capacity() * sizeof(T*) + blocks_.capacity() * sizeof(Block);
  }

 private:
  // Out of line, so that push_back itself is small enough to inline: the
  // interning loops append millions of elements.
  [[gnu::noinline]] void add_chunk() {
    Block chunk(take_warm_chunk(kChunkSize * sizeof(T) + kChunkAlignment));
    chunks_.push_back(aligned(chunk.get()));
    blocks_.push_back(std::move(chunk));
  }
  static T* aligned(void* block) { return round_up_to<T>(block, kChunkAlignment); }
  [[gnu::noinline]] void own_stand_in(T*& chunk) {
    T* const own = next_owned_;  // room for every stand-in chunk was reserved
    next_owned_ += kChunkSize;
    std::uninitialized_copy_n(stand_in_, kChunkSize, own);
    chunk = own;
    --stand_in_chunks_;
  }

  struct FreeBlock {
    void operator()(void* block) const { ::operator delete(block); }
  };
  using Block = std::unique_ptr<void, FreeBlock>;
  std::vector<T*> chunks_;     // in order; each in one of blocks_, or borrowed
  std::vector<Block> blocks_;  // what was allocated: a chunk, or several at once
  std::size_t size_ = 0;
  std::size_t borrowed_chunks_ = 0;
  const T* stand_in_ = nullptr;  // see grow_sparse_to
  std::size_t stand_in_chunks_ = 0;
  T* next_owned_ = nullptr;  // where the next chunk that stood in goes
};

}  // namespace heapql
