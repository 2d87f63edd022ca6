// semantics.md §4 (filters), §5 (frame patterns, as queries use them) and
// §6 (culling, grouping, top N, totals).
#include <gtest/gtest.h>

#include "tests/support/scripted_trace.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

Query by(std::vector<GroupBy> levels) {
  Query q;
  q.by = std::move(levels);
  q.default_cull = false;
  return q;
}

TEST(Semantics4Filters, SizeRangeIsHalfOpen) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  for (std::uint64_t size : {9, 10, 11, 19, 20}) t.alloc(size, size, s);
  Query q = by({GroupBy::kStack});
  q.size_min = 10;
  q.size_end = 20;
  const Result r = t.run(q);
  EXPECT_EQ(r.totals.stc, 3u);
  EXPECT_EQ(r.totals.st, 10u + 11u + 19u);
  EXPECT_EQ(r.excluded_blocks, 2u);
  EXPECT_EQ(r.excluded_bytes, 29u);
}

TEST(Semantics4Filters, LifetimeOfFreedAndOfOutstandingBlocks) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.at_ms(0);
  t.alloc(1, 1, s);    // freed at 5: lifetime 5 ms
  t.alloc(2, 10, s);   // freed at 50 > T2=30: lifetime T2 - 0 = 30 ms
  t.at_ms(5);
  t.free(1);
  t.at_ms(20);
  t.alloc(3, 100, s);  // never freed: lifetime T2 - 20 = 10 ms
  t.at_ms(50);
  t.free(2);
  Query q = by({GroupBy::kStack});
  q.window.end_ns = 30'000'000;
  q.lifetime_min_ns = 10'000'000;
  q.lifetime_end_ns = 30'000'000;
  EXPECT_EQ(t.run(q).totals.st, 100u);  // 10 ms in [10, 30); 30 ms is not
  q.lifetime_end_ns.reset();
  EXPECT_EQ(t.run(q).totals.st, 110u);
  q.lifetime_min_ns = 0;
  q.lifetime_end_ns = 10'000'000;
  EXPECT_EQ(t.run(q).totals.st, 1u);
}

TEST(Semantics4Filters, WithAnOpenWindowOutstandingBlocksLiveForEver) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.at_ms(0);
  t.alloc(1, 1, s);
  t.at_ms(1);
  Query q = by({GroupBy::kStack});
  q.lifetime_min_ns = 3'600'000'000'000;  // an hour: a leak qualifies
  EXPECT_EQ(t.run(q).totals.stc, 1u);
  q.lifetime_min_ns.reset();
  q.lifetime_end_ns = 3'600'000'000'000;
  EXPECT_EQ(t.run(q).totals.stc, 0u);
}

TEST(Semantics4Filters, ProcessMatchesByPidOrNameCaseInsensitively) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  BlockSpec a{8, s};
  a.pid = 100;
  a.process = "MemoryTestApp.exe";
  BlockSpec b{16, s};
  b.pid = 200;
  b.process = "other.exe";
  t.alloc(1, a);
  t.alloc(2, b);
  Query q = by({GroupBy::kProcess});
  q.processes = {"memorytestapp.EXE"};
  EXPECT_EQ(t.run(q).totals.st, 8u);
  q.processes = {"200"};
  const Result r = t.run(q);
  EXPECT_EQ(r.totals.st, 16u);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].key[0].text, "other.exe (200)");
}

TEST(Semantics4Filters, HeapKindAndThreadAreEqualityOrSets) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  BlockSpec h1{1, s};
  h1.heap = 0x10;
  h1.thread = 7;
  BlockSpec h2{2, s};
  h2.heap = 0x20;
  h2.thread = 8;
  BlockSpec v{4, s};
  v.kind = BlockKind::kVirtual;
  v.thread = 7;
  t.alloc(1, h1);
  t.alloc(2, h2);
  t.alloc(3, v);
  Query q = by({GroupBy::kHeap});
  q.heaps = {"0x10", "0x20"};
  EXPECT_EQ(t.run(q).totals.st, 3u);
  q.heaps.clear();
  q.kinds = {BlockKind::kVirtual};
  EXPECT_EQ(t.run(q).totals.st, 4u);
  q.kinds.clear();
  q.threads = {7};
  EXPECT_EQ(t.run(q).totals.st, 5u);
}

