// AddressSet: the freed addresses of a source with addresses, against
// std::unordered_set, across the recent-key memory and the pending inserts
// that go into the table together (a lookup must see every insert before it).
#include "engine/util/address_set.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_set>

namespace heapql {
namespace {

TEST(AddressSet, EveryInsertIsSeenByTheNextLookup) {
  AddressSet set;
  std::unordered_set<std::uint64_t> model;
  std::mt19937_64 random(7);
  // Addresses like an allocator's: most come back again and again, some are
  // new; 0 (the table's empty marker) is a key like any other.
  std::vector<std::uint64_t> hot;
  for (int i = 0; i < 300; ++i) hot.push_back(0x7f0000000000 + 16 * static_cast<std::uint64_t>(i));
  hot.push_back(0);
  for (int i = 0; i < 200'000; ++i) {
    const std::uint64_t key = random() % 4 == 0 ? random() % (1u << 24) * 16 : hot[random() % hot.size()];
    set.insert(key);
    model.insert(key);
    if (i % 997 == 0) {
      // A lookup between inserts: of one just inserted, and of one never seen.
      EXPECT_TRUE(set.contains(key)) << i;
      const std::uint64_t other = random() | (std::uint64_t{1} << 62);
      EXPECT_EQ(set.contains(other), model.count(other) == 1) << i;
    }
  }
  EXPECT_EQ(set.size(), model.size());
  for (std::uint64_t key : model) ASSERT_TRUE(set.contains(key)) << key;
  for (int i = 0; i < 10'000; ++i) {
    const std::uint64_t key = random() % (1u << 24) * 16 + 8;  // never inserted: not 16-aligned
    EXPECT_FALSE(set.contains(key)) << key;
  }
}

TEST(AddressSet, ALookupRightAfterAnInsertFindsIt) {
  AddressSet set;
  for (std::uint64_t key = 1; key < 10'000; ++key) {
    set.insert(key * 4096);
    ASSERT_TRUE(set.contains(key * 4096)) << key;
    ASSERT_FALSE(set.contains(key * 4096 + 1)) << key;
  }
  EXPECT_EQ(set.size(), 9'999u);
}

TEST(AddressSet, AlignedAndOddKeysAreKeptApartAndBothFound) {
  // Multiples of 16 go into pages, the others into slots: a key of one kind
  // must never be taken for a key of the other.
  AddressSet set;
  std::unordered_set<std::uint64_t> model;
  std::mt19937_64 random(3);
  for (int i = 0; i < 100'000; ++i) {
    const std::uint64_t base = 0x5500'0000 + random() % (1u << 20) * 16;
    const std::uint64_t key = random() % 3 == 0 ? base + 1 + random() % 15 : base;
    set.insert(key);
    model.insert(key);
  }
  EXPECT_EQ(set.size(), model.size());
  for (int i = 0; i < 200'000; ++i) {
    const std::uint64_t key = 0x5500'0000 + random() % (1u << 24);
    ASSERT_EQ(set.contains(key), model.count(key) == 1) << key;
  }
}

TEST(AddressSet, DenseHeapAddressesCostBitsNotSlots) {
  // Two million freed addresses 48 bytes apart, as a heap hands them out:
  // pages of a bit per 16 bytes, where 8-byte slots would take over 16 MB.
  AddressSet set;
  for (std::uint64_t i = 0; i < 2'000'000; ++i) set.insert(0x7f00'0000'0000 + i * 48);
  EXPECT_EQ(set.size(), 2'000'000u);
  EXPECT_TRUE(set.contains(0x7f00'0000'0000 + 1'999'999 * 48));
  EXPECT_FALSE(set.contains(0x7f00'0000'0000 + 16));
  EXPECT_LT(set.memory_bytes(), std::size_t{6} << 20);
}

}  // namespace
}  // namespace heapql
