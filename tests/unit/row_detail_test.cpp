// The drill-down (engine/query/row_detail.h, docs/semantics.md "The
// drill-down"): a row's detail describes exactly the blocks the row counts,
// for every block set, measure and filter, so its stacks, size bins and
// lifetime bins each add up to the row's blocks and bytes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/query/query_plan.h"
#include "engine/query/row_detail.h"
#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// Two functions, each reached by two full stacks under the allocator's
// frame (culled by default), blocks of many sizes and lifetimes, some never
// freed, some temporary, in two processes.
ScriptedTrace mixed_trace() {
  ScriptedTrace t;
  const StackId a1 = t.stack({"libc.so.6!malloc", "app!a", "app!x"});
  const StackId a2 = t.stack({"libc.so.6!malloc", "app!a", "app!y"});
  const StackId b1 = t.stack({"libc.so.6!malloc", "app!b", "app!x"});
  const StackId b2 = t.stack({"app!b", "app!z"});
  const StackId stacks[] = {a1, a2, b1, b2};
  std::uint64_t address = 1;
  std::vector<std::uint64_t> live;
  for (int step = 0; step < 60; ++step) {
    t.at_ns(step * kMs + (step % 7) * 3000);
    const StackId s = stacks[step % 4];
    BlockSpec spec;
    spec.size = std::uint64_t{1} << (step % 13);
    if (step % 11 == 0) spec.size = 0;
    spec.stack = s;
    spec.pid = step % 3 == 0 ? 2 : 1;
    spec.process = step % 3 == 0 ? "other" : "app";
    t.alloc(address, spec);
    if (step % 5 == 0) {
      t.free(address);  // temporary
    } else if (step % 4 != 3) {
      live.push_back(address);
    }
    ++address;
    // Free an older block now and then: lifetimes from microseconds to tens of milliseconds.
    if (step % 3 == 1 && live.size() > 2) {
      t.at_ns(step * kMs + 5000 + step * 20000);
      t.free(live.front());
      live.erase(live.begin());
    }
  }
  return t;
}

// The row's bytes as its measures count them: all its blocks' sizes.
std::uint64_t row_bytes(const Result& r, const Row& row) {
  if (r.query.block_set == BlockSet::kAtPeak) return row.measures.st;
  return r.impacting_measures ? row.measures.size : row.measures.st;
}

// Every part of a detail adds up to the row it describes.
void expect_adds_up(const Result& r, const RowDetail& d, const std::string& what) {
  const Row& row = r.rows.at(d.row - 1);
  EXPECT_EQ(d.key.size(), row.key.size()) << what;
  EXPECT_EQ(d.blocks, row.measures.blocks) << what;
  EXPECT_EQ(d.bytes, row_bytes(r, row)) << what;
  std::uint64_t blocks = 0, bytes = 0;
  for (const DetailBin& bin : d.sizes) {
    EXPECT_GT(bin.blocks, 0u) << what;
    EXPECT_LE(bin.from, bin.bytes / bin.blocks) << what;
    blocks += bin.blocks, bytes += bin.bytes;
  }
  EXPECT_EQ(blocks, d.blocks) << what << ": sizes";
  EXPECT_EQ(bytes, d.bytes) << what << ": sizes";
  blocks = d.not_freed_blocks, bytes = d.not_freed_bytes;
  for (const DetailBin& bin : d.lifetimes) blocks += bin.blocks, bytes += bin.bytes;
  EXPECT_EQ(blocks, d.blocks) << what << ": lifetimes";
  EXPECT_EQ(bytes, d.bytes) << what << ": lifetimes";
  Measures stacks;
  bytes = d.other_bytes;
  for (const DetailStack& s : d.stacks) stacks.add(s.measures), bytes += s.bytes;
  EXPECT_EQ(stacks.blocks + d.other_blocks, d.blocks) << what << ": stacks";
  EXPECT_EQ(bytes, d.bytes) << what << ": stacks";
  if (d.other_stacks == 0) {
    // Every stack listed: their measures are the row's, each of them.
    EXPECT_EQ(stacks.so, row.measures.so) << what;
    EXPECT_EQ(stacks.soc, row.measures.soc) << what;
    EXPECT_EQ(stacks.st, row.measures.st) << what;
    EXPECT_EQ(stacks.stc, row.measures.stc) << what;
    EXPECT_EQ(stacks.src, row.measures.src) << what;
    EXPECT_EQ(stacks.count, row.measures.count) << what;
    EXPECT_EQ(stacks.impacting, row.measures.impacting) << what;
  }
  for (std::size_t i = 1; i < d.stacks.size(); ++i) {
    EXPECT_GE(d.stacks[i - 1].measures.value(r.query.sort), d.stacks[i].measures.value(r.query.sort)) << what;
  }
}

