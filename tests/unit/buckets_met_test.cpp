// TraceStore::buckets_met_before: how many buckets' states a replay until
// a time sets at once (docs/store.md, "From T1 to T2"). Never fewer than
// the buckets it meets; for an early end, only up to the highest of them.
#include <gtest/gtest.h>

#include "engine/ingest/block_matcher.h"
#include "engine/store/trace_store.h"

namespace heapql {
namespace {

// 1,000 buckets, one allocation a millisecond: the first 100 allocations
// meet buckets 0..99 in a shuffled order (bucket 99 at the 78th), then
// the k-th meets bucket k % 500: buckets 500..999 have no block.
void build(TraceStore& store) {
  TraceTables& tables = store.tables();
  const StringId module = tables.intern_string("app");
  const StackId stack = tables.intern_stack(tables.intern_frame(module, tables.intern_string("f"), 0x10), StackId());
  std::vector<BucketId> buckets;
  for (std::uint64_t size = 1; size <= 1000; ++size) {
    Bucket bucket;
    bucket.size = size;
    bucket.stack = stack;
    buckets.push_back(tables.intern_bucket(bucket));
  }
  TraceStore::Builder builder(store, CheckpointRule{1u << 20, false});
  BlockMatcher matcher(BlockIdentity::kExact, builder);
  for (std::uint64_t i = 0; i < 10'000; ++i) {
    matcher.set_time(static_cast<std::int64_t>(i) * 1'000'000);
    const std::uint64_t k = i < 100 ? (i * 37 + 50) % 100 : i % 500;  // 37 is prime to 100: each of 0..99 once
    matcher.alloc(buckets[k], i);
    if (i % 2 == 1) matcher.free_address(i);
  }
  matcher.finish();
}

TEST(BucketsMetBefore, AnEarlyEndSetsOnlyUpToTheHighestBucketMet) {
  TraceStore store;
  build(store);
  ASSERT_EQ(store.tables().bucket_count(), 1000u);
  EXPECT_EQ(store.buckets_met_before(0), 0u);  // no block allocated before
  // Allocations 0..2 meet buckets 50, 87 and 24.
  EXPECT_EQ(store.buckets_met_before(3'000'000), 88u);
  // The first 100 meet 0..99.
  EXPECT_EQ(store.buckets_met_before(100'000'000), 100u);
}

TEST(BucketsMetBefore, PastAnEighthOfTheBlocksEveryBucketIsSet) {
  TraceStore store;
  build(store);
  // 1,300 of 10,000 blocks: past an eighth, so all 1,000, though they
  // meet only 0..499 (their buckets are not read); to the end, the same.
  EXPECT_EQ(store.buckets_met_before(1'300'000'000), 1000u);
  EXPECT_EQ(store.buckets_met_before(kNeverNs), 1000u);
}

}  // namespace
}  // namespace heapql
