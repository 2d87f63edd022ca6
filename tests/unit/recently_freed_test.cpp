// RecentlyFreed: the keys of the last N frees, against a model that keeps
// every free in order; and the BlockMatcher's use of it (semantics.md §1,
// docs/heaptrack.md "Double frees"): memory bounded by the live blocks and
// the bound, not by the distinct addresses a trace used.
#include "engine/util/recently_freed.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <random>

#include "engine/ingest/block_matcher.h"

namespace heapql::test {
namespace {

using Keys = RecentlyFreed<std::uint64_t, std::hash<std::uint64_t>>;

// Whether `key` is among the last `capacity` frees, the slow way.
bool in_model(const std::deque<std::uint64_t>& frees, std::uint64_t key) {
  for (const std::uint64_t k : frees) {
    if (k == key) return true;
  }
  return false;
}

TEST(RecentlyFreed, HoldsExactlyTheKeysOfTheLastCapacityFrees) {
  // Few distinct keys, so that keys are freed again (moved in the ring),
  // collide in the index and are deleted from the middle of probe runs.
  for (const std::uint32_t capacity : {1u, 2u, 7u, 64u, 1000u}) {
    SCOPED_TRACE(capacity);
    Keys keys(capacity);
    std::deque<std::uint64_t> model;
    std::mt19937_64 random(capacity);
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t key = (random() % (3 * capacity + 5)) * 16;
      keys.add(key);
      model.push_back(key);
      if (model.size() > capacity) model.pop_front();
      // Probed only now and then, so that frees also wait queued (several
      // at once) before a lookup puts them in.
      if (random() % 5 != 0) continue;
      const std::uint64_t probe = (random() % (3 * capacity + 5)) * 16;
      ASSERT_EQ(keys.contains(probe), in_model(model, probe)) << "free " << i << ", key " << probe;
      ASSERT_LE(keys.size(), capacity);
    }
    std::size_t distinct = 0;
    for (std::uint64_t k = 0; k < 3 * capacity + 5; ++k) distinct += in_model(model, k * 16) ? 1 : 0;
    EXPECT_EQ(keys.size(), distinct);
  }
}

TEST(RecentlyFreed, AKeyFreedAgainIsRememberedFromItsLatestFree) {
  Keys keys(4);
  keys.add(1);
  keys.add(2);
  keys.add(1);  // 1's latest free: the third
  keys.add(3);
  keys.add(4);
  keys.add(5);  // the last four frees: 1, 3, 4, 5
  EXPECT_TRUE(keys.contains(1));
  EXPECT_FALSE(keys.contains(2));
  keys.add(6);
  EXPECT_FALSE(keys.contains(1));
  EXPECT_EQ(keys.size(), 4u);
}

// Counts blocks and nothing else.
struct Blocks final : EventConsumer {
  void on_alloc(const LiveBlock&) override { ++allocs; }
  void on_free(const LiveBlock&, std::uint64_t, std::int64_t, bool) override { ++frees; }
  void on_still_alive(const LiveBlock&) override {}
  void on_finish(std::int64_t) override {}
  std::uint64_t allocs = 0, frees = 0;
};

// Allocates and frees a block at `address`.
void alloc_and_free(BlockMatcher& matcher, std::uint64_t address) {
  matcher.alloc(BucketId(0), address);
  EXPECT_TRUE(matcher.free_address(address));
}

TEST(BlockMatcherFreedAddresses, MemoryFollowsTheLiveBlocksNotTheDistinctAddresses) {
  Blocks blocks;
  BlockMatcher matcher(BlockIdentity::kExact, blocks);
  // A million short-lived blocks, each at an address of its own: the
  // structures hold the live blocks (none) and the bound, not a million.
  constexpr std::uint64_t kBlocks = 1'000'000;
  for (std::uint64_t i = 0; i < kBlocks; ++i) alloc_and_free(matcher, 0x10000 + 16 * i);
  EXPECT_EQ(blocks.frees, kBlocks);
  EXPECT_EQ(matcher.live_keys(), 0u);
  EXPECT_EQ(matcher.freed_keys_remembered(), BlockMatcher::kFreesRemembered);
  // The latest is still told apart; the first is long forgotten.
  EXPECT_FALSE(matcher.free_address(0x10000 + 16 * (kBlocks - 1)));
  EXPECT_EQ(matcher.anomalies().double_frees, 1u);
  EXPECT_FALSE(matcher.free_address(0x10000));
  EXPECT_EQ(matcher.anomalies().unmatched_frees, 1u);
}

// A double free of 0x10 after `others` frees of other addresses.
Anomalies double_free_after(std::uint64_t others) {
  Blocks blocks;
  BlockMatcher matcher(BlockIdentity::kExact, blocks);
  alloc_and_free(matcher, 0x10);
  for (std::uint64_t i = 0; i < others; ++i) alloc_and_free(matcher, 0x1000 + 16 * i);
  EXPECT_FALSE(matcher.free_address(0x10));
  return matcher.anomalies();
}

TEST(BlockMatcherFreedAddresses, ADoubleFreeIsToldApartWithinTheBoundAndUnmatchedBeyondIt) {
  // Just inside: the first free is the oldest of the last kFreesRemembered.
  const Anomalies inside = double_free_after(BlockMatcher::kFreesRemembered - 1);
  EXPECT_EQ(inside.double_frees, 1u);
  EXPECT_EQ(inside.unmatched_frees, 0u);
  // Just outside: one free more, and it is counted as an unmatched free.
  const Anomalies outside = double_free_after(BlockMatcher::kFreesRemembered);
  EXPECT_EQ(outside.double_frees, 0u);
  EXPECT_EQ(outside.unmatched_frees, 1u);
}

TEST(BlockMatcherFreedAddresses, AnAddressAllocatedAgainIsRememberedFromItsLatestFree) {
  Blocks blocks;
  BlockMatcher matcher(BlockIdentity::kExact, blocks);
  alloc_and_free(matcher, 0x10);
  for (std::uint64_t i = 0; i < BlockMatcher::kFreesRemembered - 1; ++i) alloc_and_free(matcher, 0x1000 + 16 * i);
  alloc_and_free(matcher, 0x10);  // freed again: remembered from here
  for (std::uint64_t i = 0; i < BlockMatcher::kFreesRemembered - 1; ++i) alloc_and_free(matcher, 0x1000 + 16 * i);
  EXPECT_FALSE(matcher.free_address(0x10));
  EXPECT_EQ(matcher.anomalies().double_frees, 1u);
  EXPECT_EQ(matcher.anomalies().unmatched_frees, 0u);
}

}  // namespace
}  // namespace heapql::test
