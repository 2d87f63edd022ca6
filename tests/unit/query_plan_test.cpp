// The query plan's one rule of which blocks count (query_plan.h): a bucket's
// own filters, decided once per bucket, then a block's impacting type,
// temporariness and lifetime as it ends. And the blocks the rule removes
// are tallied with checked sums on the event path and the bucket sums alike.
#include "engine/query/query_plan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "engine/error.h"
#include "engine/ingest/block_matcher.h"
#include "engine/query/aggregator.h"
#include "engine/store/trace_store.h"
#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

QueryPlan plan_of(const TraceTables& tables, const Query& query) {
  return QueryPlan(tables, query, compile_stack_filters(query));
}

constexpr Impacting kAllTypes[] = {Impacting::kAifi, Impacting::kAifo, Impacting::kAofi, Impacting::kAofo};

BlockEnd freed_at(std::int64_t alloc_ns, std::int64_t free_ns, std::int64_t t2 = kNeverNs) {
  return BlockEnd{
      .alloc_in = true, .freed_in = free_ns < t2, .temporary = false, .free_ns = free_ns, .alloc_ns = alloc_ns};
}

TEST(QueryPlanKeepRule, WithoutBlockFiltersEveryBlockOfACountedBucketCounts) {
  const TraceTables tables;
  Query q;
  q.default_cull = false;
  const QueryPlan plan = plan_of(tables, q);
  EXPECT_FALSE(plan.has_block_filters());
  for (const Impacting type : kAllTypes) {
    EXPECT_TRUE(plan.counts_block(type, BlockEnd{}));
    EXPECT_TRUE(plan.counts_block(type, BlockEnd{.temporary = true}));
    EXPECT_TRUE(plan.counts_block(type, freed_at(0, 1)));
  }
}

TEST(QueryPlanKeepRule, OnlyTheImpactingTypesAskedFor) {
  const TraceTables tables;
  Query q;
  q.default_cull = false;
  q.impacting = {Impacting::kAifo, Impacting::kAofi};
  const QueryPlan plan = plan_of(tables, q);
  EXPECT_FALSE(plan.counts_block(Impacting::kAifi, BlockEnd{}));
  EXPECT_TRUE(plan.counts_block(Impacting::kAifo, BlockEnd{}));
  EXPECT_TRUE(plan.counts_block(Impacting::kAofi, BlockEnd{}));
  EXPECT_FALSE(plan.counts_block(Impacting::kAofo, BlockEnd{}));
}

TEST(QueryPlanKeepRule, OnlyTemporaryBlocksWhenAskedFor) {
  const TraceTables tables;
  Query q;
  q.default_cull = false;
  q.temporary_only = true;
  const QueryPlan plan = plan_of(tables, q);
  EXPECT_TRUE(plan.counts_block(Impacting::kAifi, BlockEnd{.freed_in = true, .temporary = true}));
  EXPECT_FALSE(plan.counts_block(Impacting::kAifi, BlockEnd{.freed_in = true, .temporary = false}));
  // Both asked: each must hold.
  q.impacting = {Impacting::kAifo};
  const QueryPlan both = plan_of(tables, q);
  EXPECT_FALSE(both.counts_block(Impacting::kAifi, BlockEnd{.temporary = true}));
  EXPECT_TRUE(both.counts_block(Impacting::kAifo, BlockEnd{.temporary = true}));
  EXPECT_FALSE(both.counts_block(Impacting::kAifo, BlockEnd{.temporary = false}));
}

TEST(QueryPlanKeepRule, LifetimeOfFreedAndOutstandingBlocksInAClosedWindow) {
  const TraceTables tables;
  Query q;
  q.default_cull = false;
  q.window.end_ns = 30;
  q.lifetime_min_ns = 10;
  q.lifetime_end_ns = 20;
  const QueryPlan plan = plan_of(tables, q);
  EXPECT_TRUE(plan.needs_blocks());
  EXPECT_FALSE(plan.counts_block(Impacting::kAifi, freed_at(0, 9, 30)));
  EXPECT_TRUE(plan.counts_block(Impacting::kAifi, freed_at(0, 10, 30)));
  EXPECT_TRUE(plan.counts_block(Impacting::kAifi, freed_at(5, 24, 30)));
  EXPECT_FALSE(plan.counts_block(Impacting::kAifi, freed_at(5, 25, 30)));  // the end is exclusive
  // Outstanding at T2 (freed later, or never): it lived until T2.
  EXPECT_TRUE(plan.counts_block(Impacting::kAifo, freed_at(15, 100, 30)));
  EXPECT_TRUE(plan.counts_block(Impacting::kAifo, freed_at(15, kNeverNs, 30)));
  EXPECT_FALSE(plan.counts_block(Impacting::kAifo, freed_at(5, 100, 30)));
}

