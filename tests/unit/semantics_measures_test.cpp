// semantics.md §1 (the data model), §2 (the window) and §3 (the five measures).
#include <gtest/gtest.h>

#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

Query by_stack() {
  Query q;
  q.by = {GroupBy::kStack};
  q.default_cull = false;
  return q;
}

Query window(std::int64_t t1_ms, std::optional<std::int64_t> t2_ms) {
  Query q = by_stack();
  q.window.begin_ns = t1_ms * 1'000'000;
  if (t2_ms) q.window.end_ns = *t2_ms * 1'000'000;
  return q;
}

TEST(Semantics1DataModel, ReallocEndsTheOldBlockAndStartsARealloccedOne) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!grow", "app!main"});
  t.at_ms(0);
  t.alloc(0x10, 16, s);
  t.at_ms(5);
  t.free(0x10);
  BlockSpec grown{4096, s, /*is_realloc=*/true};
  t.alloc(0x10, grown);  // a realloc in place: same address
  const Result r = t.run(by_stack());
  EXPECT_EQ(r.totals.stc, 2u);
  EXPECT_EQ(r.totals.st, 16u + 4096u);
  EXPECT_EQ(r.totals.src, 1u);
  EXPECT_EQ(r.totals.so, 4096u);
  EXPECT_EQ(r.totals.soc, 1u);
  EXPECT_TRUE(r.realloc_known);
}

TEST(Semantics1DataModel, SrcIsUnavailableWhereTheSourceDoesNotMarkReallocs) {
  ScriptedTrace t;
  t.source().realloc_marked = false;
  t.alloc(1, 8, t.stack({"app!f"}));
  EXPECT_FALSE(t.run(by_stack()).realloc_known);
}

TEST(Semantics1DataModel, AnAllocationOverALiveAddressEndsTheEarlierBlockThere) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.at_ms(0);
  t.alloc(0x10, 100, s);
  t.at_ms(10);
  t.alloc(0x10, 7, s);  // the free of the first was lost
  const Result r = t.run(window(0, 10));
  // The first block ended at 10 ms = T2: it is still outstanding for [0, 10).
  EXPECT_EQ(r.totals.stc, 1u);
  EXPECT_EQ(r.totals.so, 100u);
  const Result whole = t.run(by_stack());
  EXPECT_EQ(whole.totals.so, 7u);
  EXPECT_EQ(whole.totals.stc, 2u);
}

TEST(Semantics1DataModel, UnmatchedFreesAreCountedNotFatal) {
  ScriptedTrace t;
  std::vector<std::string> seen;
  struct Counter : EventConsumer {
    void on_alloc(const LiveBlock&) override {}
    void on_free(const LiveBlock&, std::uint64_t, std::int64_t, bool) override {}
    void on_still_alive(const LiveBlock&) override {}
    void on_finish(std::int64_t) override {}
  } sink;
  BlockMatcher m(BlockIdentity::kExact, sink);
  EXPECT_FALSE(m.free_address(0x99));
  EXPECT_FALSE(m.free_address(0x99));
  EXPECT_EQ(m.anomalies().unmatched_frees, 2u);
  m.alloc(BucketId(0), 0x1);
  m.alloc(BucketId(0), 0x1);
  EXPECT_EQ(m.anomalies().alloc_over_live, 1u);
}

TEST(Semantics1DataModel, BucketLifoPairsAFreeWithTheMostRecentLiveBlockOfItsBucket) {
  ScriptedTrace t(BlockIdentity::kBucketLifo);
  const StackId s = t.stack({"app!f"});
  t.at_ms(0);
  t.alloc(0, 8, s);  // A, allocated before the window
  t.at_ms(20);
  t.alloc(0, 8, s);  // B, inside the window [10, 30)
  t.at_ms(25);
  t.free_bucket(8, s);  // LIFO: ends B, not A
  const Result r = t.run(window(10, 30));
  EXPECT_EQ(r.totals.stc, 1u);
  EXPECT_EQ(r.totals.soc, 0u);  // B came and went in the window
  const Result whole = t.run(by_stack());
  EXPECT_EQ(whole.totals.soc, 1u);  // per-bucket live counts are exact whatever the pairing
}

TEST(Semantics1DataModel, FramesRenderModuleSymbolOrLowercaseHexOffset) {
  ScriptedTrace t;
  t.alloc(1, 8, t.stack({"libfoo.so!0x1a2b", "?!0xdeadbeef", "app!main"}));
  const Result r = t.run(by_stack());
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(frames(r.rows[0]), (std::vector<std::string>{"libfoo.so!0x1a2b", "?!0xdeadbeef", "app!main"}));
}

