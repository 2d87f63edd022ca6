// PackedColumn and its writer (engine/store/packed_column*.h): values come
// back as they went in at every bit width, across block boundaries, rotated
// or not; the sizes are what the format says; and a damaged directory is an
// Error (what a crafted store file with right checksums could hold), never
// a read outside the words.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/store/packed_column.h"
#include "engine/store/packed_column_writer.h"

namespace heapql {
namespace {

// `n` values around `base` whose spread within each block of 64 needs exactly `width` bits.
std::vector<std::uint32_t> values_of_width(std::size_t n, unsigned width, std::uint32_t base, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::uint32_t> values(n);
  const std::uint64_t span = width == 0 ? 0 : (std::uint64_t{1} << width) - 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t offset = span == 0 ? 0 : random() % (span + 1);
    values[i] = static_cast<std::uint32_t>(base + offset);
  }
  // Each block's lowest and highest, so that its width is `width`.
  for (std::size_t k = 0; k * 64 < n; ++k) {
    values[k * 64] = base;
    if (k * 64 + 1 < n) values[k * 64 + 1] = static_cast<std::uint32_t>(base + span);
  }
  return values;
}

void expect_round_trip(const std::vector<std::uint32_t>& values, unsigned rotation) {
  std::vector<std::uint64_t> words;
  const PackedColumn column = pack_values(values, rotation, words);
  ASSERT_EQ(column.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(column[i], values[i]) << "value " << i;
  EXPECT_EQ(column.bytes(), words.size() * 8);
}

TEST(PackedColumnTest, EveryWidthRoundTrips) {
  for (unsigned width = 0; width <= 32; ++width) {
    SCOPED_TRACE("width " + std::to_string(width));
    const std::uint32_t base = width == 32 ? 0 : 0xFFFFFFFFu - ((std::uint64_t{1} << width) - 1);  // the top of u32
    const std::vector<std::uint32_t> values = values_of_width(64 * 5 + 17, width, base, width);
    std::vector<std::uint64_t> words;
    const PackedColumn column = pack_values(values, 0, words);
    for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(column[i], values[i]) << "value " << i;
    // 6 blocks of `width` words each, then 6 directory entries and the last.
    EXPECT_EQ(words.size(), 6 * width + 6 + 1);
    expect_round_trip(values_of_width(200, width, 12345, width + 100), 1);
  }
}

TEST(PackedColumnTest, BlockBoundariesEmptyAndOneBlock) {
  for (const std::size_t n : {0, 1, 2, 63, 64, 65, 127, 128, 129, 1000}) {
    SCOPED_TRACE("values " + std::to_string(n));
    expect_round_trip(values_of_width(n, 13, 7, static_cast<std::uint32_t>(n)), 0);
  }
  std::vector<std::uint64_t> words;
  const PackedColumn empty = pack_values({}, 0, words);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(words, std::vector<std::uint64_t>{0});  // no block: the last entry alone, 0 words
  EXPECT_EQ(empty.lower_bound(5), 0u);
  // One block of equal values takes no word: the base says it all.
  const std::vector<std::uint32_t> same(64, 99);
  const PackedColumn one = pack_values(same, 0, words);
  EXPECT_EQ(words.size(), 2u);
  EXPECT_EQ(one[0], 99u);
  EXPECT_EQ(one[63], 99u);
}

TEST(PackedColumnTest, RotationPutsTheTopBitAtTheBottom) {
  // Frees: the temporary bit on top; rotated, blocks of nearby ids stay narrow.
  std::vector<std::uint32_t> frees;
  for (std::uint32_t i = 0; i < 64; ++i) frees.push_back((1000 + i) | (i % 3 == 0 ? 0x80000000u : 0));
  std::vector<std::uint64_t> rotated, plain;
  const PackedColumn r = pack_values(frees, 1, rotated);
  pack_values(frees, 0, plain);
  for (std::size_t i = 0; i < frees.size(); ++i) ASSERT_EQ(r[i], frees[i]);
  EXPECT_EQ(rotated.size(), 7u + 2);  // ids 2000..2127 after rotation: 7 bits
  EXPECT_EQ(plain.size(), 32u + 2);   // the top bit makes the block 32 bits wide
}

TEST(PackedColumnTest, LowerBoundOfAscendingValues) {
  std::vector<std::uint32_t> ascending;
  for (std::uint32_t i = 0; i < 300; ++i) ascending.push_back(i * 3 + (i > 150 ? 1000 : 0));
  std::vector<std::uint64_t> words;
  const PackedColumn column = pack_values(ascending, 0, words);
  for (std::uint64_t v = 0; v < 2000; ++v) {
    const auto expected = static_cast<std::size_t>(
        std::lower_bound(ascending.begin(), ascending.end(), v) - ascending.begin());
    ASSERT_EQ(column.lower_bound(v), expected) << "value " << v;
  }
  EXPECT_EQ(column.lower_bound(std::uint64_t{1} << 40), ascending.size());
}

TEST(PackedColumnTest, AReaderGivesWhatIndexingGives) {
  const std::vector<std::uint32_t> values = values_of_width(64 * 3 + 5, 17, 1u << 20, 7);
  std::vector<std::uint64_t> words;
  const PackedColumn column = pack_values(values, 1, words);
  PackedReader in_order(column);
  for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(in_order[i], values[i]) << "value " << i;
  PackedReader jumping(column);  // back and forth across blocks, as a replay's look-ahead does not
  for (const std::size_t i : {196, 0, 63, 64, 195, 1, 128, 127}) EXPECT_EQ(jumping[i], values[i]) << "value " << i;
  // A damaged block throws from the reader too.
  std::vector<std::uint64_t> wide(33, 0);
  wide.push_back(PackedColumn::directory_entry(0, 0));
  wide.push_back(PackedColumn::directory_entry(0, 33));
  PackedColumn damaged;
  ASSERT_EQ(PackedColumn::view(wide, 64, 0, damaged), "");
  PackedReader reader(damaged);
  EXPECT_THROW((void)reader[5], Error);
}

std::string view_error(const std::vector<std::uint64_t>& words, std::uint64_t count) {
  PackedColumn column;
  return PackedColumn::view(words, count, 0, column);
}

std::string read_error(const std::vector<std::uint64_t>& words, std::uint64_t count) {
  PackedColumn column;
  const std::string wrong = PackedColumn::view(words, count, 0, column);
  if (!wrong.empty()) return "view: " + wrong;
  try {
    for (std::size_t i = 0; i < column.size(); ++i) (void)column[i];
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

// A whole block decoded at once (engine/store/bit_unpack.h: a function for
// each width) gives what one value at a time gives, at every width, rotated
// or not, up to the top of u32.
TEST(PackedColumnTest, BlocksDecodedWholeAtEveryWidth) {
  for (unsigned width = 0; width <= 32; ++width) {
    for (const unsigned rotation : {0u, 1u}) {
      SCOPED_TRACE("width " + std::to_string(width) + ", rotation " + std::to_string(rotation));
      const std::uint32_t top = width == 32 ? 0 : 0xFFFFFFFFu - ((std::uint64_t{1} << width) - 1);
      for (const std::uint32_t base : {std::uint32_t{0}, std::uint32_t{123457}, top}) {
        const std::vector<std::uint32_t> values = values_of_width(64 * 4 + 9, width, base, width * 7 + rotation);
        std::vector<std::uint64_t> words;
        const PackedColumn column = pack_values(values, rotation, words);
        PackedReader reader(column);
        for (std::size_t i = 0; i < values.size(); ++i) {
          ASSERT_EQ(reader[i], values[i]) << "value " << i << ", base " << base;
          ASSERT_EQ(column[i], values[i]) << "value " << i << ", base " << base;
        }
      }
    }
  }
}

TEST(PackedColumnTest, DamagedDirectoriesAreErrors) {
  std::vector<std::uint64_t> words;
  pack_values(values_of_width(130, 5, 40, 1), 0, words);  // 3 blocks: 15 words, 3 entries, the last
  ASSERT_EQ(words.size(), 15u + 4);
  EXPECT_EQ(read_error(words, 130), "");
  // Counts that disagree with the bytes.
  EXPECT_NE(view_error(words, 130 + 64 * 20), "");      // more blocks than entries
  EXPECT_NE(view_error(words, 64), "");                  // the last entry is not where it should be
  EXPECT_NE(view_error({}, 0), "");                      // not even the last entry
  EXPECT_NE(view_error(std::vector<std::uint64_t>(1, 5ull << 32), 0), "");  // it counts words that are not there
  // A block wider than 32 bits (with its 33 words there, so only the width is wrong).
  std::vector<std::uint64_t> wide(33, 0);
  wide.push_back(PackedColumn::directory_entry(0, 0));
  wide.push_back(PackedColumn::directory_entry(0, 33));
  EXPECT_NE(read_error(wide, 64).find("is 33 bits wide, beyond 32"), std::string::npos) << read_error(wide, 64);
  wide.back() = PackedColumn::directory_entry(0, 32);
  wide.erase(wide.begin());
  EXPECT_EQ(read_error(wide, 64), "");  // 32 is the widest
  // Entries out of order: a width that wraps below zero.
  std::vector<std::uint64_t> backwards = words;
  backwards[15 + 1] = PackedColumn::directory_entry(0, 12);
  backwards[15 + 2] = PackedColumn::directory_entry(0, 3);
  EXPECT_NE(read_error(backwards, 130).find("beyond 32"), std::string::npos);
  // A first word near 2^32 whose wrapped width is small (8 here): the
  // store fuzz target's finding, read far outside the column before.
  std::vector<std::uint64_t> wrapped = words;
  wrapped[15 + 0] = PackedColumn::directory_entry(0, 0xFFFFFFFCu);
  wrapped[15 + 1] = PackedColumn::directory_entry(0, 4);
  EXPECT_NE(read_error(wrapped, 130).find("block 0 of a packed column starts past its end"), std::string::npos)
      << read_error(wrapped, 130);
  // A block whose words would lie past the column's.
  std::vector<std::uint64_t> past = words;
  past[15 + 2] = PackedColumn::directory_entry(0, 14);  // block 2 from word 14, 1 wide: ends at 15, fine
  past[15 + 1] = PackedColumn::directory_entry(0, 9);
  EXPECT_EQ(read_error(past, 130), "");
  past[15 + 2] = PackedColumn::directory_entry(0, 16);  // block 1 ends past the 15 words
  EXPECT_NE(read_error(past, 130).find("lies past its words"), std::string::npos);
}

}  // namespace
}  // namespace heapql
