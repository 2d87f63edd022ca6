// semantics.md §7 (impacting types) and §8 (over time, peak, temporary, leaked).
#include <gtest/gtest.h>

#include "engine/error.h"
#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

// Four blocks, one of each type for the window [10 ms, 20 ms).
ScriptedTrace four_types() {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.at_ms(0);
  t.alloc(1, 1, s);     // AOFO: before, never freed
  t.alloc(2, 10, s);    // AOFI: before, freed inside
  t.alloc(3, 1000, s);  // before, freed before: not in WPA's set
  t.at_ms(5);
  t.free(3);
  t.at_ms(10);
  t.free(2);            // freed at T1 exactly: inside
  t.alloc(4, 100, s);   // AIFI
  t.at_ms(12);
  t.alloc(5, 10000, s); // AIFO
  t.at_ms(15);
  t.free(4);
  t.at_ms(25);
  t.alloc(6, 7, s);     // after the window: not in any set
  return t;
}

Query impacting_query() {
  Query q;
  q.window.begin_ns = 10'000'000;
  q.window.end_ns = 20'000'000;
  q.by = {GroupBy::kImpacting};
  q.default_cull = false;
  return q;
}

TEST(Semantics7Impacting, EveryBlockAliveInTheWindowHasOneType) {
  ScriptedTrace t = four_types();
  const Result r = t.run(impacting_query());
  ASSERT_EQ(r.rows.size(), 4u);
  EXPECT_EQ(find_row(r, {"AOFO"})->measures.size, 1u);
  EXPECT_EQ(find_row(r, {"AOFI"})->measures.size, 10u);
  EXPECT_EQ(find_row(r, {"AIFI"})->measures.size, 100u);
  EXPECT_EQ(find_row(r, {"AIFO"})->measures.size, 10000u);
  EXPECT_EQ(r.totals.count, 4u);
}

TEST(Semantics7Impacting, ImpactingSizeIsAifoMinusAofi) {
  ScriptedTrace t = four_types();
  const Result r = t.run(impacting_query());
  EXPECT_EQ(r.totals.impacting, 10000 - 10);
  EXPECT_EQ(find_row(r, {"AOFI"})->measures.impacting, -10);
  EXPECT_EQ(find_row(r, {"AIFI"})->measures.impacting, 0);
  EXPECT_EQ(find_row(r, {"AOFO"})->measures.impacting, 0);
}

TEST(Semantics7Impacting, TheFiveXperfMeasuresStillCountOnlyBlocksAllocatedInside) {
  ScriptedTrace t = four_types();
  const Result r = t.run(impacting_query());
  EXPECT_EQ(r.totals.stc, 2u);
  EXPECT_EQ(r.totals.st, 10100u);
  EXPECT_EQ(r.totals.so, 10000u);
  EXPECT_EQ(find_row(r, {"AOFO"})->measures.stc, 0u);
}

// Rows are a key and a type: when only the AIFO row of a stack is shown, the
// stack's blocks of the other types go to [other], not to that row (the
// rows of a key are numbered one after another, below and above it).
TEST(Semantics7Impacting, ARowShownMeasuresOnlyItsOwnTypeOfItsKey) {
  ScriptedTrace t = four_types();
  Query q = impacting_query();
  q.by = {GroupBy::kImpacting, GroupBy::kStack};
  q.top = 1;
  const Result r = t.run(q);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].key[0].text, "AIFO");
  EXPECT_EQ(r.rows[0].measures.size, 10000u);
  EXPECT_EQ(r.rows[0].measures.count, 1u);
  ASSERT_TRUE(r.other.has_value());
  EXPECT_EQ(r.other->size, 111u);
  EXPECT_EQ(r.other->count, 3u);
  EXPECT_EQ(r.other_rows, 3u);
}

TEST(Semantics7Impacting, AnImpactingFilterKeepsOnlyThoseTypes) {
  ScriptedTrace t = four_types();
  Query q = impacting_query();
  q.by = {GroupBy::kStack};
  q.impacting = {Impacting::kAifo, Impacting::kAofi};
  const Result r = t.run(q);
  EXPECT_EQ(r.totals.count, 2u);
  EXPECT_EQ(r.totals.impacting, 9990);
}

TEST(Semantics7Impacting, APlainQueryNeverSeesBlocksAllocatedBeforeTheWindow) {
  ScriptedTrace t = four_types();
  Query q = impacting_query();
  q.by = {GroupBy::kStack};
  const Result r = t.run(q);
  EXPECT_FALSE(r.impacting_measures);
  EXPECT_EQ(r.totals.blocks, 2u);
}

