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

// Which blocks a replay reports still alive, asking for those allocated
// from `from_ns` on.
class StillAliveRecorder final : public EventConsumer {
 public:
  explicit StillAliveRecorder(std::int64_t from_ns) : from_ns_(from_ns) {}
  void on_alloc(const LiveBlock&) override {}
  void on_free(const LiveBlock&, std::uint64_t, std::int64_t, bool) override {}
  void on_still_alive(const LiveBlock& block) override { alive.push_back(block.id.value); }
  void on_finish(std::int64_t) override {}
  std::int64_t still_alive_wanted_from_ns() const override { return from_ns_; }
  std::vector<std::uint32_t> alive;

 private:
  std::int64_t from_ns_;
};

// 130 blocks, block i allocated at event i and i ms (three words of the
// replay's freed bits), blocks 5 and 70 freed after them all.
struct ManyBlocks {
  CraftedColumns columns;
  ManyBlocks() {
    columns.bucket.clear();
    columns.alloc_seq.clear();
    columns.time_changes.clear();
    for (std::uint32_t i = 0; i < 130; ++i) {
      columns.bucket.push_back(i % 2);
      columns.alloc_seq.push_back(i);
      columns.time_changes.push_back(TimeChange{i, 0, std::int64_t{i} * 1'000'000});
    }
    columns.free_order = {5, 70};
  }
  std::vector<std::uint32_t> alive_from(std::int64_t from_ns) const {
    const TraceStore store = columns.store();
    StillAliveRecorder recorder(from_ns);
    store.replay(recorder, kNeverNs);
    return recorder.alive;
  }
};

std::vector<std::uint32_t> blocks_from(std::uint32_t first) {
  std::vector<std::uint32_t> blocks;
  for (std::uint32_t i = first; i < 130; ++i) {
    if (i != 5 && i != 70) blocks.push_back(i);
  }
  return blocks;
}

TEST(StoreReplay, StillAliveBlocksComeFromTheTimeTheConsumerWantsThemOn) {
  const ManyBlocks trace;
  EXPECT_EQ(trace.alive_from(0), blocks_from(0));
  EXPECT_EQ(trace.alive_from(3'000'000), blocks_from(3));
  EXPECT_EQ(trace.alive_from(64'000'000), blocks_from(64));  // a word's first bit
  EXPECT_EQ(trace.alive_from(66'500'000), blocks_from(67));  // between two allocations
  EXPECT_EQ(trace.alive_from(129'000'000), blocks_from(129));
  EXPECT_EQ(trace.alive_from(kNeverNs), std::vector<std::uint32_t>{});
}

// The aggregator wants the blocks alive at the end of a window's replay
// from T1 on unless a block allocated before T1 and outstanding at T2
// (AOFO) may count in its answer; none for the blocks at the peak.
TEST(StoreReplay, AWindowsQueryWantsTheBlocksStillAliveFromItsStartUnlessAofoCounts) {
  const CraftedColumns columns;
  const TraceStore store = columns.store();
  const auto wanted_from = [&](const Query& q) { return Aggregator(store.tables(), q).still_alive_wanted_from_ns(); };
  Query q = window_query(2);
  EXPECT_EQ(wanted_from(q), 2'000'000);  // AIFO, AOFI
  q.impacting = {Impacting::kAofo};
  EXPECT_EQ(wanted_from(q), 0);
  q.impacting.clear();
  EXPECT_EQ(wanted_from(q), 0);  // every type
  q.impacting = {Impacting::kAofo};
  q.temporary_only = true;  // an outstanding block is never temporary
  EXPECT_EQ(wanted_from(q), 2'000'000);
  Query plain;
  plain.window.begin_ns = 3'000'000;
  plain.by = {GroupBy::kStack};
  EXPECT_EQ(wanted_from(plain), 3'000'000);  // not WPA's set: a block from before T1 is in none
  plain.window.begin_ns = 0;
  EXPECT_EQ(wanted_from(plain), 0);
  plain.block_set = BlockSet::kAtPeak;
  EXPECT_EQ(wanted_from(plain), kNeverNs);
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