TEST(Semantics4Filters, RequireLooksAtTheFullStackBeforeCulling) {
  ScriptedTrace t;
  t.alloc(1, 1, t.stack({"libc.so.6!malloc", "app!leaky", "app!main"}));
  t.alloc(2, 2, t.stack({"libc.so.6!malloc", "app!fine", "app!main"}));
  Query q = by({GroupBy::kStack});
  q.default_cull = true;
  q.require = {"libc.so.6!malloc"};  // culled away in the key, still required
  EXPECT_EQ(t.run(q).totals.stc, 2u);
  q.require = {"LEAKY"};  // symbol form, case-insensitive, whole symbol
  EXPECT_EQ(t.run(q).totals.st, 1u);
  q.require = {"leak"};
  EXPECT_EQ(t.run(q).totals.stc, 0u);
  q.require = {"app!"};
  EXPECT_EQ(t.run(q).totals.stc, 2u);
  q.require = {"app!fi*", "nothing!here"};
  EXPECT_EQ(t.run(q).totals.st, 2u);
}

TEST(Semantics4Filters, AnEmptyStackNeverHasARequiredFrame) {
  ScriptedTrace t;
  t.alloc(1, 1, StackId());
  Query q = by({GroupBy::kStack});
  q.require = {"*"};
  EXPECT_EQ(t.run(q).totals.stc, 0u);
}

TEST(Semantics6Culling, TheLongestAllCulledPrefixIsRemoved) {
  ScriptedTrace t;
  t.alloc(1, 1, t.stack({"libc.so.6!malloc", "libstdc++.so.6!operator new(unsigned long)", "app!f", "app!main"}));
  Query q = by({GroupBy::kStack});
  q.default_cull = true;
  const Result r = t.run(q);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(frames(r.rows[0]), (std::vector<std::string>{"app!f", "app!main"}));
}

TEST(Semantics6Culling, OnlyAPrefixIsCulledNotFramesFurtherDown) {
  ScriptedTrace t;
  t.alloc(1, 1, t.stack({"app!f", "libc.so.6!malloc", "app!main"}));
  Query q = by({GroupBy::kStack});
  q.default_cull = true;
  EXPECT_EQ(frames(t.run(q).rows[0]), (std::vector<std::string>{"app!f", "libc.so.6!malloc", "app!main"}));
}

TEST(Semantics6Culling, AWhollyCulledStackKeepsItsBottomFrame) {
  ScriptedTrace t;
  t.alloc(1, 1, t.stack({"libc.so.6!malloc", "libc.so.6!calloc"}));
  Query q = by({GroupBy::kStack});
  q.default_cull = true;
  EXPECT_EQ(frames(t.run(q).rows[0]), (std::vector<std::string>{"libc.so.6!calloc"}));
}

TEST(Semantics6Culling, TheEmptyStackStaysEmptyAndHasNoFrameOrImage) {
  ScriptedTrace t;
  t.alloc(1, 1, StackId());
  const Result by_stack = t.run(by({GroupBy::kStack}));
  ASSERT_EQ(by_stack.rows.size(), 1u);
  EXPECT_TRUE(frames(by_stack.rows[0]).empty());
  EXPECT_EQ(t.run(by({GroupBy::kFrame})).rows[0].key[0].text, "[no stack]");
  EXPECT_EQ(t.run(by({GroupBy::kImage})).rows[0].key[0].text, "[no stack]");
}

TEST(Semantics6Culling, QueryPatternsAndCullListFilesAddToTheDefaults) {
  ScriptedTrace t;
  t.alloc(1, 1, t.stack({"libc.so.6!malloc", "mylib.so!MyAlloc", "mylib.so!Helper", "app!f"}));
  TempDir dir;
  write_file(dir.file("cull.txt"), "# my allocator wrappers\n\n  mylib.so!Helper  \n");
  Query q = by({GroupBy::kFrame});
  q.default_cull = true;
  q.cull = {"mylib.so!MyAlloc"};
  q.cull_files = {dir.file("cull.txt")};
  EXPECT_EQ(t.run(q).rows[0].key[0].text, "app!f");
  q.default_cull = false;  // malloc stays: nothing else is culled above it
  EXPECT_EQ(t.run(q).rows[0].key[0].text, "libc.so.6!malloc");
}