// Describes every row of the query's answer, from a store in memory and
// from one with live checkpoints (a window starts from them).
void check_every_row(ScriptedTrace& t, const Query& query, const std::string& what) {
  const Result r = t.run(query);
  ASSERT_FALSE(r.rows.empty()) << what;
  TraceStore store, checkpointed;
  t.fill_store(store);
  t.fill_store(checkpointed, CheckpointRule{2, true});
  for (std::size_t n = 1; n <= r.rows.size(); ++n) {
    Query q = query;
    q.detail = n;
    const std::optional<RowDetail> d = describe_row(store, q, compile_stack_filters(q), r);
    ASSERT_TRUE(d) << what;
    EXPECT_EQ(d->row, n);
    expect_adds_up(r, *d, what + ", row " + std::to_string(n));
    const std::optional<RowDetail> again = describe_row(checkpointed, q, compile_stack_filters(q), r);
    ASSERT_TRUE(again) << what;
    EXPECT_EQ(again->blocks, d->blocks) << what << ": from live checkpoints";
    EXPECT_EQ(again->lifetimes.size(), d->lifetimes.size()) << what << ": from live checkpoints";
  }
}

TEST(RowDetail, AddsUpToTheRowForEveryBlockSetMeasureAndWindow) {
  ScriptedTrace t = mixed_trace();
  const std::vector<std::pair<std::string, TimeWindow>> windows = {
      {"whole trace", TimeWindow{}},
      {"closed window", TimeWindow{12 * kMs, 41 * kMs}},
      {"open window", TimeWindow{25 * kMs, std::nullopt}},
  };
  const std::vector<std::vector<GroupBy>> groupings = {
      {GroupBy::kStack}, {GroupBy::kFrame}, {GroupBy::kProcess}, {GroupBy::kProcess, GroupBy::kFrame}};
  for (const auto& [window_name, window] : windows) {
    for (const auto& by : groupings) {
      for (const Measure sort : {Measure::kSo, Measure::kSt, Measure::kSoc, Measure::kStc}) {
        Query q;
        q.window = window;
        q.by = by;
        q.sort = sort;
        const std::string what = window_name + ", by " + std::string(group_by_name(by.back())) + ", sort " +
                                 std::string(measure_name(sort));
        check_every_row(t, q, what);
        Query at_peak = q;
        at_peak.block_set = BlockSet::kAtPeak;
        check_every_row(t, at_peak, what + ", at the peak");
      }
      Query impacting;
      impacting.window = window;
      impacting.by = by;
      impacting.by.insert(impacting.by.begin(), GroupBy::kImpacting);
      check_every_row(t, impacting, window_name + ", by impacting");
      Query some_types = impacting;
      some_types.by = by;
      some_types.impacting = {Impacting::kAifo, Impacting::kAofi};
      check_every_row(t, some_types, window_name + ", impacting AIFO,AOFI");
    }
  }
}

TEST(RowDetail, AddsUpToTheRowUnderEveryFilter) {
  ScriptedTrace t = mixed_trace();
  Query base;
  base.by = {GroupBy::kFrame};
  base.window = TimeWindow{5 * kMs, 50 * kMs};
  Query temporary = base;
  temporary.temporary_only = true;
  check_every_row(t, temporary, "temporary");
  Query lifetime = base;
  lifetime.lifetime_min_ns = 10'000;
  lifetime.lifetime_end_ns = 30 * kMs;
  check_every_row(t, lifetime, "lifetime");
  Query size = base;
  size.size_min = 4;
  size.size_end = 512;
  check_every_row(t, size, "size");
  Query process = base;
  process.processes = {"app"};
  check_every_row(t, process, "process");
  Query require = base;
  require.require = {"app!x"};
  check_every_row(t, require, "require");
  Query culled = base;
  culled.cull = {"app!a", "app!b"};
  check_every_row(t, culled, "cull");
}

