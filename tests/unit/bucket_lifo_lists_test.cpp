// BucketLifoLists at a trace's end: the blocks still alive come in block id
// order, whatever their buckets and the order they were pushed in, and the
// ones that ended out of order go to `dropped`, not among them. The reader's
// hints (prefetch_top, prefetch_top_block) read only lists that exist.
#include "engine/ingest/bucket_lifo_lists.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace heapql {
namespace {

TEST(BucketLifoLists, AliveBlocksComeInIdOrderAndEndedOnesAreDropped) {
  BucketLifoLists<LiveBlock> lists;
  lists.track_out_of_order_ends();
  std::mt19937 rng(3);
  std::vector<std::uint32_t> ids(5'000);
  for (std::uint32_t i = 0; i < ids.size(); ++i) ids[i] = i;
  std::shuffle(ids.begin(), ids.end(), rng);
  std::set<std::uint32_t> alive;
  for (const std::uint32_t id : ids) {
    const BucketId bucket(static_cast<std::uint32_t>(rng() % 37));
    lists.push(bucket, LiveBlock{BlockId(id), bucket, id, 0});
    alive.insert(id);
    if (rng() % 4 == 0) {  // the bucket's most recent block ends in order
      alive.erase(lists.top(bucket)->id.value);
      lists.pop(bucket);
    }
  }
  std::set<std::uint32_t> ended;
  for (auto it = alive.begin(); it != alive.end();) {
    if (*it % 5 == 0) {  // ends out of its bucket's order
      lists.end_out_of_order(BlockId(*it), [](const LiveBlock&) {});
      ended.insert(*it);
      it = alive.erase(it);
    } else {
      ++it;
    }
  }
  std::set<std::uint32_t> dropped;
  const std::vector<std::uint32_t> slots =
      lists.alive_in_id_order([&](const LiveBlock& block) { dropped.insert(block.id.value); });
  std::vector<std::uint32_t> got;
  for (const std::uint32_t slot : slots) got.push_back(lists.block(slot).id.value);
  EXPECT_EQ(got, std::vector<std::uint32_t>(alive.begin(), alive.end()));
  // Compactions may have dropped some ended blocks already; the rest come now.
  for (const std::uint32_t id : dropped) EXPECT_TRUE(ended.count(id)) << id;
}

TEST(BucketLifoLists, HintsForBucketsWithoutBlocksReadNothingAndChangeNothing) {
  BucketLifoLists<LiveBlock> lists;
  lists.prefetch_top(BucketId(7));  // no list at all yet
  lists.prefetch_top_block(BucketId(7));
  lists.push(BucketId(2), LiveBlock{BlockId(0), BucketId(2), 0, 0});
  lists.pop(BucketId(2));
  lists.prefetch_top_block(BucketId(2));  // a list emptied
  lists.prefetch_top_block(BucketId(1));  // a list never used, below one that was
  lists.prefetch_top(BucketId(1'000'000));
  lists.prefetch_top_block(BucketId(1'000'000));
  lists.push(BucketId(2), LiveBlock{BlockId(1), BucketId(2), 1, 0});
  lists.prefetch_top_block(BucketId(2));
  ASSERT_NE(lists.top(BucketId(2)), nullptr);
  EXPECT_EQ(lists.top(BucketId(2))->id, BlockId(1));
  EXPECT_EQ(lists.top(BucketId(7)), nullptr);
}

}  // namespace
}  // namespace heapql
