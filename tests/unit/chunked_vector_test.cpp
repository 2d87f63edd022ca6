// ChunkedVector: elements never move as it grows, one by one or many chunks
// at once (grow_at_once_to), a copy or a move keeps every value, every
// chunk starts on a cache line, a borrowed chunk is read where it lies, and
// a sparse one reads its stand-in until written.
#include "engine/util/chunked_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace heapql {
namespace {

using SmallChunks = ChunkedVector<std::uint32_t, 4>;  // 16 elements a chunk

TEST(ChunkedVector, GrowingAtOnceThenOneByOneKeepsEveryElementInPlace) {
  SmallChunks v;
  v.push_back(7);
  v.grow_at_once_to(100, 3);  // the first chunk's rest, then six more as one block
  ASSERT_EQ(v.size(), 100u);
  EXPECT_EQ(v[0], 7u);
  for (std::size_t i = 1; i < 100; ++i) ASSERT_EQ(v[i], 3u) << i;
  std::vector<const std::uint32_t*> where;
  for (std::size_t i = 0; i < 100; ++i) where.push_back(&v[i]);
  for (std::uint32_t i = 0; i < 300; ++i) v.push_back(1000 + i);  // chunks of their own after the block
  v.grow_at_once_to(1000, 9);
  v.grow_at_once_to(10);  // never shrinks
  ASSERT_EQ(v.size(), 1000u);
  for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(&v[i], where[i]) << i;
  for (std::uint32_t i = 0; i < 300; ++i) ASSERT_EQ(v[100 + i], 1000 + i);
  for (std::size_t i = 400; i < 1000; ++i) ASSERT_EQ(v[i], 9u) << i;
  for (std::size_t i = 0; i < 1000; ++i) v[i] = static_cast<std::uint32_t>(i);  // every element writable

  SmallChunks copy;
  copy.grow_at_once_to(500, 1);
  copy = v;
  SmallChunks moved = std::move(v);
  ASSERT_EQ(copy.size(), 1000u);
  ASSERT_EQ(moved.size(), 1000u);
  for (std::size_t i = 0; i < 1000; ++i) {
    ASSERT_EQ(copy[i], i);
    ASSERT_EQ(moved[i], i);
  }
  EXPECT_GE(moved.memory_bytes(), 1000 * sizeof(std::uint32_t));
}

TEST(ChunkedVector, GrowingAtOnceWithinOneChunkIsGrowingOneByOne) {
  SmallChunks v;
  v.grow_at_once_to(5, 2);
  v.grow_at_once_to(20, 4);  // into the second chunk: no block of its own needed
  ASSERT_EQ(v.size(), 20u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(v[i], 2u);
  for (std::size_t i = 5; i < 20; ++i) EXPECT_EQ(v[i], 4u);
}

// The builder's counts per bucket (store_columns.h) are 32 bytes, read at
// random: none may straddle two cache lines, whatever malloc returns.
TEST(ChunkedVector, EveryChunkStartsOnACacheLineSoNoElementOf32BytesStraddlesTwo) {
  struct ThirtyTwo {
    std::uint64_t a, b, c, d;
  };
  static_assert(sizeof(ThirtyTwo) == 32);
  ChunkedVector<ThirtyTwo, 3> v;  // 8 elements a chunk
  for (int round = 0; round < 4; ++round) {
    std::vector<char*> noise;  // other allocations in between, so malloc's addresses vary
    for (int k = 0; k <= round; ++k) noise.push_back(new char[static_cast<std::size_t>(8 * k + 8)]);
    v.push_back(ThirtyTwo{1, 2, 3, 4});
    v.grow_to(v.size() + 8);           // a chunk at a time
    v.grow_at_once_to(v.size() + 40);  // several chunks as one block
    for (char* p : noise) delete[] p;
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto at = reinterpret_cast<std::uintptr_t>(&v[i]);
    ASSERT_EQ(at / 64, (at + sizeof(ThirtyTwo) - 1) / 64) << i;
    if (i % 8 == 0) {
      ASSERT_EQ(at % 64, 0u) << i;
    }
  }
}

// A whole chunk borrowed from elsewhere (a live journal's rows) is read in
// place; what is pushed after it goes to a chunk of the vector's own; a
// copy owns everything; only owned chunks count as its memory; and a
// borrowed chunk after a partly filled one is refused (push_back would
// write into the borrowed one).
TEST(ChunkedVector, ABorrowedChunkIsReadInPlaceAndNeverWritten) {
  std::vector<std::uint32_t> outside(SmallChunks::kChunkSize);
  for (std::size_t i = 0; i < outside.size(); ++i) outside[i] = static_cast<std::uint32_t>(100 + i);
  const std::vector<std::uint32_t> before = outside;
  SmallChunks v;
  v.append_borrowed_chunk(outside.data());
  const std::size_t borrowed_only = v.memory_bytes();
  v.push_back(7);
  EXPECT_EQ(v.size(), SmallChunks::kChunkSize + 1);
  const SmallChunks& read = v;
  EXPECT_EQ(&read[3], &outside[3]);  // in place
  EXPECT_EQ(read[SmallChunks::kChunkSize], 7u);
  EXPECT_EQ(outside, before);  // never written
  EXPECT_GE(v.memory_bytes() - borrowed_only, SmallChunks::kChunkSize * sizeof(std::uint32_t));
  EXPECT_LT(borrowed_only, SmallChunks::kChunkSize * sizeof(std::uint32_t));
  EXPECT_THROW(v.append_borrowed_chunk(outside.data()), std::logic_error);
  const SmallChunks copy = v;
  EXPECT_NE(&copy[3], &outside[3]);  // a copy owns its elements
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(copy[i], read[i]) << i;
}

TEST(ChunkedVector, SparseGrowthReadsTheStandInUntilAChunkIsWrittenAndThenOwnsItSideBySide) {
  const std::vector<std::uint32_t> stand_in(SmallChunks::kChunkSize, 5);
  SmallChunks v;
  v.grow_sparse_to(100, stand_in.data());  // six whole chunks stand in, the seventh (4 elements) is owned
  ASSERT_EQ(v.size(), 100u);
  const SmallChunks& read = v;
  for (std::size_t i = 0; i < 100; ++i) ASSERT_EQ(read[i], 5u) << i;
  EXPECT_EQ(&read[20], &stand_in[4]);  // read in place
  const std::size_t unwritten = v.memory_bytes();
  // Written chunks are owned, in the order written, side by side.
  v.writable(70) = 1;
  v.writable(20) = 2;
  v.writable(21) = 3;
  EXPECT_EQ(v.memory_bytes() - unwritten, 2 * SmallChunks::kChunkSize * sizeof(std::uint32_t));
  EXPECT_EQ(&read[16] - &read[64], static_cast<std::ptrdiff_t>(SmallChunks::kChunkSize));
  EXPECT_EQ(read[70], 1u);
  EXPECT_EQ(read[20], 2u);
  EXPECT_EQ(read[21], 3u);
  EXPECT_EQ(read[64], 5u);  // the rest of an owned chunk keeps the stand-in's values
  EXPECT_EQ(read[40], 5u);
  EXPECT_EQ(stand_in, std::vector<std::uint32_t>(SmallChunks::kChunkSize, 5));  // never written
  v.writable(99) = 4;  // the owned last chunk
  v.push_back(6);      // and growth after it as before
  EXPECT_EQ(read[99], 4u);
  EXPECT_EQ(read[100], 6u);
  const SmallChunks copy = v;
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(copy[i], read[i]) << i;
  SmallChunks not_empty;
  not_empty.push_back(1);
  EXPECT_THROW(not_empty.grow_sparse_to(100, stand_in.data()), std::logic_error);
}

}  // namespace
}  // namespace heapql
