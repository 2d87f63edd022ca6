// The live checkpoints a store builder lists (docs/store.md, "Live
// checkpoints"): spread over the trace, and never more ids in all than a
// quarter of the blocks allocated (a byte a block), however many blocks
// stay alive; a windowed answer from them is the answer without them.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "engine/query/aggregator.h"
#include "engine/ingest/block_matcher.h"
#include "engine/store/trace_store.h"

namespace heapql {
namespace {

// `blocks` allocations, one each ms, each freed `lifetime` allocations
// later, so that `lifetime` blocks stay alive throughout; checkpoints every
// `spacing` events.
void build(TraceStore& store, std::uint64_t blocks, std::uint64_t lifetime, std::uint64_t spacing) {
  TraceTables& tables = store.tables();
  const StringId module = tables.intern_string("app");
  const StackId stack = tables.intern_stack(tables.intern_frame(module, tables.intern_string("f"), 0x10), StackId());
  Bucket bucket;
  bucket.size = 16;
  bucket.stack = stack;
  const BucketId id = tables.intern_bucket(bucket);
  TraceStore::Builder builder(store, CheckpointRule{spacing, false});
  BlockMatcher matcher(BlockIdentity::kExact, builder);
  for (std::uint64_t i = 0; i < blocks; ++i) {
    matcher.set_time(static_cast<std::int64_t>(i) * 1'000'000);
    matcher.alloc(id, i);
    if (i >= lifetime) matcher.free_address(i - lifetime);
  }
  matcher.finish();
}

std::uint64_t listed_ids(const TraceStore& store) {
  std::uint64_t ids = 0;
  for (const LiveCheckpoint& c : store.columns().checkpoints) ids += c.count;
  return ids;
}

TEST(LiveCheckpoints, AllTogetherListAtMostAQuarterOfTheBlocks) {
  // 2,000 alive at every checkpoint, one every 1,000 events: each list alone
  // is allowed (a quarter of the blocks so far from 8,000 blocks on), but
  // a list at every one would list 2,000 x 200 ids, 2.5 times the blocks.
  constexpr std::uint64_t kBlocks = 100'000;
  TraceStore store;
  build(store, kBlocks, 2'000, 1'000);
  const auto& checkpoints = store.columns().checkpoints;
  ASSERT_GE(checkpoints.size(), 4u);
  EXPECT_LE(checkpoints.size(), 32u);
  EXPECT_LE(listed_ids(store), kBlocks / 4);
  EXPECT_EQ(store.columns().checkpoint_ids.size(), listed_ids(store));
  // Still spread over the trace: the last one in its last quarter.
  EXPECT_GT(checkpoints.back().seq, store.event_count() * 3 / 4);
  for (const LiveCheckpoint& c : checkpoints) EXPECT_EQ(c.count, 2'000u);
}

TEST(LiveCheckpoints, ATraceWithASixthOfItsBlocksAliveGetsOne) {
  // 10,000 alive from the 10,000th block on, of 60,000: a list at a
  // checkpoint is allowed from the 40,000th block (a quarter), and the
  // lists' room (15,000 ids at the end) holds one.
  TraceStore store;
  build(store, 60'000, 10'000, 1'000);
  const auto& checkpoints = store.columns().checkpoints;
  ASSERT_EQ(checkpoints.size(), 1u);
  EXPECT_EQ(checkpoints.front().count, 10'000u);
  EXPECT_GE(checkpoints.front().seq, 2 * 40'000u - 10'000u);  // events: allocations and frees
}

// The blocks alive before event `seq`, from the columns alone: allocated
// before it, and not freed before it (a sequence number that is no
// allocation's is the next free's).
std::vector<std::uint32_t> alive_before(const StoreColumns& c, std::uint64_t seq) {
  std::vector<bool> alive(c.block_count(), false);
  std::size_t next_block = 0, next_free = 0;
  for (std::uint64_t s = 0; s < seq; ++s) {
    if (next_block < c.alloc_seq.size() && c.alloc_seq[next_block] == s) {
      alive[next_block++] = true;
    } else {
      alive[c.free_order[next_free++] & StoreColumns::kBlockMask] = false;
    }
  }
  std::vector<std::uint32_t> ids;
  for (std::size_t b = 0; b < alive.size(); ++b) {
    if (alive[b]) ids.push_back(static_cast<std::uint32_t>(b));
  }
  return ids;
}

TEST(LiveCheckpoints, EachListsExactlyTheBlocksAliveThereAfterThinning) {
  // Thinned several times (a checkpoint every 500 events, at most 32 kept).
  TraceStore store;
  build(store, 60'000, 700, 500);
  const StoreColumns& c = store.columns();
  ASSERT_GE(c.checkpoints.size(), 4u);
  for (const LiveCheckpoint& checkpoint : c.checkpoints) {
    std::vector<std::uint32_t> listed;
    for (std::size_t k = 0; k < checkpoint.count; ++k) listed.push_back(c.checkpoint_ids[checkpoint.first + k]);
    EXPECT_EQ(listed, alive_before(c, checkpoint.seq)) << "checkpoint at event " << checkpoint.seq;
  }
}

TEST(LiveCheckpoints, AWindowAnswersTheSameFromThem) {
  TraceStore with;
  build(with, 50'000, 3'000, 1'000);
  TraceStore without;
  build(without, 50'000, 3'000, std::uint64_t{1} << 40);
  ASSERT_FALSE(with.columns().checkpoints.empty());
  ASSERT_TRUE(without.columns().checkpoints.empty());
  Query q;
  q.by = {GroupBy::kStack};
  q.default_cull = false;
  q.window.begin_ns = 40'000'000'000;  // 40 s: from the 40,000th block
  q.window.end_ns = 45'000'000'000;
  Aggregator a(with.tables(), q);
  a.answer_from(with);
  Aggregator b(without.tables(), q);
  b.answer_from(without);
  const Result ra = a.result(with.source());
  const Result rb = b.result(without.source());
  EXPECT_EQ(ra.totals.so, rb.totals.so);
  EXPECT_EQ(ra.totals.soc, rb.totals.soc);
  EXPECT_EQ(ra.totals.st, rb.totals.st);
  EXPECT_EQ(ra.totals.stc, rb.totals.stc);
  EXPECT_GT(ra.totals.stc, 0u);
}

// Blocks in seven buckets of different sizes, one allocated each ms, each
// freed between 500 and 2,500 allocations later, every fiftieth never:
// the blocks alive at a window's start differ by bucket.
void build_mixed(TraceStore& store, std::uint64_t blocks, std::uint64_t spacing) {
  TraceTables& tables = store.tables();
  const StringId module = tables.intern_string("app");
  std::vector<BucketId> buckets;
  for (std::uint64_t b = 0; b < 7; ++b) {
    Bucket bucket;
    bucket.size = 16 << b;
    bucket.stack = tables.intern_stack(
        tables.intern_frame(module, tables.intern_string("f" + std::to_string(b)), 0x10 * (b + 1)), StackId());
    buckets.push_back(tables.intern_bucket(bucket));
  }
  TraceStore::Builder builder(store, CheckpointRule{spacing, false});
  BlockMatcher matcher(BlockIdentity::kExact, builder);
  std::multimap<std::uint64_t, std::uint64_t> frees;  // when (allocation) -> address
  for (std::uint64_t i = 0; i < blocks; ++i) {
    matcher.set_time(static_cast<std::int64_t>(i) * 1'000'000);
    matcher.alloc(buckets[i % 7], i);
    if (i % 50 != 0) frees.emplace(i + 500 + (i * 37) % 2'000, i);
    for (auto due = frees.begin(); due != frees.end() && due->first <= i; due = frees.erase(due)) {
      matcher.free_address(due->second);
    }
  }
  matcher.finish();
}

Result window_result(const TraceStore& store, std::int64_t begin_ms, std::int64_t end_ms) {
  Query q;
  q.by = {GroupBy::kImpacting, GroupBy::kStack};
  q.impacting = {Impacting::kAifi, Impacting::kAifo, Impacting::kAofi, Impacting::kAofo};
  q.default_cull = false;
  q.window.begin_ns = begin_ms * 1'000'000;
  q.window.end_ns = end_ms * 1'000'000;
  Aggregator a(store.tables(), q);
  a.answer_from(store);
  return a.result(store.source());
}

void expect_same_measures(const Measures& a, const Measures& b, const std::string& what) {
  EXPECT_EQ(a.so, b.so) << what;
  EXPECT_EQ(a.soc, b.soc) << what;
  EXPECT_EQ(a.st, b.st) << what;
  EXPECT_EQ(a.stc, b.stc) << what;
  EXPECT_EQ(a.src, b.src) << what;
  EXPECT_EQ(a.count, b.count) << what;
  EXPECT_EQ(a.size, b.size) << what;
  EXPECT_EQ(a.impacting, b.impacting) << what;
}

TEST(LiveCheckpoints, AWindowStartingJustBeforeOrAfterOneAnswersTheSame) {
  // A window starting just before a checkpoint counts back from it; just
  // after, forward from it: either way the answer of a store without them.
  TraceStore with;
  build_mixed(with, 60'000, 2'000);
  TraceStore without;
  build_mixed(without, 60'000, std::uint64_t{1} << 40);
  ASSERT_GE(with.columns().checkpoints.size(), 3u);
  ASSERT_TRUE(without.columns().checkpoints.empty());
  int windows = 0;
  for (const LiveCheckpoint& checkpoint : with.columns().checkpoints) {
    // The allocation nearest the checkpoint: its time in ms is its block id.
    const auto at_ms = static_cast<std::int64_t>(with.columns().alloc_seq.lower_bound(checkpoint.seq));
    for (const std::int64_t from : {at_ms - 300, at_ms - 1, at_ms, at_ms + 1, at_ms + 300}) {
      for (const std::int64_t length : {std::int64_t{1}, std::int64_t{700}, std::int64_t{5'000}}) {
        const std::string what = "window " + std::to_string(from) + " ms + " + std::to_string(length);
        const Result a = window_result(with, from, from + length);
        const Result b = window_result(without, from, from + length);
        expect_same_measures(a.totals, b.totals, what);
        ASSERT_EQ(a.rows.size(), b.rows.size()) << what;
        for (std::size_t r = 0; r < a.rows.size(); ++r) {
          expect_same_measures(a.rows[r].measures, b.rows[r].measures, what + ", row " + std::to_string(r));
        }
        ++windows;
      }
    }
  }
  EXPECT_GE(windows, 45);
}

}  // namespace
}  // namespace heapql