TEST(RowDetail, ListsTheFullStacksOfTheRowByItsSortMeasure) {
  ScriptedTrace t;
  const StackId freed_big = t.stack({"libc.so.6!malloc", "app!f", "app!freed"});
  const StackId kept_small = t.stack({"libc.so.6!malloc", "app!f", "app!kept"});
  const StackId elsewhere = t.stack({"libc.so.6!malloc", "app!g"});
  t.at_ms(0);
  t.alloc(1, 1000, freed_big);
  t.alloc(2, 10, kept_small);
  t.alloc(3, 10, kept_small);
  t.alloc(4, 5000, elsewhere);
  t.at_ms(1);
  t.free(1);
  Query q;
  q.by = {GroupBy::kFrame};
  q.detail = 2;  // app!f (1020 bytes in all, 20 outstanding) after app!g (5000)
  TraceStore store;
  t.fill_store(store);
  for (const auto& [sort, first] : {std::pair{Measure::kSo, "app!kept"}, std::pair{Measure::kSt, "app!freed"}}) {
    q.sort = sort;
    const Result r = t.run(q);
    ASSERT_EQ(r.rows.size(), 2u);
    const std::optional<RowDetail> d = describe_row(store, q, compile_stack_filters(q), r);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->key.at(0).text, "app!f");
    ASSERT_EQ(d->stacks.size(), 2u);
    // Full stacks, the allocator's frame included, and how many of their frames culling removes.
    EXPECT_EQ(d->stacks[0].frames.size(), 3u);
    EXPECT_EQ(d->stacks[0].frames[0], "libc.so.6!malloc");
    EXPECT_EQ(d->stacks[0].frames[2], first) << measure_name(sort);
    EXPECT_EQ(d->stacks[0].culled_frames, 1u);
    EXPECT_EQ(d->blocks, 3u);
    EXPECT_EQ(d->bytes, 1020u);
  }
}

TEST(RowDetail, ListsAtMostTwentyStacksAndSumsTheRest) {
  ScriptedTrace t;
  t.at_ms(0);
  for (std::uint64_t i = 0; i < 25; ++i) {
    // Stacks 100-107 tie at 100 bytes: the three listed after the 17 larger ones are the first by text.
    const StackId s = t.stack({"app!f", "app!caller" + std::to_string(100 + i)});
    t.alloc(i + 1, i < 8 ? 100 : 1000 + i, s);
  }
  Query q;
  q.by = {GroupBy::kFrame};
  q.detail = 1;
  const Result r = t.run(q);
  TraceStore store;
  t.fill_store(store);
  const std::optional<RowDetail> d = describe_row(store, q, compile_stack_filters(q), r);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->stacks.size(), kDetailStacks);
  EXPECT_EQ(d->stacks[0].frames[1], "app!caller124");
  EXPECT_EQ(d->stacks[16].frames[1], "app!caller108");
  EXPECT_EQ(d->stacks[17].frames[1], "app!caller100");
  EXPECT_EQ(d->stacks[19].frames[1], "app!caller102");
  EXPECT_EQ(d->other_stacks, 5u);
  EXPECT_EQ(d->other_blocks, 5u);
  EXPECT_EQ(d->other_bytes, 500u);
  expect_adds_up(r, *d, "twenty stacks");
}