TEST(Semantics7Impacting, ImpactingSizeIsTheGrowthOfOutstandingSizeAcrossTheWindow) {
  ScriptedTrace t = four_types();
  // outstanding at T1 (just before): blocks 1, 2 = 11; at T2: blocks 1, 5 = 10001
  EXPECT_EQ(t.run(impacting_query()).totals.impacting, 10001 - 11);
}

// Sorted by impacting, rows rank by the magnitude of their signed sum: a
// stack that grew in one bucket and shrank in another ranks by the net
// change, not by the sum of its buckets' changes (§7; docs/queries.md).
ScriptedTrace changes_in_both_directions() {
  ScriptedTrace t;
  const StackId mixed = t.stack({"app!mixed"});
  const StackId grew = t.stack({"app!grew"});
  const StackId small = t.stack({"app!small"});
  const StackId even = t.stack({"app!even"});
  t.at_ms(0);
  t.alloc(1, 120, mixed);  // AOFI: -120
  t.alloc(2, 40, even);    // AOFI: -40
  t.at_ms(10);
  t.free(1);
  t.free(2);
  t.alloc(3, 100, mixed);  // AIFO, another bucket of the same stack: +100
  t.alloc(4, 150, grew);   // AIFO: +150
  t.alloc(5, 50, small);   // AIFO: +50
  t.alloc(6, 40, even);    // AIFO: +40, cancelling the AOFI
  return t;
}

Query by_impacting_size(std::uint64_t top) {
  Query q;
  q.window.begin_ns = 5'000'000;
  q.impacting = {Impacting::kAifo, Impacting::kAofi};
  q.by = {GroupBy::kStack};
  q.sort = Measure::kImpacting;
  q.top = top;
  q.default_cull = false;
  return q;
}

TEST(Semantics7Impacting, SortedByImpactingTheNetChangeRanksEitherWay) {
  ScriptedTrace t = changes_in_both_directions();
  const Result r = t.run(by_impacting_size(10));
  ASSERT_EQ(r.rows.size(), 4u);
  // grew +150, small +50, mixed 100 - 120 = -20, even 0; by so it would be
  // grew, mixed, small, even, and by the buckets' magnitudes mixed first.
  EXPECT_EQ(frames(r.rows[0]), std::vector<std::string>{"app!grew"});
  EXPECT_EQ(frames(r.rows[1]), std::vector<std::string>{"app!small"});
  EXPECT_EQ(frames(r.rows[2]), std::vector<std::string>{"app!mixed"});
  EXPECT_EQ(r.rows[2].measures.impacting, -20);
  EXPECT_EQ(frames(r.rows[3]), std::vector<std::string>{"app!even"});
  EXPECT_EQ(r.rows[3].measures.impacting, 0);
}

TEST(Semantics7Impacting, SortedByImpactingTheRestIsOtherWithItsSignedSum) {
  ScriptedTrace t = changes_in_both_directions();
  const Result r = t.run(by_impacting_size(2));
  ASSERT_EQ(r.rows.size(), 2u);
  ASSERT_TRUE(r.other.has_value());
  EXPECT_EQ(r.other_rows, 2u);
  EXPECT_EQ(r.other->impacting, -20);
  EXPECT_EQ(r.other->so, 140u);  // mixed's 100 and even's 40 (AIFO)
  EXPECT_EQ(r.totals.impacting, 150 + 50 - 20);
}

TEST(Semantics7Impacting, SortingByImpactingNeedsImpactingTypes) {
  ScriptedTrace t = changes_in_both_directions();
  Query q = by_impacting_size(10);
  q.impacting.clear();
  try {
    t.run(q);
    FAIL() << "a query with no impacting types was sorted by impacting";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--sort impacting"), std::string::npos) << e.what();
  }
  q.by = {GroupBy::kImpacting, GroupBy::kStack};  // grouped by type: it has one
  EXPECT_NO_THROW(t.run(q));
}

TEST(Semantics8OverTime, SeriesKeepsTheMaximumOfEachBucket) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.at_ms(0);
  t.alloc(1, 100, s);
  t.at_ms(3);
  t.alloc(2, 1000, s);  // a 1 ms spike inside bucket [0, 5)
  t.at_ms(4);
  t.free(2);
  t.at_ms(7);
  t.alloc(3, 10, s);
  t.at_ms(19);
  Query q;
  q.window.end_ns = 20'000'000;
  q.series_buckets = 4;
  q.default_cull = false;
  const Result r = t.run(q);
  ASSERT_TRUE(r.series.has_value());
  EXPECT_EQ(r.series->bucket_ns, 5'000'000);
  EXPECT_EQ(r.series->max_bytes, (std::vector<std::uint64_t>{1100, 110, 110, 110}));
}

