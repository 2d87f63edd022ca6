// semantics.md §9: the checks any implementation must pass, as property tests
// over generated traces (fixed seeds, so failures reproduce).
#include <gtest/gtest.h>

#include <random>

#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

struct Generated {
  ScriptedTrace trace;
  std::int64_t end_ms = 0;
};

// A trace of `events` random allocations and frees over ~1 s, with stacks
// drawn from a small frame pool that includes allocator frames (so culling
// matters), several threads, heaps and kinds.
Generated generate(std::uint32_t seed, BlockIdentity identity, int events) {
  Generated g{ScriptedTrace(identity), 0};
  ScriptedTrace& t = g.trace;
  std::mt19937 rng(seed);
  const std::vector<std::string> pool = {"libc.so.6!malloc", "libc.so.6!realloc", "libstdc++.so.6!operator new(unsigned long)",
                                         "app!Parse",        "app!Load",          "libfoo.so!Decode",
                                         "libfoo.so!0x1f0",  "?!0xabc",           "app!main"};
  std::vector<StackId> stacks;
  for (int i = 0; i < 40; ++i) {
    const int depth = 1 + static_cast<int>(rng() % 5);
    std::vector<std::string> frames;
    for (int d = 0; d < depth; ++d) frames.push_back(pool[rng() % pool.size()]);
    StackId node;
    // Build via the tables directly so any depth works.
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
      const auto bang = it->find('!');
      const StringId module = t.tables().intern_string(it->substr(0, bang));
      const std::string symbol = it->substr(bang + 1);
      const FrameId frame = symbol.rfind("0x", 0) == 0
                                ? t.tables().intern_frame(module, StringId(), std::stoull(symbol.substr(2), nullptr, 16))
                                : t.tables().intern_frame(module, t.tables().intern_string(symbol), 0);
      node = t.tables().intern_stack(frame, node);
    }
    stacks.push_back(node);
  }
  struct Live {
    std::uint64_t address, size;
    StackId stack;
  };
  std::vector<Live> live;
  std::uint64_t next_address = 0x1000;
  std::int64_t now = 0;
  for (int i = 0; i < events; ++i) {
    if (rng() % 4 == 0) {
      now += rng() % 7;
      t.at_ms(now);
    }
    if (!live.empty() && rng() % 3 == 0) {
      const std::size_t k = rng() % live.size();
      if (identity == BlockIdentity::kExact) {
        t.free(live[k].address, rng() % 2);
      } else {
        t.free_bucket(live[k].size, live[k].stack);
      }
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      continue;
    }
    BlockSpec spec;
    spec.size = identity == BlockIdentity::kExact ? 1 + rng() % 5000 : 8 * (1 + rng() % 4);
    spec.stack = stacks[rng() % stacks.size()];
    spec.is_realloc = rng() % 5 == 0;
    if (identity == BlockIdentity::kExact) {
      spec.thread = rng() % 2;
      spec.heap = rng() % 2;
      spec.kind = rng() % 7 == 0 ? BlockKind::kVirtual : BlockKind::kHeap;
    } else {
      spec.is_realloc = false;
    }
    const std::uint64_t address = next_address++;
    t.alloc(address, spec);
    live.push_back(Live{address, spec.size, spec.stack});
  }
  g.end_ms = now;
  return g;
}

Query grouped(std::vector<GroupBy> by) {
  Query q;
  q.by = std::move(by);
  q.top = 1'000'000;
  return q;
}

void expect_rows_sum_to_totals(const Result& r) {
  Measures sum;
  for (const Row& row : r.rows) sum.add(row.measures);
  if (r.other) sum.add(*r.other);
  EXPECT_EQ(sum.so, r.totals.so);
  EXPECT_EQ(sum.soc, r.totals.soc);
  EXPECT_EQ(sum.st, r.totals.st);
  EXPECT_EQ(sum.stc, r.totals.stc);
  EXPECT_EQ(sum.src, r.totals.src);
  EXPECT_EQ(sum.count, r.totals.count);
  EXPECT_EQ(sum.size, r.totals.size);
  EXPECT_EQ(sum.impacting, r.totals.impacting);
}

class Invariants : public ::testing::TestWithParam<std::tuple<std::uint32_t, BlockIdentity>> {
 protected:
  Generated g = generate(std::get<0>(GetParam()), std::get<1>(GetParam()), 3000);
};

