// AddressSet: the freed addresses of a source with addresses, against
// std::unordered_set, across the recent-key memory and the pending inserts
// that go into the table together (a lookup must see every insert before it).
#include "engine/store/address_set.h"

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

}  // namespace
}  // namespace heapql
