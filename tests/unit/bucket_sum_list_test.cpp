// BucketSumList's narrow form (a live journal's sums, 16 bytes a bucket):
// read a chunk at a time, each sum widened with its bucket, the bucket its
// place when no bucket list is given, in order across chunk boundaries.
#include "engine/store/bucket_sum_list.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace heapql {
namespace {

void expect_widened(const BucketSumList& list, const std::vector<NarrowBucketSum>& narrow,
                    const std::vector<std::uint32_t>& buckets) {
  ASSERT_EQ(list.size(), narrow.size());
  std::size_t seen = 0;
  list.each_chunk([&](std::span<const BucketSum> chunk) {
    EXPECT_LE(chunk.size(), BucketSumList::kChunk);
    for (const BucketSum& s : chunk) {
      const NarrowBucketSum& n = narrow[seen];
      ASSERT_EQ(s.bucket, buckets.empty() ? seen : buckets[seen]) << seen;
      ASSERT_EQ(s.allocs, n.allocs) << seen;
      ASSERT_EQ(s.frees, n.frees) << seen;
      ASSERT_EQ(s.temporary_frees, n.temporary_frees) << seen;
      ASSERT_EQ(s.live_at_peak, n.live_at_peak) << seen;
      ++seen;
    }
  });
  EXPECT_EQ(seen, narrow.size());
}

TEST(BucketSumList, NarrowSumsAreWidenedAChunkAtATimeInOrder) {
  std::vector<NarrowBucketSum> narrow;
  std::vector<std::uint32_t> buckets;
  for (std::uint32_t i = 0; i < 2 * BucketSumList::kChunk + 17; ++i) {
    // The largest counts a store can hold, among small ones.
    const std::uint32_t allocs = i % 1000 == 0 ? 0x7FFFFFFFu : 3 * i + 1;
    narrow.push_back(NarrowBucketSum{allocs, allocs - 1, allocs / 2, allocs / 3});
    buckets.push_back(i * 7 + 3);  // first allocated out of id order
  }
  expect_widened(BucketSumList(narrow, {}), narrow, {});
  expect_widened(BucketSumList(narrow, buckets), narrow, buckets);
  EXPECT_TRUE(BucketSumList(std::span<const NarrowBucketSum>(), {}).empty());
}

}  // namespace
}  // namespace heapql