TEST_P(Invariants, RowsOfAnyGroupingSumToTheTotals) {
  const std::vector<std::vector<GroupBy>> groupings = {
      {GroupBy::kStack}, {GroupBy::kFrame}, {GroupBy::kImage}, {GroupBy::kProcess, GroupBy::kHeap},
      {GroupBy::kKind, GroupBy::kThread, GroupBy::kStack}, {GroupBy::kImpacting, GroupBy::kFrame}};
  for (const auto& by : groupings) {
    Query q = grouped(by);
    q.window.begin_ns = 100'000'000;
    q.window.end_ns = 600'000'000;
    expect_rows_sum_to_totals(g.trace.run(q));
    q.top = 3;  // with top N, [other] takes the rest
    expect_rows_sum_to_totals(g.trace.run(q));
  }
}

TEST_P(Invariants, SplittingTheWindowNeverChangesTotalSizeOrCount) {
  const Result whole = g.trace.run(grouped({GroupBy::kStack}));
  for (std::int64_t split_ms : {std::int64_t{0}, g.end_ms / 3, g.end_ms / 2, g.end_ms}) {
    Query left = grouped({GroupBy::kStack});
    left.window.end_ns = split_ms * 1'000'000;
    Query right = grouped({GroupBy::kStack});
    right.window.begin_ns = split_ms * 1'000'000;
    const Result l = g.trace.run(left), r = g.trace.run(right);
    EXPECT_EQ(l.totals.st + r.totals.st, whole.totals.st) << "split at " << split_ms << " ms";
    EXPECT_EQ(l.totals.stc + r.totals.stc, whole.totals.stc) << "split at " << split_ms << " ms";
  }
}

TEST_P(Invariants, AddingACullPatternNeverChangesTheTotals) {
  const Result before = g.trace.run(grouped({GroupBy::kStack}));
  for (const char* pattern : {"app!Parse", "libfoo.so!", "*", "?!0x*"}) {
    Query q = grouped({GroupBy::kStack});
    q.cull = {pattern};
    const Result after = g.trace.run(q);
    EXPECT_EQ(after.totals.so, before.totals.so) << pattern;
    EXPECT_EQ(after.totals.st, before.totals.st) << pattern;
    EXPECT_EQ(after.totals.stc, before.totals.stc) << pattern;
    EXPECT_EQ(after.totals.soc, before.totals.soc) << pattern;
  }
}

TEST_P(Invariants, ARequirePatternMatchingEveryFrameKeepsEveryBlock) {
  const Result all = g.trace.run(grouped({GroupBy::kFrame}));
  Query q = grouped({GroupBy::kFrame});
  q.require = {"*"};
  const Result required = g.trace.run(q);
  EXPECT_EQ(required.totals.stc, all.totals.stc);
  EXPECT_EQ(required.totals.so, all.totals.so);
}

TEST_P(Invariants, ImpactingSizeEqualsTheChangeOfOutstandingSize) {
  const std::int64_t t1 = 200'000'000, t2 = 700'000'000;
  Query q = grouped({GroupBy::kImpacting});
  q.window = TimeWindow{t1, t2};
  const Result r = g.trace.run(q);
  // Outstanding at an instant = blocks allocated before it and not yet freed,
  // i.e. `so` of the window that ends there.
  Query before = grouped({});
  before.window.end_ns = t1;
  Query until = grouped({});
  until.window.end_ns = t2;
  const auto at_t1 = static_cast<std::int64_t>(g.trace.run(before).totals.so);
  const auto at_t2 = static_cast<std::int64_t>(g.trace.run(until).totals.so);
  EXPECT_EQ(r.totals.impacting, at_t2 - at_t1);
}

TEST_P(Invariants, PeakConsumersAddUpToThePeak) {
  Query q = grouped({GroupBy::kStack});
  q.block_set = BlockSet::kAtPeak;
  const Result r = g.trace.run(q);
  EXPECT_EQ(r.totals.so, r.peak.bytes);
  EXPECT_EQ(r.totals.soc, r.peak.blocks);
  expect_rows_sum_to_totals(r);
}

INSTANTIATE_TEST_SUITE_P(Semantics9, Invariants,
                         ::testing::Combine(::testing::Values(1u, 7u, 42u, 2024u),
                                            ::testing::Values(BlockIdentity::kExact, BlockIdentity::kBucketLifo)));

}  // namespace
}  // namespace heapql::test
