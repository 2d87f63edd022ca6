// The roll-up over many buckets numbers their keys and marks their rows on
// both cores, a half of the buckets each (aggregator_roll_up.cpp, kSplitRollUpFrom):
// the rows of both halves, and their totals, must all arrive.
// 70,000 stacks, a leak in each and a bigger one in ten spread over both
// halves, some buckets filtered out by size in each half.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

constexpr std::uint64_t kStacks = 70'000;
constexpr std::uint64_t kBigEvery = 7'000;  // stacks 0, 7000, ..., 63000: the big leaks
constexpr std::uint64_t kSize = 8;
constexpr std::uint64_t kFilteredSize = 4096;

TEST(RollUpHalves, RowsAndTotalsOfBothHalvesOfManyBucketsArrive) {
  ScriptedTrace t(BlockIdentity::kBucketLifo);
  std::uint64_t leaked_blocks = 0, allocated_blocks = 0, filtered_blocks = 0;
  t.at_ms(0);
  for (std::uint64_t i = 0; i < kStacks; ++i) {
    const StackId s = t.stack({"app!f" + std::to_string(i), "app!main"});
    // Every stack: three blocks, one freed; the big ones leak 100 + i / 7000 more.
    const std::uint64_t extra = i % kBigEvery == 0 ? 100 + i / kBigEvery : 0;
    for (std::uint64_t b = 0; b < 3 + extra; ++b) t.alloc(0, kSize, s);
    t.free_bucket(kSize, s);
    allocated_blocks += 3 + extra;
    leaked_blocks += 2 + extra;
    if (i % 1000 == 500) {  // a bucket the size filter removes
      t.alloc(0, kFilteredSize, s);
      ++filtered_blocks;
    }
  }
  Query q;
  q.by = {GroupBy::kStack};
  q.default_cull = false;
  q.size_end = kFilteredSize;
  q.top = 10;
  const Result r = t.run(q);

  EXPECT_EQ(r.totals.stc, allocated_blocks);
  EXPECT_EQ(r.totals.soc, leaked_blocks);
  EXPECT_EQ(r.totals.so, leaked_blocks * kSize);
  EXPECT_EQ(r.excluded_blocks, filtered_blocks);
  EXPECT_EQ(r.excluded_bytes, filtered_blocks * kFilteredSize);
  ASSERT_EQ(r.rows.size(), 10u);
  for (std::size_t row = 0; row < r.rows.size(); ++row) {
    // Largest first: stack 63000 (109 more), then 56000, ..., 0 (100 more).
    const std::uint64_t stack = (9 - row) * kBigEvery;
    EXPECT_EQ(r.rows[row].measures.soc, 2 + 100 + stack / kBigEvery) << "row " << row;
    ASSERT_FALSE(r.rows[row].key.empty());
    EXPECT_EQ(r.rows[row].key[0].frames.front(), "app!f" + std::to_string(stack)) << "row " << row;
  }
  EXPECT_EQ(r.other_rows, kStacks - 10);
}

}  // namespace
}  // namespace heapql::test
