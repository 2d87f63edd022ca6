// LiveBlockMap: the live blocks of a source with addresses, against
// std::unordered_map under random allocations and frees, including the
// probe runs that wrap around the end of the table and the backward shift of
// deletion.
#include "engine/ingest/live_block_map.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

namespace heapql {
namespace {

LiveBlock block(std::uint32_t id) { return LiveBlock{BlockId(id), BucketId(id % 7), id * 3u, std::int64_t{id} * 5}; }

void expect_same(const LiveBlockMap& map, const std::unordered_map<std::uint64_t, LiveBlock>& model,
                 const std::vector<std::uint64_t>& keys) {
  ASSERT_EQ(map.size(), model.size());
  for (std::uint64_t key : keys) {
    const LiveBlock* found = map.find(key);
    const auto it = model.find(key);
    ASSERT_EQ(found != nullptr, it != model.end()) << key;
    if (found != nullptr) {
      EXPECT_EQ(found->id, it->second.id) << key;
    }
  }
  std::size_t seen = 0;
  map.for_each([&](const LiveBlock& b) {
    ++seen;
    EXPECT_TRUE(b.id.valid());
  });
  EXPECT_EQ(seen, model.size());
}

TEST(LiveBlockMap, MatchesAMapUnderRandomAllocationsAndFrees) {
  // Few distinct keys (addresses are reused, as allocators reuse them) and a
  // table that stays small, so that probe runs collide and wrap.
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 random(seed);
    std::vector<std::uint64_t> keys;
    for (int i = 0; i < 3000; ++i) keys.push_back(random() & 0xFFFF'FFF0u);
    LiveBlockMap map;
    std::unordered_map<std::uint64_t, LiveBlock> model;
    std::uint32_t next_id = 0;
    for (int step = 0; step < 200'000; ++step) {
      const std::uint64_t key = keys[random() % keys.size()];
      if (random() % 2 == 0) {
        auto [slot, added] = map.find_or_add(key);
        EXPECT_EQ(added, !model.contains(key));
        if (!added) {
          EXPECT_EQ(slot->id, model.at(key).id);
        }
        *slot = block(next_id);
        model[key] = block(next_id++);
      } else {
        LiveBlock taken;
        const bool had = map.take(key, taken);
        ASSERT_EQ(had, model.contains(key));
        if (had) {
          EXPECT_EQ(taken.id, model.at(key).id);
          EXPECT_EQ(taken.alloc_ns, model.at(key).alloc_ns);
          model.erase(key);
        }
      }
      if (step % 20'000 == 0) expect_same(map, model, keys);
    }
    expect_same(map, model, keys);
  }
}

// Keys as heaps lay them out, which neighbouring slots (a stretch per KiB of
// addresses) must keep apart: dense small blocks, page-aligned blocks, and
// both in one table, with the probe runs they make broken by frees.
TEST(LiveBlockMap, MatchesAMapOnDenseAndAlignedAddresses) {
  std::vector<std::uint64_t> keys;
  for (std::uint64_t i = 0; i < 4000; ++i) keys.push_back(0x5555'0000 + i * 48);             // dense
  for (std::uint64_t i = 0; i < 4000; ++i) keys.push_back(0x7f00'0000'0010 + i * 4096);      // one offset of many pages
  for (std::uint64_t i = 0; i < 2000; ++i) keys.push_back(0x7f10'0000'0000 + i * 4096 * 33);  // spread
  std::mt19937_64 random(7);
  LiveBlockMap map;
  std::unordered_map<std::uint64_t, LiveBlock> model;
  std::uint32_t next_id = 0;
  for (int step = 0; step < 100'000; ++step) {
    // Mostly allocating at first, mostly freeing later: the table grows, then empties.
    const std::uint64_t key = keys[random() % keys.size()];
    if (random() % 100 < (step < 50'000 ? 70u : 30u)) {
      auto [slot, added] = map.find_or_add(key);
      ASSERT_EQ(added, !model.contains(key));
      *slot = block(next_id);
      model[key] = block(next_id++);
    } else {
      LiveBlock taken;
      ASSERT_EQ(map.take(key, taken), model.contains(key));
      if (model.contains(key)) {
        EXPECT_EQ(taken.id, model.at(key).id);
        model.erase(key);
      }
    }
    if (step % 10'000 == 0) expect_same(map, model, keys);
  }
  expect_same(map, model, keys);
}

TEST(LiveBlockMap, EmptyMapFindsAndTakesNothing) {
  LiveBlockMap map;
  LiveBlock out;
  EXPECT_EQ(map.find(42), nullptr);
  EXPECT_FALSE(map.take(42, out));
  EXPECT_EQ(map.size(), 0u);
}

TEST(LiveBlockMap, KeyZeroIsAnOrdinaryKey) {
  LiveBlockMap map;
  *map.find_or_add(0).first = block(9);
  ASSERT_NE(map.find(0), nullptr);
  EXPECT_EQ(map.find(0)->id, BlockId(9));
  LiveBlock out;
  EXPECT_TRUE(map.take(0, out));
  EXPECT_EQ(map.find(0), nullptr);
}

}  // namespace
}  // namespace heapql