TEST(QueryPlanKeepRule, InAnOpenWindowOutstandingBlocksLiveForEver) {
  const TraceTables tables;
  Query q;
  q.default_cull = false;
  q.lifetime_min_ns = 10;
  EXPECT_TRUE(plan_of(tables, q).counts_block(Impacting::kAifo, freed_at(5, kNeverNs)));
  q.lifetime_end_ns = 1'000'000'000;
  EXPECT_FALSE(plan_of(tables, q).counts_block(Impacting::kAifo, freed_at(5, kNeverNs)));
}

TEST(QueryPlanKeepRule, BucketFiltersDecideABucketOnce) {
  ScriptedTrace t;
  const StackId kept = t.stack({"app!work", "app!main"});
  const StackId excluded = t.stack({"app!skip", "app!main"});
  TraceTables& tables = t.tables();
  const ProcessId app = tables.intern_process(42, "app");
  const ProcessId other = tables.intern_process(7, "other");
  const HeapId app_heap = tables.intern_heap(app, 0x10, "main heap");
  const HeapId other_heap = tables.intern_heap(other, 0x20, "");
  const Bucket base{64, kept, app_heap, 3, BlockKind::kHeap, false};

  Query q;
  q.default_cull = false;
  q.size_min = 16;
  q.size_end = 128;
  q.kinds = {BlockKind::kHeap};
  q.threads = {3};
  q.processes = {"app"};
  q.heaps = {"0x10"};
  q.exclude = {"app!skip"};
  QueryPlan plan = plan_of(tables, q);
  EXPECT_TRUE(plan.counts_bucket(base));
  const auto changed = [&](auto change) {
    Bucket b = base;
    change(b);
    return b;
  };
  EXPECT_FALSE(plan.counts_bucket(changed([](Bucket& b) { b.size = 15; })));
  EXPECT_TRUE(plan.counts_bucket(changed([](Bucket& b) { b.size = 16; })));
  EXPECT_FALSE(plan.counts_bucket(changed([](Bucket& b) { b.size = 128; })));
  EXPECT_FALSE(plan.counts_bucket(changed([](Bucket& b) { b.kind = BlockKind::kVirtual; })));
  EXPECT_FALSE(plan.counts_bucket(changed([](Bucket& b) { b.thread = 4; })));
  EXPECT_FALSE(plan.counts_bucket(changed([&](Bucket& b) { b.heap = other_heap; })));  // other process and heap
  EXPECT_FALSE(plan.counts_bucket(changed([](Bucket& b) { b.heap = HeapId(); })));     // no process known
  EXPECT_FALSE(plan.counts_bucket(changed([&](Bucket& b) { b.stack = excluded; })));

  // A process by pid, a heap by name.
  q.processes = {"7"};
  q.heaps = {"main heap"};
  QueryPlan by_pid = plan_of(tables, q);
  EXPECT_FALSE(by_pid.counts_bucket(base));
  q.processes = {"42"};
  QueryPlan by_heap_name = plan_of(tables, q);
  EXPECT_TRUE(by_heap_name.counts_bucket(base));
}

// One bucket of 2^62-byte blocks, two of them freed (not temporarily) and
// removed by --temporary: 2^63 excluded bytes, past what any sum of sizes
// may reach (byte_sums.h).
constexpr std::uint64_t kQuarterOfTheRange = std::uint64_t{1} << 62;

void play_two_huge_frees(EventConsumer& consumer, TraceTables& tables) {
  const StackId stack =
      tables.intern_stack(tables.intern_frame(tables.intern_string("app"), tables.intern_string("f"), 0), StackId());
  const BucketId huge = tables.intern_bucket(Bucket{kQuarterOfTheRange, stack, HeapId(), 0, BlockKind::kHeap, false});
  const BucketId small = tables.intern_bucket(Bucket{1, stack, HeapId(), 0, BlockKind::kHeap, false});
  BlockMatcher matcher(BlockIdentity::kExact, consumer);
  matcher.alloc(huge, 0x100);
  matcher.alloc(small, 0x200);  // so that the free below is not temporary
  matcher.free_address(0x100);
  matcher.alloc(huge, 0x300);
  matcher.alloc(small, 0x400);
  matcher.free_address(0x300);
  matcher.finish();
}

Query temporary_only() {
  Query q;
  q.default_cull = false;
  q.temporary_only = true;
  return q;
}

TEST(QueryPlanKeepRule, ExcludedBytesPastTheLimitAreAnErrorOnTheEventPath) {
  TraceTables tables;
  Aggregator aggregator(tables, temporary_only());
  EXPECT_THROW(play_two_huge_frees(aggregator, tables), Error);
}

TEST(QueryPlanKeepRule, ExcludedBytesPastTheLimitAreAnErrorFromTheBucketSums) {
  TraceStore store;
  {
    TraceStore::Builder builder(store);
    play_two_huge_frees(builder, store.tables());
  }
  ASSERT_FALSE(store.columns().bucket_sums.empty());
  Aggregator aggregator(store.tables(), temporary_only());
  EXPECT_THROW(aggregator.answer_from(store), Error);
}

}  // namespace
}  // namespace heapql::test
