// Bucket events delivered in runs (BlockMatcher::bucket_run ->
// EventConsumer::on_bucket_run, what the heaptrack reader does) against the
// same events delivered one by one: the same answers for every bucket-state
// layout, the same refused frees, the same matcher counts. Random streams over
// several threads and buckets, with frees of buckets that have no live block.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>
#include <vector>

#include "engine/query/aggregator.h"
#include "engine/report/reports.h"
#include "engine/ingest/block_matcher.h"
#include "engine/store/trace_tables.h"
#include "tests/support/bucket_grid.h"

namespace heapql {
namespace {

// Hands every event to an aggregator, but takes runs apart one event at a
// time (the default EventConsumer::on_bucket_run).
class OneByOne final : public EventConsumer {
 public:
  explicit OneByOne(Aggregator& to) : to_(to) {}
  void on_alloc(const LiveBlock& b) override { to_.on_alloc(b); }
  void on_free(const LiveBlock& b, std::uint64_t seq, std::int64_t ns, bool temporary) override {
    to_.on_free(b, seq, ns, temporary);
  }
  void on_still_alive(const LiveBlock& b) override { to_.on_still_alive(b); }
  void on_finish(std::int64_t end_ns) override { to_.on_finish(end_ns); }
  bool needs_blocks() const override { return to_.needs_blocks(); }
  void on_bucket_alloc(BucketId bucket, std::int64_t ns) override { to_.on_bucket_alloc(bucket, ns); }
  bool on_bucket_free(BucketId bucket, std::int64_t ns, bool temporary) override {
    return to_.on_bucket_free(bucket, ns, temporary);
  }

 private:
  Aggregator& to_;
};

using Event = test::BucketEvent;

struct Outcome {
  std::string json;
  std::vector<std::size_t> refused;  // positions of frees with no live block
  std::uint64_t events = 0, blocks = 0, live = 0;
  std::uint64_t temporary = 0;  // not in the JSON
};

std::vector<Event> make_events(std::uint32_t seed, const TraceTables& tables, const std::vector<BucketId>& buckets) {
  std::mt19937 rng(seed);
  std::vector<Event> events;
  std::int64_t ns = 0;
  for (int i = 0; i < 4000; ++i) {
    if (rng() % 8 == 0) ns += 1'000'000 * static_cast<std::int64_t>(1 + rng() % 3);
    const BucketId bucket = buckets[rng() % buckets.size()];
    // Threads change often, and runs stop at each change; frees of buckets
    // with no live block happen too (about 1 in 20 frees).
    events.push_back(Event{ns, tables.bucket(bucket).thread, bucket, rng() % 5 < 2});
  }
  return events;
}

Outcome deliver(const TraceTables& tables, const std::vector<Event>& events, const Query& query, bool in_runs) {
  Aggregator aggregator(tables, query);
  OneByOne one_by_one(aggregator);
  BlockMatcher matcher(BlockIdentity::kBucketLifo, in_runs ? static_cast<EventConsumer&>(aggregator) : one_by_one);
  EXPECT_TRUE(matcher.counting());
  Outcome out;
  std::size_t i = 0;
  while (i < events.size()) {
    matcher.set_time(events[i].ns);
    if (!in_runs) {
      if (events[i].free) {
        if (!matcher.free_bucket(events[i].bucket, events[i].thread)) out.refused.push_back(i);
      } else {
        matcher.alloc(events[i].bucket, 0, events[i].thread);
      }
      ++i;
      continue;
    }
    std::vector<std::uint32_t> run;
    const std::size_t start = i;
    for (; i < events.size() && events[i].ns == events[start].ns && events[i].thread == events[start].thread; ++i) {
      run.push_back(events[i].bucket.value << 1 | (events[i].free ? 1u : 0u));
    }
    // A refused free ends the run; the rest goes on as a new run.
    for (std::size_t done = 0; done < run.size();) {
      const std::span<const std::uint32_t> rest = std::span<const std::uint32_t>(run).subspan(done);
      const std::size_t applied = matcher.bucket_run(rest, events[start].thread);
      done += applied;
      if (done < run.size()) out.refused.push_back(start + done++);
    }
  }
  matcher.finish();
  out.events = matcher.event_count();
  out.blocks = matcher.block_count();
  out.live = matcher.live_count();
  SourceInfo source;
  source.path = "generated";
  source.block_identity = BlockIdentity::kBucketLifo;
  const Result result = aggregator.result(source);
  out.temporary = result.temporary_blocks;
  out.json = result_json(result, source);
  return out;
}

TEST(BucketRuns, RunsGiveTheSameAnswersAsEventsOneByOne) {
  std::vector<BucketId> buckets;
  const TraceTables tables = test::make_bucket_grid(6, 3, buckets);
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const std::vector<Event> events = make_events(seed, tables, buckets);
    for (const auto& [name, query] : test::one_query_per_layout(5'000'000, 20'000'000, false)) {
      SCOPED_TRACE(fmt::format("seed {}, {}", seed, name));
      const Outcome one = deliver(tables, events, query, false);
      const Outcome runs = deliver(tables, events, query, true);
      EXPECT_FALSE(one.refused.empty());  // the streams do exercise refusals
      EXPECT_EQ(runs.refused, one.refused);
      EXPECT_EQ(runs.events, one.events);
      EXPECT_EQ(runs.blocks, one.blocks);
      EXPECT_EQ(runs.live, one.live);
      EXPECT_EQ(runs.temporary, one.temporary);
      EXPECT_EQ(runs.json, one.json);
    }
  }
}

// The whole-trace layout's own run loop (Aggregator::whole_trace_run) hands
// a bucket it cannot count in place to the general path: one filtered out by
// size, one not yet planned, one whose size does not fit 32 bits; a series
// takes the general loop. Answers as one by one all the same.
TEST(BucketRuns, WholeTraceRunsWithFilteredAndLargeBucketsAndSeries) {
  std::vector<BucketId> buckets;
  TraceTables tables = test::make_bucket_grid(6, 3, buckets);
  const StackId stack = tables.bucket(buckets.front()).stack;
  const HeapId heap = tables.bucket(buckets.front()).heap;
  for (std::uint32_t thread = 0; thread < 3; ++thread) {
    buckets.push_back(tables.intern_bucket(Bucket{std::uint64_t{5} << 32, stack, heap, thread, BlockKind::kHeap, false}));
  }
  Query by_stack;
  by_stack.by = {GroupBy::kStack, GroupBy::kThread};
  by_stack.default_cull = false;
  Query sized = by_stack;
  sized.size_min = 20;  // the 16-byte buckets are filtered out
  Query series = by_stack;
  series.series_buckets = 16;
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const std::vector<Event> events = make_events(seed, tables, buckets);
    for (const auto& [name, query] : {std::pair{"whole trace", by_stack}, std::pair{"size filter", sized},
                                      std::pair{"series", series}}) {
      SCOPED_TRACE(fmt::format("seed {}, {}", seed, name));
      const Outcome one = deliver(tables, events, query, false);
      const Outcome runs = deliver(tables, events, query, true);
      EXPECT_FALSE(one.refused.empty());
      EXPECT_GT(one.temporary, 0u);  // frees right after their bucket's allocation
      EXPECT_EQ(runs.refused, one.refused);
      EXPECT_EQ(runs.events, one.events);
      EXPECT_EQ(runs.blocks, one.blocks);
      EXPECT_EQ(runs.live, one.live);
      EXPECT_EQ(runs.temporary, one.temporary);
      EXPECT_EQ(runs.json, one.json);
    }
  }
}

}  // namespace
}  // namespace heapql
