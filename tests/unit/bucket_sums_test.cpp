// The bucket sums a store builder keeps (docs/store.md, "Bucket sums"): in
// the order of each bucket's first allocation whatever the order of their
// ids, handed over in chunks that together are the whole list, and the
// store's stack view rolled up from them the same however they are chunked.
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "engine/query/aggregator.h"
#include "engine/ingest/block_matcher.h"
#include "engine/store/stack_view_sink.h"
#include "engine/store/store_columns.h"
#include "engine/store/trace_store.h"

namespace heapql {
namespace {

using Builder = ColumnBuilder<std::vector<std::uint32_t>, std::vector<TimeChange>>;

struct Columns {
  std::vector<std::uint32_t> bucket, alloc_seq, free_order;
  std::vector<TimeChange> time_changes;
};

// `buckets` buckets of 16-byte blocks, bucket b on stack b % `stacks`.
std::vector<BucketId> add_buckets(TraceTables& tables, std::size_t buckets, std::size_t stacks) {
  const StringId module = tables.intern_string("app");
  std::vector<StackId> stack_ids;
  for (std::size_t s = 0; s < stacks; ++s) {
    const FrameId frame = tables.intern_frame(module, tables.intern_string("f" + std::to_string(s)), 0x10 + s);
    stack_ids.push_back(tables.intern_stack(frame, StackId()));
  }
  std::vector<BucketId> ids;
  for (std::size_t b = 0; b < buckets; ++b) {
    Bucket bucket;
    bucket.size = 16 + b;
    bucket.stack = stack_ids[b % stacks];
    ids.push_back(tables.intern_bucket(bucket));
  }
  return ids;
}

std::vector<BucketSum> chunked(const Builder& builder, std::vector<std::size_t>* sizes = nullptr) {
  std::vector<BucketSum> all;
  builder.each_bucket_sum_chunk([&](std::span<const BucketSum> chunk) {
    if (sizes != nullptr) sizes->push_back(chunk.size());
    all.insert(all.end(), chunk.begin(), chunk.end());
  });
  return all;
}

TEST(BucketSums, FollowFirstAllocationsNotIds) {
  TraceTables tables;
  const std::vector<BucketId> b = add_buckets(tables, 4, 1);
  Columns c;
  Builder builder(tables, c.bucket, c.alloc_seq, c.free_order, c.time_changes);
  BlockMatcher matcher(BlockIdentity::kExact, builder);
  // First allocations: 0, 1, 3, 2; then more of 0, and frees (one temporary).
  matcher.alloc(b[0], 0x100);
  matcher.alloc(b[1], 0x200);
  matcher.alloc(b[3], 0x300);
  matcher.alloc(b[2], 0x400);
  matcher.alloc(b[0], 0x500);
  matcher.free_address(0x500);  // temporary: the previous event allocated it
  matcher.free_address(0x200);
  matcher.finish();

  const std::vector<BucketSum> sums = chunked(builder);
  ASSERT_EQ(sums.size(), 4u);
  EXPECT_EQ(sums[0].bucket, 0u);
  EXPECT_EQ(sums[1].bucket, 1u);
  EXPECT_EQ(sums[2].bucket, 3u);
  EXPECT_EQ(sums[3].bucket, 2u);
  EXPECT_EQ(sums[0].allocs, 2u);
  EXPECT_EQ(sums[0].frees, 1u);
  EXPECT_EQ(sums[0].temporary_frees, 1u);
  EXPECT_EQ(sums[1].frees, 1u);
  EXPECT_EQ(sums[1].temporary_frees, 0u);
  // The peak (5 blocks) came with the second block of bucket 0.
  EXPECT_EQ(sums[0].live_at_peak, 2u);
  EXPECT_EQ(sums[1].live_at_peak, 1u);
  EXPECT_EQ(builder.bucket_sum_count(), 4u);

  const std::vector<BucketSum> taken = builder.take_bucket_sums();
  ASSERT_EQ(taken.size(), sums.size());
  for (std::size_t i = 0; i < sums.size(); ++i) EXPECT_EQ(taken[i].bucket, sums[i].bucket);
  EXPECT_EQ(builder.bucket_sum_count(), 0u);  // its state went with them
}

TEST(BucketSums, ComeInChunksThatMakeTheWholeList) {
  // More buckets than a chunk holds; the last two first allocated out of order.
  constexpr std::size_t kBuckets = 70'000;
  TraceTables tables;
  const std::vector<BucketId> b = add_buckets(tables, kBuckets, 3);
  Columns c;
  Builder builder(tables, c.bucket, c.alloc_seq, c.free_order, c.time_changes);
  BlockMatcher matcher(BlockIdentity::kExact, builder);
  std::vector<std::uint32_t> order;
  for (std::size_t i = 0; i < kBuckets; ++i) order.push_back(static_cast<std::uint32_t>(i));
  std::swap(order[kBuckets - 1], order[kBuckets - 2]);
  for (std::size_t i = 0; i < kBuckets; ++i) matcher.alloc(b[order[i]], 0x1000 + i * 16);
  matcher.finish();

  std::vector<std::size_t> sizes;
  const std::vector<BucketSum> sums = chunked(builder, &sizes);
  ASSERT_EQ(sums.size(), kBuckets);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{65'536, kBuckets - 65'536}));
  for (std::size_t i = 0; i < kBuckets; ++i) {
    ASSERT_EQ(sums[i].bucket, order[i]) << i;
    ASSERT_EQ(sums[i].allocs, 1u) << i;
  }
}