TEST(RowDetail, BinsSizesByPowersOfTwoAndLifetimesByDecadesAsTheLifetimeFilterMeasuresThem) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  t.at_ns(0);
  t.alloc(1, 0, s);     // 0 bytes, freed after 500 ns: [0, 1 us)
  t.alloc(2, 3, s);     // [2, 4), freed after 5 us
  t.alloc(3, 4, s);     // [4, 8), outstanding at T2 = 20 ms: lifetime 20 ms in a closed window
  t.alloc(4, 4096, s);  // [4096, 8192), never freed: outstanding
  t.at_ns(500);
  t.free(1);
  t.at_ns(5000);
  t.free(2);
  t.at_ms(30);
  t.free(3);
  TraceStore store;
  t.fill_store(store);
  Query q;
  q.by = {GroupBy::kStack};
  q.detail = 1;
  q.window = TimeWindow{0, 20 * kMs};
  Result r = t.run(q);
  std::optional<RowDetail> d = describe_row(store, q, compile_stack_filters(q), r);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->sizes.size(), 4u);
  EXPECT_EQ(d->sizes[0].from, 0u);
  EXPECT_EQ(d->sizes[0].to, 1u);
  EXPECT_EQ(d->sizes[1].from, 2u);
  EXPECT_EQ(d->sizes[1].to, 4u);
  EXPECT_EQ(d->sizes[2].from, 4u);
  EXPECT_EQ(d->sizes[3].from, 4096u);
  EXPECT_EQ(d->sizes[3].to, 8192u);
  EXPECT_EQ(d->sizes[3].bytes, 4096u);
  // Closed window: an outstanding block lives until T2 (semantics.md §4), so both are in the 10-100 ms bin.
  ASSERT_EQ(d->lifetimes.size(), 3u);
  EXPECT_EQ(d->lifetimes[0].from, 0u);
  EXPECT_EQ(d->lifetimes[0].to, 1000u);
  EXPECT_EQ(d->lifetimes[1].from, 1000u);
  EXPECT_EQ(d->lifetimes[1].to, 10'000u);
  EXPECT_EQ(d->lifetimes[1].bytes, 3u);
  EXPECT_EQ(d->lifetimes[2].from, 10'000'000u);
  EXPECT_EQ(d->lifetimes[2].blocks, 2u);
  EXPECT_EQ(d->not_freed_blocks, 0u);
  // The lifetime filter keeps exactly a bin's blocks.
  Query filtered = q;
  filtered.lifetime_min_ns = 10'000'000;
  filtered.lifetime_end_ns = 100'000'000;
  EXPECT_EQ(t.run(filtered).totals.blocks, d->lifetimes[2].blocks);

  // Open window: an outstanding block's lifetime is unbounded: not freed.
  q.window = TimeWindow{};
  r = t.run(q);
  d = describe_row(store, q, compile_stack_filters(q), r);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->not_freed_blocks, 1u);
  EXPECT_EQ(d->not_freed_bytes, 4096u);
  ASSERT_EQ(d->lifetimes.size(), 3u);
  EXPECT_EQ(d->lifetimes[2].from, 10'000'000u);  // freed at 30 ms
  EXPECT_EQ(d->lifetimes[2].blocks, 1u);
}

TEST(RowDetail, AtThePeakDescribesTheBlocksAliveThen) {
  ScriptedTrace t;
  const StackId s = t.stack({"app!f"});
  const StackId other = t.stack({"app!g"});
  t.at_ms(0);
  t.alloc(1, 100, s);  // freed before the peak
  t.at_ms(1);
  t.free(1);
  t.alloc(2, 10, s);   // alive at the peak, freed after it
  t.alloc(3, 20, s);   // alive at the peak, never freed
  t.alloc(4, 500, other);
  t.at_ms(2);
  t.free(4);           // the peak (530 bytes) was just before
  t.free(2);
  t.alloc(5, 40, s);   // after the peak
  Query q;
  q.by = {GroupBy::kStack};
  q.block_set = BlockSet::kAtPeak;
  const Result r = t.run(q);
  EXPECT_EQ(r.peak.bytes, 530u);
  const Row* row = find_row(r, {"app!f"});
  ASSERT_NE(row, nullptr);
  q.detail = static_cast<std::uint64_t>(row - r.rows.data()) + 1;
  TraceStore store;
  t.fill_store(store);
  const std::optional<RowDetail> d = describe_row(store, q, compile_stack_filters(q), r);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->blocks, 2u);
  EXPECT_EQ(d->bytes, 30u);
  EXPECT_EQ(d->not_freed_blocks, 1u);
  EXPECT_EQ(d->not_freed_bytes, 20u);
  expect_adds_up(r, *d, "at the peak");
}

TEST(RowDetail, NoneForARowBeyondTheAnswersOrWithoutDetail) {
  ScriptedTrace t = mixed_trace();
  Query q;
  q.by = {GroupBy::kProcess};
  const Result r = t.run(q);
  ASSERT_EQ(r.rows.size(), 2u);
  TraceStore store;
  t.fill_store(store);
  EXPECT_FALSE(describe_row(store, q, compile_stack_filters(q), r));
  q.detail = 3;
  EXPECT_FALSE(describe_row(store, q, compile_stack_filters(q), r));
  EXPECT_EQ(detail_beyond_rows(3, 2), "--detail 3: the answer has 2 rows");
  EXPECT_EQ(detail_beyond_rows(12, 1), "--detail 12: the answer has 1 row");
  q.detail = 0;
  EXPECT_THROW(validate(q), Error);
}

}  // namespace
}  // namespace heapql::test