TEST(Semantics2Window, HalfOpenWindowCountsAllocationsAtT1ButNotAtT2) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.at_ms(9);
  t.alloc(1, 1, s);
  t.at_ms(10);
  t.alloc(2, 10, s);  // at T1: inside
  t.at_ms(19);
  t.alloc(3, 100, s);
  t.at_ms(20);
  t.alloc(4, 1000, s);  // at T2: outside
  const Result r = t.run(window(10, 20));
  EXPECT_EQ(r.totals.stc, 2u);
  EXPECT_EQ(r.totals.st, 110u);
}

TEST(Semantics2Window, FreedAtOrAfterT2IsOutstandingFreedBeforeIsNot) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.at_ms(10);
  t.alloc(1, 1, s);
  t.alloc(2, 10, s);
  t.alloc(3, 100, s);
  t.at_ms(19);
  t.free(1);  // inside: not outstanding
  t.at_ms(20);
  t.free(2);  // at T2: outstanding for [10, 20)
  const Result r = t.run(window(10, 20));
  EXPECT_EQ(r.totals.so, 110u);
  EXPECT_EQ(r.totals.soc, 2u);
  EXPECT_EQ(r.totals.stc, 3u);
}

TEST(Semantics2Window, TheDefaultWindowIncludesEventsAtTheLastTimestamp) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.at_ms(0);
  t.alloc(1, 1, s);
  t.at_ms(50);
  t.alloc(2, 2, s);
  t.free(1);
  const Result r = t.run(by_stack());
  EXPECT_EQ(r.totals.stc, 2u);
  EXPECT_EQ(r.totals.so, 2u);
  const Result open = t.run(window(50, std::nullopt));  // "50ms.." means the same T2
  EXPECT_EQ(open.totals.stc, 1u);
  EXPECT_EQ(open.totals.so, 2u);
}

TEST(Semantics3Measures, AllFiveMeasuresPerRow) {
  ScriptedTrace t;
  const StackId a = t.stack({"app!a", "app!main"});
  const StackId b = t.stack({"app!b", "app!main"});
  t.alloc(1, 10, a);
  t.alloc(2, 20, a);
  t.alloc(3, 5, b);
  t.free(1);
  t.free(2);
  BlockSpec re{7, b, true};
  t.alloc(4, re);
  const Result r = t.run(by_stack());
  const Row* ra = find_row(r, {"app!a"});
  const Row* rb = find_row(r, {"app!b"});
  ASSERT_TRUE(ra && rb);
  EXPECT_EQ(ra->measures.so, 0u);
  EXPECT_EQ(ra->measures.soc, 0u);
  EXPECT_EQ(ra->measures.st, 30u);
  EXPECT_EQ(ra->measures.stc, 2u);
  EXPECT_EQ(ra->measures.src, 0u);
  EXPECT_EQ(rb->measures.so, 12u);
  EXPECT_EQ(rb->measures.soc, 2u);
  EXPECT_EQ(rb->measures.st, 12u);
  EXPECT_EQ(rb->measures.stc, 2u);
  EXPECT_EQ(rb->measures.src, 1u);
}

TEST(Semantics3Measures, SortIsDescendingWithTiesBrokenByKeyAndPrefixesFirst) {
  ScriptedTrace t;
  const StackId longer = t.stack({"app!b", "app!z"});
  const StackId prefix = t.stack({"app!b"});
  const StackId other = t.stack({"app!a", "app!z"});
  const StackId big = t.stack({"app!c"});
  t.alloc(1, 5, longer);
  t.alloc(2, 5, prefix);
  t.alloc(3, 5, other);
  t.alloc(4, 9, big);
  Query q = by_stack();
  const Result r = t.run(q);
  ASSERT_EQ(r.rows.size(), 4u);
  EXPECT_EQ(frames(r.rows[0]), (std::vector<std::string>{"app!c"}));
  EXPECT_EQ(frames(r.rows[1]), (std::vector<std::string>{"app!a", "app!z"}));
  EXPECT_EQ(frames(r.rows[2]), (std::vector<std::string>{"app!b"}));
  EXPECT_EQ(frames(r.rows[3]), (std::vector<std::string>{"app!b", "app!z"}));
  q.sort = Measure::kStc;  // all counts tie: order is by key alone
  const Result by_count = t.run(q);
  EXPECT_EQ(frames(by_count.rows[0]), (std::vector<std::string>{"app!a", "app!z"}));
}

TEST(Semantics3Measures, StringsCompareByTheirUtf8Bytes) {
  ScriptedTrace t;
  t.alloc(1, 1, t.stack({"app!\xc3\xa9t\xc3\xa9"}));  // é sorts after every ASCII letter
  t.alloc(2, 1, t.stack({"app!zeta"}));
  const Result r = t.run(by_stack());
  EXPECT_EQ(frames(r.rows[0]).front(), "app!zeta");
}

}  // namespace
}  // namespace heapql::test