// The builder keeps each bucket's size beside its counts, copied from the
// tables at the bucket's first event: the trace's peak counts every block at
// its own bucket's size, also where that first event frees a block the
// builder never saw allocated (a store resumed, or a test's events).
TEST(BucketSums, ThePeakCountsEveryBlockAtItsBucketsSize) {
  TraceTables tables;
  const std::vector<BucketId> b = add_buckets(tables, 4, 2);  // sizes 16, 17, 18, 19
  Columns c;
  Builder builder(tables, c.bucket, c.alloc_seq, c.free_order, c.time_changes);
  std::uint64_t seq = 0;
  std::uint32_t next_block = 0;
  auto alloc_block = [&](BucketId bucket) {
    const LiveBlock block{BlockId(next_block++), bucket, seq, static_cast<std::int64_t>(seq)};
    builder.on_alloc(block);
    ++seq;
    return block;
  };
  auto free_block = [&](const LiveBlock& block) {
    builder.on_free(block, seq, static_cast<std::int64_t>(seq), false);
    ++seq;
  };
  alloc_block(b[0]);
  alloc_block(b[1]);
  free_block(alloc_block(b[1]));  // the peak so far: 16 + 17 + 17 at seq 2
  free_block(LiveBlock{BlockId(1000), b[2], 0, 0});  // bucket 2's first event: 33 - 18
  alloc_block(b[2]);  // back to 33
  alloc_block(b[3]);
  alloc_block(b[3]);  // 71 in 4 blocks, at seq 7
  builder.on_finish(static_cast<std::int64_t>(seq));
  EXPECT_EQ(builder.peak().bytes, 71u);
  EXPECT_EQ(builder.peak().blocks, 4u);
  EXPECT_EQ(builder.peak().time_ns, 7);
}

// What a sink receives, kept.
struct KeptView final : StackViewSink {
  StackViewHead kept_head;
  std::vector<std::uint32_t> kept_stacks;
  std::vector<std::vector<std::uint64_t>> kept_measures;
  void head(const StackViewHead& h) override { kept_head = h; }
  void stacks(std::span<const std::uint32_t> s) override { kept_stacks.assign(s.begin(), s.end()); }
  void measure(std::span<const std::uint64_t> m) override { kept_measures.emplace_back(m.begin(), m.end()); }
};

TEST(BucketSums, TheStackViewIsTheSameHoweverTheyAreChunked) {
  TraceStore store;
  const std::vector<BucketId> b = add_buckets(store.tables(), 50, 7);
  {
    TraceStore::Builder builder(store);
    BlockMatcher matcher(BlockIdentity::kExact, builder);
    for (std::uint64_t i = 0; i < 400; ++i) {
      matcher.set_time(static_cast<std::int64_t>(i) * 1'000);
      matcher.alloc(b[(i * 7) % 50], i);
      if (i % 3 == 0) matcher.free_address(i);        // temporary
      if (i % 5 == 1 && i > 10) matcher.free_address(i - 10);
    }
    matcher.finish();
  }
  const std::vector<BucketSum> all_sums = store.columns().bucket_sums.all();
  const std::span<const BucketSum> sums = all_sums;
  ASSERT_EQ(sums.size(), 50u);

  const auto view_of = [&](std::size_t chunk_size) {
    KeptView view;
    int reads = 0;
    const BucketSumChunks chunks = [&](const std::function<void(std::span<const BucketSum>)>& chunk) {
      for (std::size_t i = 0; i < sums.size(); i += chunk_size) chunk(sums.subspan(i, std::min(chunk_size, sums.size() - i)));
    };
    Aggregator::build_stack_view(store.tables(), chunks, [&] { ++reads; }, view);
    EXPECT_EQ(reads, 1);
    return view;
  };
  const KeptView whole = view_of(sums.size());
  EXPECT_EQ(whole.kept_head.rows, 7u);
  ASSERT_EQ(whole.kept_stacks.size(), 7u);
  ASSERT_EQ(whole.kept_measures.size(), kViewMeasures);
  std::uint64_t blocks = 0;
  for (const std::uint64_t n : whole.kept_measures[static_cast<std::size_t>(Measure::kStc)]) blocks += n;
  EXPECT_EQ(blocks, 400u);
  EXPECT_EQ(whole.kept_head.totals[static_cast<std::size_t>(Measure::kStc)], 400u);
  for (const std::size_t size : {1, 3, 49}) {
    const KeptView view = view_of(size);
    EXPECT_EQ(view.kept_stacks, whole.kept_stacks) << size;
    EXPECT_EQ(view.kept_measures, whole.kept_measures) << size;
    EXPECT_EQ(view.kept_head.totals, whole.kept_head.totals) << size;
    EXPECT_EQ(view.kept_head.temporary_blocks, whole.kept_head.temporary_blocks) << size;
  }
}

}  // namespace
}  // namespace heapql
