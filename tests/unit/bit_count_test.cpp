// count_set_bits: the inline bit trick against counting the bits one by one.
#include "engine/util/bit_count.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace heapql {
namespace {

std::uint32_t count_one_by_one(std::uint64_t x) {
  std::uint32_t n = 0;
  for (int bit = 0; bit < 64; ++bit) n += static_cast<std::uint32_t>(x >> bit & 1);
  return n;
}

TEST(BitCount, CountsEveryBitOfTheWord) {
  std::vector<std::uint64_t> words = {0, 1, std::uint64_t{1} << 63, ~std::uint64_t{0}, 0x5555555555555555u,
                                      0xAAAAAAAAAAAAAAAAu, 0x00FF00FF00FF00FFu, 0x8000000000000001u};
  for (int shift = 0; shift < 64; ++shift) words.push_back((std::uint64_t{2} << shift) - 1);  // the low bits
  std::mt19937_64 random(11);
  for (int i = 0; i < 10000; ++i) words.push_back(random() & (random() | random()));
  for (const std::uint64_t word : words) EXPECT_EQ(count_set_bits(word), count_one_by_one(word)) << std::hex << word;
}

}  // namespace
}  // namespace heapql
