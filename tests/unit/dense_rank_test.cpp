// DenseRank: the set bits of a bit set numbered in bit order, checked against
// counting them one by one.
#include "engine/util/dense_rank.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace heapql {
namespace {

TEST(DenseRank, NumbersTheSetBitsInOrderAcrossWords) {
  std::mt19937_64 random(7);
  // Empty words, full words, and sparse ones, so that runs cross word bounds.
  std::vector<std::uint64_t> words = {0, ~std::uint64_t{0}, 1, std::uint64_t{1} << 63, 0, 0};
  for (int i = 0; i < 200; ++i) words.push_back(random() & random());
  const DenseRank rank(words);

  std::vector<std::size_t> set;
  rank.each([&](std::size_t i) { set.push_back(i); });
  std::size_t expected = 0;
  for (std::size_t i = 0; i < words.size() * 64; ++i) {
    if ((words[i / 64] >> (i % 64) & 1) == 0) continue;
    ASSERT_LT(expected, set.size());
    EXPECT_EQ(set[expected], i);
    EXPECT_EQ(rank(i), expected) << "bit " << i;
    ++expected;
  }
  EXPECT_EQ(set.size(), expected);
  EXPECT_EQ(rank.count(), expected);
}

// Every bit from 0 on set is numbered by itself, without counting; a set
// that only nearly is (a gap, or a bit past a gap) is counted.
TEST(DenseRank, FirstBitsSetAndNearlySo) {
  const std::uint64_t all = ~std::uint64_t{0};
  const std::vector<std::vector<std::uint64_t>> cases = {
      {all, all},       {all, 0x7},      {all, 0x7, 0},   {0x1},         {all, 0xB},
      {all, 0x7, 0x1},  {all ^ 1, all},  {0x7FFF, 0},     {all, all, 0}, {0, 0x1},
  };
  for (const std::vector<std::uint64_t>& words : cases) {
    const DenseRank rank(words);
    std::uint32_t expected = 0;
    for (std::size_t i = 0; i < words.size() * 64; ++i) {
      if ((words[i / 64] >> (i % 64) & 1) == 0) continue;
      EXPECT_EQ(rank(i), expected) << "bit " << i << " of words " << words[0] << ", " << words[1];
      ++expected;
    }
    EXPECT_EQ(rank.count(), expected);
  }
}

TEST(DenseRank, NoWordsIsNoBits) {
  const DenseRank rank;
  EXPECT_EQ(rank.count(), 0u);
  rank.each([](std::size_t) { ADD_FAILURE() << "a bit in an empty set"; });
}

}  // namespace
}  // namespace heapql