TEST(Semantics6Grouping, FrameAndImageComeFromTheCulledTop) {
  ScriptedTrace t;
  t.alloc(1, 3, t.stack({"libc.so.6!malloc", "libfoo.so!Parse", "app!main"}));
  t.alloc(2, 5, t.stack({"libc.so.6!malloc", "libfoo.so!Load", "app!main"}));
  Query q = by({GroupBy::kImage});
  q.default_cull = true;
  const Result images = t.run(q);
  ASSERT_EQ(images.rows.size(), 1u);
  EXPECT_EQ(images.rows[0].key[0].text, "libfoo.so");
  EXPECT_EQ(images.rows[0].measures.st, 8u);
  q.by = {GroupBy::kFrame};
  const Result frames_result = t.run(q);
  ASSERT_EQ(frames_result.rows.size(), 2u);
  EXPECT_EQ(frames_result.rows[0].key[0].text, "libfoo.so!Load");
}

TEST(Semantics6Grouping, NestedKeysRollUpLevelByLevel) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  BlockSpec a{1, s};
  a.pid = 1;
  a.process = "a";
  BlockSpec b{2, s};
  b.pid = 2;
  b.process = "b";
  BlockSpec v{4, s};
  v.pid = 2;
  v.process = "b";
  v.kind = BlockKind::kVirtual;
  t.alloc(1, a);
  t.alloc(2, b);
  t.alloc(3, v);
  const Result r = t.run(by({GroupBy::kProcess, GroupBy::kKind, GroupBy::kFrame}));
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].key[0].text, "b (2)");
  EXPECT_EQ(r.rows[0].key[1].text, "virtual");
  ASSERT_NE(find_row(r, {"b (2)", "heap", "app!f"}), nullptr);
  EXPECT_EQ(find_row(r, {"a (1)", "heap", "app!f"})->measures.st, 1u);
}

TEST(Semantics6Grouping, TopNKeepsTheFirstRowsAndSumsTheRestIntoOther) {
  ScriptedTrace t;
  for (std::uint64_t i = 1; i <= 5; ++i) t.alloc(i, i * 10, t.stack({"app!f" + std::to_string(i)}));
  Query q = by({GroupBy::kStack});
  q.top = 2;
  const Result r = t.run(q);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].measures.so, 50u);
  ASSERT_TRUE(r.other.has_value());
  EXPECT_EQ(r.other->so, 60u);
  EXPECT_EQ(r.other_rows, 3u);
  EXPECT_EQ(r.totals.so, 150u);
}

TEST(Semantics6Grouping, TotalsOnlyHasNoRows) {
  ScriptedTrace t;
  t.alloc(1, 10, t.stack({"app!f"}));
  Query q = by({});
  q.totals_only = true;
  const Result r = t.run(q);
  EXPECT_TRUE(r.rows.empty());
  EXPECT_EQ(r.totals.so, 10u);
}

// Small key values are looked up in place, large ones hashed: a query that
// meets both (thread ids here) keeps one row per value all the same.
TEST(Semantics6Grouping, SmallAndLargeKeyValuesMixInOneGrouping) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  const std::uint32_t threads[] = {1, 2, 0x1000000, 1, 0x1000000, 0xFFFFFFFEu, 2, 3};
  std::uint64_t address = 1;
  for (const std::uint32_t thread : threads) {
    BlockSpec spec;
    spec.size = 10;
    spec.stack = s;
    spec.thread = thread;
    t.alloc(address++, spec);
  }
  for (const auto& levels : {std::vector<GroupBy>{GroupBy::kThread},
                             std::vector<GroupBy>{GroupBy::kImpacting, GroupBy::kThread}}) {
    Query q = by(levels);
    if (levels.size() == 2) {
      q.window.begin_ns = 0;
      q.window.end_ns = 1;
    }
    const Result r = t.run(q);
    ASSERT_EQ(r.rows.size(), 5u);
    const std::size_t level = levels.size() - 1;
    const auto so_of = [&](const std::string& thread) -> std::uint64_t {
      for (const Row& row : r.rows) {
        if (row.key.at(level).text == thread) return row.measures.so;
      }
      return 0;
    };
    EXPECT_EQ(so_of("1"), 20u);
    EXPECT_EQ(so_of("2"), 20u);
    EXPECT_EQ(so_of("3"), 10u);
    EXPECT_EQ(so_of("16777216"), 20u);
    EXPECT_EQ(so_of("4294967294"), 10u);
  }
}

}  // namespace
}  // namespace heapql::test
