// TraceStore::replay over columns that contradict each other (what a crafted
// store file with valid checksums could hold): an Error naming what is
// wrong, never a crash or an answer, also when a windowed query skips the
// events before its window (the prefix is checked on the other core).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/store/trace_store.h"
#include "tests/support/scripted_trace.h"

namespace heapql {
namespace {

// Two buckets; four blocks allocated at 0, 1, 3, 5 ms, frees between them.
struct CraftedColumns {
  std::vector<std::uint32_t> bucket = {0, 1, 0, 1};
  std::vector<std::uint32_t> alloc_seq = {0, 1, 3, 5};
  std::vector<std::uint32_t> free_order = {0, 1, 2};  // events 2, 4, 6
  std::vector<TimeChange> time_changes = {{1, 0, 1'000'000}, {2, 0, 2'000'000}, {3, 0, 3'000'000},
                                          {4, 0, 4'000'000}, {5, 0, 5'000'000}, {6, 0, 6'000'000}};

  TraceStore store() const {
    TraceTables tables;
    const StringId module = tables.intern_string("app");
    const FrameId frame = tables.intern_frame(module, tables.intern_string("f"), 0x10);
    const StackId stack = tables.intern_stack(frame, StackId());
    for (const std::uint64_t size : {16, 32}) {
      Bucket bucket;
      bucket.size = size;
      bucket.stack = stack;
      tables.intern_bucket(bucket);
    }
    StoreColumns c;
    c.bucket = pack_values(bucket, 0, packed_[0]);
    c.alloc_seq = pack_values(alloc_seq, 0, packed_[1]);
    c.free_order = pack_values(free_order, StoreColumns::kFreeRotation, packed_[2]);
    c.time_changes = time_changes;
    c.event_count = bucket.size() + free_order.size();
    c.end_ns = 6'000'000;
    return TraceStore(std::move(tables), SourceInfo{}, c, nullptr);
  }
  mutable std::vector<std::uint64_t> packed_[3];  // the store's columns, viewed by it
};

Query window_query(std::int64_t begin_ms) {
  Query q;
  q.window.begin_ns = begin_ms * 1'000'000;
  q.window.end_ns = 10'000'000;
  q.impacting = {Impacting::kAifo, Impacting::kAofi};
  q.by = {GroupBy::kImpacting};
  q.default_cull = false;
  return q;
}

std::string replay_error(const CraftedColumns& columns, std::int64_t begin_ms) {
  const TraceStore store = columns.store();
  Aggregator aggregator(store.tables(), window_query(begin_ms));
  try {
    store.replay(aggregator, 10'000'000);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(StoreReplay, ConsistentColumnsReplayWithAndWithoutASkippedPrefix) {
  const CraftedColumns columns;
  for (const std::int64_t begin_ms : {0, 2, 4, 7}) EXPECT_EQ(replay_error(columns, begin_ms), "") << begin_ms;
}

TEST(StoreReplay, AFreeOfABlockNotYetAllocatedIsRefusedInTheSkippedPrefix) {
  CraftedColumns columns;
  columns.free_order[0] = 3;  // block 3 is allocated at event 5
  EXPECT_NE(replay_error(columns, 4).find("a free of a block not yet allocated"), std::string::npos);
  EXPECT_NE(replay_error(columns, 0).find("a free of a block not yet allocated"), std::string::npos);
}

TEST(StoreReplay, ABlockFreedTwiceIsRefusedInTheSkippedPrefix) {
  CraftedColumns columns;
  columns.free_order[1] = 0;
  EXPECT_NE(replay_error(columns, 5).find("a block freed twice"), std::string::npos);
  EXPECT_NE(replay_error(columns, 0).find("a block freed twice"), std::string::npos);
}

TEST(StoreReplay, ABucketOutsideTheTableIsRefusedInTheSkippedPrefix) {
  CraftedColumns columns;
  columns.bucket[1] = 7;
  EXPECT_NE(replay_error(columns, 4).find("not in the bucket table"), std::string::npos);
  EXPECT_NE(replay_error(columns, 0).find("not in the bucket table"), std::string::npos);
}

TEST(StoreReplay, AFreeIdOutsideTheColumnsIsRefused) {
  CraftedColumns columns;
  columns.free_order[0] = 0x7FFFFFFFu;
  EXPECT_NE(replay_error(columns, 4).find("not yet allocated"), std::string::npos);
  EXPECT_NE(replay_error(columns, 0).find("not yet allocated"), std::string::npos);
}

TEST(StoreReplay, AllocationSequenceNumbersOutOfOrderAreRefused) {
  CraftedColumns columns;
  columns.alloc_seq = {1, 0, 3, 5};
  EXPECT_NE(replay_error(columns, 4), "");
  EXPECT_NE(replay_error(columns, 0), "");
}

// A window with no event inside: the replay skips to its start and stops at
// once, yet the blocks alive then keep their allocation times (a lifetime
// filter reads them). ScriptedTrace::run fails on any path that differs.
TEST(StoreReplay, AQuietWindowKeepsTheAllocationTimesOfTheBlocksAliveInIt) {
  test::ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.at_ms(1);
  t.alloc(1, 10, s);
  t.at_ms(3);
  t.alloc(2, 20, s);
  t.at_ms(4);
  t.free(1);
  t.at_ms(9);
  t.free(2);
  Query q;
  q.window.begin_ns = 5'000'000;
  q.window.end_ns = 8'000'000;
  q.impacting = {Impacting::kAofo};
  q.lifetime_min_ns = 4'500'000;  // block 2 lived 5 ms until T2; block 1 was gone
  q.by = {GroupBy::kImpacting};
  q.default_cull = false;
  const Result r = t.run(q);
  EXPECT_EQ(r.totals.size, 20u);
  q.lifetime_min_ns = 5'500'000;
  EXPECT_EQ(t.run(q).totals.size, 0u);
}

}  // namespace
}  // namespace heapql