TEST(Semantics8OverTime, OpenWindowSeriesHalvesItsResolutionExactly) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  for (int ms = 0; ms < 100; ++ms) {
    t.at_ms(ms);
    t.alloc(1000 + ms, ms == 42 ? 5000 : 1, s);
    if (ms == 42) {
      t.at_ms(ms);
      t.free(1000 + ms);
    }
  }
  Query q;
  q.series_buckets = 8;
  q.default_cull = false;
  const Result r = t.run(q);
  ASSERT_TRUE(r.series.has_value());
  EXPECT_LE(r.series->max_bytes.size(), 8u);
  EXPECT_EQ(r.series->bucket_ns % 1'000'000, 0);
  const auto spike = static_cast<std::size_t>(42'000'000 / r.series->bucket_ns);
  EXPECT_GE(r.series->max_bytes[spike], 5000u);
}

TEST(Semantics8Peak, ThePeakIsTheFirstInstantOfTheLargestOutstandingSize) {
  ScriptedTrace t;
  const StackId a = t.stack({"app!a"});
  const StackId b = t.stack({"app!b"});
  t.at_ms(0);
  t.alloc(1, 50, a);
  t.at_ms(10);
  t.alloc(2, 50, b);  // 100: the peak, first reached here
  t.at_ms(20);
  t.free(2);
  t.at_ms(30);
  t.alloc(3, 50, b);  // 100 again: not the first
  t.at_ms(40);
  t.free(1);
  Query q;
  q.default_cull = false;
  const Result r = t.run(q);
  EXPECT_EQ(r.peak.bytes, 100u);
  EXPECT_EQ(r.peak.blocks, 2u);
  EXPECT_EQ(r.peak.time_ns, 10'000'000);
}

// The window's start counts as a moment of the window, also when the window
// starts after the trace's last event: its peak is what was outstanding then.
TEST(Semantics8Peak, AWindowAfterTheTraceEndsPeaksAtItsStartWithWhatIsOutstanding) {
  ScriptedTrace t;
  const StackId a = t.stack({"app!a"});
  t.at_ms(0);
  t.alloc(1, 50, a);
  t.alloc(2, 70, a);
  t.at_ms(10);
  t.free(2);
  Query q;
  q.default_cull = false;
  q.window = TimeWindow{100'000'000, 200'000'000};
  const Result r = t.run(q);
  EXPECT_EQ(r.peak.bytes, 50u);
  EXPECT_EQ(r.peak.blocks, 1u);
  EXPECT_EQ(r.peak.time_ns, 100'000'000);
  EXPECT_EQ(r.totals.stc, 0u);  // nothing was allocated in the window
}

// An empty window [T1, T1) has its start alone: its peak is the level at T1
// (not "0 bytes at 0s"), and its peak consumers are the blocks alive at T1.
TEST(Semantics8Peak, AnEmptyWindowPeaksAtItsStartWithWhatIsOutstanding) {
  ScriptedTrace t;
  const StackId a = t.stack({"app!a"});
  const StackId b = t.stack({"app!b"});
  t.at_ms(0);
  t.alloc(1, 50, a);
  t.alloc(2, 70, b);
  t.at_ms(10);
  t.free(2);
  t.alloc(3, 5, b);  // at T1: after the moment
  t.at_ms(20);
  t.alloc(4, 500, a);
  Query q;
  q.default_cull = false;
  q.window = TimeWindow{10'000'000, 10'000'000};
  q.series_buckets = 4;
  Result r = t.run(q);
  EXPECT_EQ(r.peak.bytes, 120u);
  EXPECT_EQ(r.peak.blocks, 2u);
  EXPECT_EQ(r.peak.time_ns, 10'000'000);
  EXPECT_EQ(r.totals.stc, 0u);
  ASSERT_TRUE(r.series.has_value());
  EXPECT_TRUE(r.series->max_bytes.empty()) << "no time to sample";

  q.block_set = BlockSet::kAtPeak;
  q.by = {GroupBy::kStack};
  r = t.run(q);
  EXPECT_EQ(r.totals.so, 120u);
  EXPECT_EQ(find_row(r, {"app!a"})->measures.so, 50u);
  EXPECT_EQ(find_row(r, {"app!b"})->measures.so, 70u);
}

