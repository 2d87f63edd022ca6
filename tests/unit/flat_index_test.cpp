// FlatIndex: the interning index of stack nodes, buckets and group keys.
#include "engine/util/flat_index.h"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

namespace heapql {
namespace {

// Keys kept beside the index, as the trace tables keep them.
struct Table {
  explicit Table(FlatIndex::MostFull most_full = FlatIndex::MostFull::kHalf) : index(most_full) {}
  std::vector<std::uint64_t> keys;
  std::vector<std::uint64_t> hashes;
  FlatIndex index;
  int compares = 0;

  std::uint32_t find(std::uint64_t key, std::uint64_t hash) {
    return index.find(hash, [&](std::uint32_t id) {
      ++compares;
      return keys.at(id) == key;
    });
  }
  std::uint32_t intern(std::uint64_t key, std::uint64_t hash) {
    if (const std::uint32_t found = find(key, hash); found != FlatIndex::kAbsent) return found;
    const auto id = static_cast<std::uint32_t>(keys.size());
    keys.push_back(key);
    hashes.push_back(hash);
    index.insert(hash, id, [&](std::uint32_t stored) { return hashes.at(stored); });
    return id;
  }
};

TEST(FlatIndex, FindsEveryKeyAcrossGrowthAndNothingElse) {
  Table t;
  for (std::uint64_t k = 0; k < 100'000; ++k) EXPECT_EQ(t.intern(k * 7, FlatIndex::mix(k * 7)), k);
  EXPECT_EQ(t.index.size(), 100'000u);
  for (std::uint64_t k = 0; k < 100'000; ++k) EXPECT_EQ(t.find(k * 7, FlatIndex::mix(k * 7)), k);
  for (std::uint64_t k = 0; k < 1'000; ++k) EXPECT_EQ(t.find(k * 7 + 1, FlatIndex::mix(k * 7 + 1)), FlatIndex::kAbsent);
}

TEST(FlatIndex, EqualHashesAreToldApartByTheirKeys) {
  Table t;
  // Every key has the same hash: same slot, same tag; only the keys differ.
  for (std::uint64_t k = 0; k < 300; ++k) EXPECT_EQ(t.intern(k, 0x1234'5678'9abc'def0ull), k);
  for (std::uint64_t k = 0; k < 300; ++k) EXPECT_EQ(t.find(k, 0x1234'5678'9abc'def0ull), k);
  EXPECT_EQ(t.find(300, 0x1234'5678'9abc'def0ull), FlatIndex::kAbsent);
}

TEST(FlatIndex, TagsSpareKeyComparesWhenOnlyTheSlotCollides) {
  Table t;
  // Same low bits (the slot), different high bits (the tag): a probe for an
  // absent key walks past them all without comparing a single key.
  for (std::uint64_t k = 0; k < 500; ++k) t.intern(k, (k + 1) << 44);
  t.compares = 0;
  EXPECT_EQ(t.find(1'000, std::uint64_t{1'000} << 44), FlatIndex::kAbsent);
  EXPECT_EQ(t.compares, 0);
  EXPECT_EQ(t.find(250, std::uint64_t{251} << 44), 250u);
  EXPECT_EQ(t.compares, 1);
}

TEST(FlatIndex, RandomHashesWithManyCollisionsStillRoundTrip) {
  Table t;
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> hashes;
  for (int i = 0; i < 50'000; ++i) {
    // Few distinct hashes, so slots and tags collide often.
    const std::uint64_t hash = rng() % 4'096 * 0x9E37'79B9'7F4A'7C15ull;
    hashes.push_back(hash);
    EXPECT_EQ(t.intern(static_cast<std::uint64_t>(i), hash), static_cast<std::uint32_t>(i));
  }
  for (int i = 0; i < 50'000; ++i) EXPECT_EQ(t.find(static_cast<std::uint64_t>(i), hashes[i]), static_cast<std::uint32_t>(i));
}

TEST(FlatIndex, FindsIdsStillWaitingToBePlacedAndPlacesThemAllOnGrowth) {
  // Inserts wait in a queue of 32 before they go into the table; 1,000 ids
  // also grow the table while some wait. Each is found at every moment.
  Table t;
  for (std::uint64_t k = 0; k < 1'000; ++k) {
    t.intern(k, FlatIndex::mix(k));
    for (std::uint64_t seen = k >= 40 ? k - 40 : 0; seen <= k; ++seen) {
      ASSERT_EQ(t.find(seen, FlatIndex::mix(seen)), seen) << "after inserting " << k;
    }
    ASSERT_EQ(t.find(k + 1, FlatIndex::mix(k + 1)), FlatIndex::kAbsent);
  }
  EXPECT_EQ(t.index.size(), 1'000u);
}

TEST(FlatIndex, TheTableStaysAtMostHalfFull) {
  // A lookup of an absent key walks to the next empty slot: at most half
  // full, that walk stays short (flat_index.h).
  Table t;
  for (std::uint64_t k = 0; k < 512; ++k) t.intern(k, FlatIndex::mix(k));
  EXPECT_EQ(t.index.memory_bytes(), 1024 * sizeof(std::uint32_t));
  for (std::uint64_t k = 512; k < 600; ++k) t.intern(k, FlatIndex::mix(k));
  EXPECT_EQ(t.index.memory_bytes(), 2048 * sizeof(std::uint32_t));
  for (std::uint64_t k = 0; k < 600; ++k) EXPECT_EQ(t.find(k, FlatIndex::mix(k)), k);
}

TEST(FlatIndex, AThreeQuartersIndexFillsToThreeQuartersAndStillFindsEveryKey) {
  // The bucket index's choice (trace_tables.h): half the memory of a half
  // full table for counts between 1/2 and 3/4 of its slots.
  Table t(FlatIndex::MostFull::kThreeQuarters);
  for (std::uint64_t k = 0; k < 768; ++k) t.intern(k, FlatIndex::mix(k));
  EXPECT_EQ(t.index.memory_bytes(), 1024 * sizeof(std::uint32_t));
  for (std::uint64_t k = 768; k < 800; ++k) t.intern(k, FlatIndex::mix(k));
  EXPECT_EQ(t.index.memory_bytes(), 2048 * sizeof(std::uint32_t));
  for (std::uint64_t k = 0; k < 800; ++k) EXPECT_EQ(t.find(k, FlatIndex::mix(k)), k);
  for (std::uint64_t k = 800; k < 1'800; ++k) EXPECT_EQ(t.find(k, FlatIndex::mix(k)), FlatIndex::kAbsent);
}

TEST(FlatIndex, AThreeQuartersIndexRoundTripsCollidingHashes) {
  // Slots and tags colliding often, the table as full as it gets: no slot
  // may read as empty by accident (an id with all its bits set).
  Table t(FlatIndex::MostFull::kThreeQuarters);
  std::mt19937_64 rng(11);
  std::vector<std::uint64_t> hashes;
  for (int i = 0; i < 3'072; ++i) {
    const std::uint64_t hash = rng() % 512 * 0x9E37'79B9'7F4A'7C15ull;
    hashes.push_back(hash);
    ASSERT_EQ(t.intern(static_cast<std::uint64_t>(i), hash), static_cast<std::uint32_t>(i));
  }
  EXPECT_EQ(t.index.memory_bytes(), 4096 * sizeof(std::uint32_t));
  for (int i = 0; i < 3'072; ++i) EXPECT_EQ(t.find(static_cast<std::uint64_t>(i), hashes[i]), static_cast<std::uint32_t>(i));
  EXPECT_EQ(t.find(5'000, hashes[0]), FlatIndex::kAbsent);
}

TEST(FlatIndex, IdsMustBeInsertedDenselyInOrder) {
  FlatIndex index;
  const auto hash_of = [](std::uint32_t id) { return FlatIndex::mix(id); };
  index.insert(FlatIndex::mix(0), 0, hash_of);
  EXPECT_THROW(index.insert(FlatIndex::mix(5), 5, hash_of), std::logic_error);
  EXPECT_EQ(index.size(), 1u);
}

}  // namespace
}  // namespace heapql
