// The window index a session prepared for many queries keeps
// (engine/store/window_index.h): windowed answers from it are the replay's,
// byte for byte, over many windows of a random trace (open ends, empty,
// past the end, every run boundary kind), groupings, sorts and series; the
// queries it cannot answer (filters, impacting types, at-peak) replay.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "engine/ingest/block_matcher.h"
#include "engine/query/aggregator.h"
#include "engine/report/reports.h"
#include "engine/store/trace_store.h"
#include "engine/store/window_index.h"

namespace heapql {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// A trace of `events` random events over 12 buckets (3 stacks, 2 threads,
// several sizes): runs of 1-6 events share a time; frees pick a random live
// block, sometimes the latest (temporary, when right after its allocation).
void build_random(TraceStore& store, std::size_t events, unsigned seed) {
  TraceTables& tables = store.tables();
  const StringId module = tables.intern_string("app");
  std::vector<BucketId> buckets;
  for (int s = 0; s < 3; ++s) {
    const StackId root = tables.intern_stack(tables.intern_frame(module, tables.intern_string("main"), 0x10), StackId());
    const StackId stack = tables.intern_stack(
        tables.intern_frame(module, tables.intern_string("f" + std::to_string(s)), 0x20 + static_cast<std::uint64_t>(s)),
        root);
    for (int k = 0; k < 4; ++k) {
      Bucket bucket;
      bucket.size = std::uint64_t{16} << k;
      bucket.stack = stack;
      bucket.thread = static_cast<std::uint32_t>(k % 2);
      bucket.is_realloc = k == 3;
      buckets.push_back(tables.intern_bucket(bucket));
    }
  }
  TraceStore::Builder builder(store, CheckpointRule{64, true});
  BlockMatcher matcher(BlockIdentity::kExact, builder);
  std::mt19937 random(seed);
  std::vector<std::uint64_t> live;
  std::uint64_t next_address = 1;
  std::int64_t now = 0;
  std::size_t left_in_run = 0;
  for (std::size_t e = 0; e < events; ++e) {
    if (left_in_run == 0) {
      now += static_cast<std::int64_t>(1 + random() % 3) * kMs;
      matcher.set_time(now);
      left_in_run = 1 + random() % 6;
    }
    --left_in_run;
    if (!live.empty() && random() % 100 < 45) {
      const std::size_t at = random() % 4 == 0 ? live.size() - 1 : random() % live.size();
      matcher.free_address(live[at]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
    } else {
      matcher.alloc(buckets[random() % buckets.size()], next_address);
      live.push_back(next_address++);
    }
  }
  matcher.finish();
}

struct Answered {
  std::string json;
  bool from_index;
};

Answered answer(const TraceStore& store, const Query& query, const WindowIndex* index) {
  Aggregator aggregator(store.tables(), query);
  aggregator.answer_from(store, index);
  const bool from_index = aggregator.answered_from_window_index();
  const Result result = aggregator.result(store.source());
  // With what recipes read beside the JSON (result_binding.cpp).
  return {result_json(result, store.source()) + " temporary_blocks " + std::to_string(result.temporary_blocks) +
              " excluded " + std::to_string(result.excluded_blocks) + "/" + std::to_string(result.excluded_bytes),
          from_index};
}

TEST(WindowIndex, WindowsAnswerAsTheReplayDoes) {
  TraceStore store;
  build_random(store, 6'000, 48);
  const WindowIndex index(store.tables(), store.columns());
  ASSERT_TRUE(index.has_levels());
  const std::int64_t end = store.columns().end_ns;
  std::mt19937 random(7);
  const std::vector<std::vector<GroupBy>> groupings = {
      {GroupBy::kStack}, {GroupBy::kFrame}, {GroupBy::kThread, GroupBy::kStack}, {}};
  const Measure sorts[] = {Measure::kSo, Measure::kSt, Measure::kStc, Measure::kSrc};
  std::size_t from_index = 0;
  for (int k = 0; k < 160; ++k) {
    Query q;
    q.default_cull = false;
    q.by = groupings[static_cast<std::size_t>(k) % groupings.size()];
    q.sort = sorts[static_cast<std::size_t>(k / 4) % 4];
    q.top = 1 + random() % 4;
    q.series_buckets = k % 3 == 0 ? 0 : 1 + random() % 50;
    // Starts and ends anywhere from before the trace to past its end, on a
    // run's time or between two; some open, some empty.
    const auto time = [&] { return static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(end + 20 * kMs)); };
    q.window.begin_ns = k % 7 == 0 ? 0 : time();
    if (k % 5 != 0) q.window.end_ns = k % 11 == 0 ? q.window.begin_ns : std::max(q.window.begin_ns, time());
    const Answered replayed = answer(store, q, nullptr);
    const Answered indexed = answer(store, q, &index);
    EXPECT_EQ(replayed.json, indexed.json) << "window " << q.window.begin_ns << ".." << q.window.end_ns.value_or(-1);
    EXPECT_FALSE(replayed.from_index);
    if (indexed.from_index) ++from_index;
  }
  // Every one but the whole trace without a series (the bucket sums answer those).
  EXPECT_GE(from_index, 140u);
}

TEST(WindowIndex, FilteredQueriesReplay) {
  TraceStore store;
  build_random(store, 3'000, 5);
  const WindowIndex index(store.tables(), store.columns());
  Query base;
  base.default_cull = false;
  base.by = {GroupBy::kStack};
  base.window.begin_ns = 200 * kMs;
  base.window.end_ns = 900 * kMs;
  base.series_buckets = 20;
  std::vector<Query> filtered(6, base);
  filtered[0].size_min = 32;
  filtered[1].threads = {1};
  filtered[2].require = {"f1"};
  filtered[3].impacting = {Impacting::kAifo};
  filtered[4].lifetime_min_ns = 5 * kMs;
  filtered[5].block_set = BlockSet::kAtPeak;
  for (const Query& q : filtered) {
    const Answered indexed = answer(store, q, &index);
    EXPECT_FALSE(indexed.from_index);
    EXPECT_EQ(answer(store, q, nullptr).json, indexed.json);
  }
  EXPECT_TRUE(answer(store, base, &index).from_index);
}

TEST(WindowIndex, EachBlockEndIsItsFree) {
  TraceStore store;
  build_random(store, 2'000, 9);
  const WindowIndex index(store.tables(), store.columns());
  const StoreColumns& c = store.columns();
  std::vector<std::uint32_t> expected(c.block_count(), WindowIndex::kNeverFreed);
  for (std::size_t f = 0; f < c.free_order.size(); ++f) {
    expected[c.free_order[f] & StoreColumns::kBlockMask] =
        static_cast<std::uint32_t>(f) | (c.free_order[f] & StoreColumns::kTemporaryBit);
  }
  const std::vector<std::uint32_t> ends(index.block_ends().begin(), index.block_ends().end());
  EXPECT_EQ(ends, expected);
}

}  // namespace
}  // namespace heapql