TEST(Semantics8Peak, PeakConsumersAreTheBlocksAliveAtThePeakGroupedAsUsual) {
  ScriptedTrace t;
  const StackId a = t.stack({"app!a"});
  const StackId b = t.stack({"app!b"});
  t.at_ms(0);
  t.alloc(1, 30, a);
  t.alloc(2, 30, a);
  t.at_ms(10);
  t.alloc(3, 50, b);  // peak 110 here
  t.at_ms(20);
  t.free(1);          // changes after the peak must not show
  t.free(3);
  t.alloc(4, 5, b);
  Query q;
  q.by = {GroupBy::kStack};
  q.block_set = BlockSet::kAtPeak;
  q.default_cull = false;
  const Result r = t.run(q);
  EXPECT_EQ(r.totals.so, 110u);
  EXPECT_EQ(find_row(r, {"app!a"})->measures.soc, 2u);
  EXPECT_EQ(find_row(r, {"app!b"})->measures.so, 50u);
}

TEST(Semantics8Peak, BlocksAliveAtThePeakHaveNoFutureToFilterOn) {
  Query q;
  q.block_set = BlockSet::kAtPeak;
  q.temporary_only = true;
  EXPECT_THROW(validate(q), Error);
  q.temporary_only = false;
  q.impacting = {Impacting::kAifo};
  EXPECT_THROW(validate(q), Error);
  q.impacting.clear();
  q.by = {GroupBy::kImpacting};
  EXPECT_THROW(validate(q), Error);
  q.by.clear();
  q.lifetime_min_ns = 1;
  EXPECT_THROW(validate(q), Error);
}

TEST(Semantics8Peak, APeakInsideAWindowLooksOnlyAtInstantsInIt) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.at_ms(0);
  t.alloc(1, 1000, s);
  t.at_ms(5);
  t.free(1);
  t.alloc(2, 10, s);
  t.at_ms(15);
  t.alloc(3, 20, s);
  Query q;
  q.window.begin_ns = 10'000'000;
  q.default_cull = false;
  const Result r = t.run(q);
  EXPECT_EQ(r.peak.bytes, 30u);
  EXPECT_EQ(r.peak.time_ns, 15'000'000);
}

TEST(Semantics8Temporary, AFreeThatIsTheVeryNextEventOfItsThread) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.alloc(1, 1, s);
  t.free(1);  // temporary
  t.alloc(2, 1, s);
  t.alloc(3, 1, s);
  t.free(2);  // not: 3 came between
  BlockSpec other_thread{1, s};
  other_thread.thread = 9;
  t.alloc(4, 1, s);
  t.alloc(5, other_thread);
  t.free(4);  // still temporary: the event between was another thread's
  Query q;
  q.default_cull = false;
  EXPECT_EQ(t.run(q).temporary_blocks, 2u);
  q.temporary_only = true;
  q.by = {GroupBy::kStack};
  EXPECT_EQ(t.run(q).totals.stc, 2u);
}

TEST(Semantics8Temporary, BucketLifoFreesAreTemporaryRightAfterAnAllocationInTheirBucket) {
  ScriptedTrace t(BlockIdentity::kBucketLifo);
  const StackId s = t.stack({"app!f"});
  t.alloc(1, 8, s);
  t.free_bucket(8, s);  // temporary
  t.alloc(2, 8, s);
  t.alloc(3, 16, s);
  t.free_bucket(8, s);   // not: the event between allocated in another bucket
  t.free_bucket(16, s);  // not: the event before it was a free
  t.alloc(4, 8, s);
  t.at_ms(1);
  t.free_bucket(8, s);  // temporary: a clock tick is no event
  t.alloc(5, 8, s);
  Query q;
  q.default_cull = false;
  EXPECT_EQ(t.run(q).temporary_blocks, 2u);
  q.temporary_only = true;
  q.by = {GroupBy::kStack};
  const Result r = t.run(q);
  EXPECT_EQ(r.totals.stc, 2u);
  EXPECT_EQ(r.totals.st, 16u);
}

TEST(Semantics8Leaked, LeakedIsOutstandingForTheWholeTrace) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.alloc(1, 5, s);
  t.alloc(2, 7, s);
  t.free(1);
  Query q;
  q.default_cull = false;
  const Result r = t.run(q);
  EXPECT_EQ(r.totals.so, 7u);
  EXPECT_EQ(r.totals.soc, 1u);
}

}  // namespace
}  // namespace heapql::test
