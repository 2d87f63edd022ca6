// Exact identity told as bucket LIFO plus exceptions (what a block-identity
// file holds, docs/heaptrack.md): a reading by address reports each block
// that ends out of its bucket's order; a reading of the same events without
// addresses, given those ends, must answer every query exactly as the
// reading by address does, counting buckets or keeping blocks. Random
// streams of one thread (as heaptrack records: bucket LIFO's "temporary",
// the thread's previous event allocated in the bucket, is exact only when
// no other thread ends a block between), with frees of unknown addresses,
// double frees and allocations over live addresses.
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

struct AddressEvent {
  std::int64_t ns;
  std::uint32_t thread;
  BucketId bucket;  // allocations
  std::uint64_t address;
  bool free;
};

struct OutOfOrderEnd {
  LiveBlock block;
  std::uint64_t seq;
  bool is_free;
  bool temporary;
};

class Collect final : public OutOfOrderEnds {
 public:
  void on_out_of_order_end(const LiveBlock& block, std::uint64_t seq, std::int64_t, bool is_free,
                           bool temporary) override {
    ends.push_back(OutOfOrderEnd{block, seq, is_free, temporary});
  }
  std::vector<OutOfOrderEnd> ends;
};

// The same events as an interpreted file has them (the frees that found a
// block, with that block's bucket): test::BucketEvent.
using test::BucketEvent;

struct Outcome {
  std::string json;
  std::uint64_t events = 0, blocks = 0, live = 0, alloc_over_live = 0;
};

std::vector<AddressEvent> make_events(std::uint32_t seed, const std::vector<BucketId>& buckets) {
  std::mt19937 rng(seed);
  std::vector<AddressEvent> events;
  std::int64_t ns = 0;
  for (int i = 0; i < 5000; ++i) {
    if (rng() % 6 == 0) ns += 1'000'000 * static_cast<std::int64_t>(1 + rng() % 3);
    const BucketId bucket = buckets[rng() % buckets.size()];
    // Few addresses, so that frees pick among many live blocks of a bucket
    // (out of order), and allocations land on live addresses now and then.
    const std::uint64_t address = 0x1000 + 16 * (rng() % 90);
    events.push_back(AddressEvent{ns, 0, bucket, address, rng() % 9 < 4});
  }
  return events;
}

Outcome outcome_of(Aggregator& aggregator, BlockMatcher& matcher) {
  matcher.finish();
  Outcome out;
  out.events = matcher.event_count();
  out.blocks = matcher.block_count();
  out.live = matcher.live_count();
  out.alloc_over_live = matcher.anomalies().alloc_over_live;
  SourceInfo source;
  source.path = "generated";
  source.block_identity = BlockIdentity::kExact;
  out.json = result_json(aggregator.result(source), source);
  return out;
}

Outcome by_address(const TraceTables& tables, const std::vector<AddressEvent>& events, const Query& query,
                   Collect& ends, std::vector<BucketEvent>& interpreted) {
  Aggregator aggregator(tables, query);
  BlockMatcher matcher(BlockIdentity::kExact, aggregator);
  matcher.report_out_of_order_ends(ends);
  for (const AddressEvent& e : events) {
    matcher.set_time(e.ns);
    if (!e.free) {
      matcher.alloc(e.bucket, e.address, e.thread);
      interpreted.push_back(BucketEvent{e.ns, e.thread, e.bucket, false});
    } else if (const LiveBlock* block = matcher.live_at(e.address)) {
      interpreted.push_back(BucketEvent{e.ns, e.thread, block->bucket, true});
      EXPECT_TRUE(matcher.free_address(e.address, e.thread));
    } else {
      EXPECT_FALSE(matcher.free_address(e.address, e.thread));
    }
  }
  return outcome_of(aggregator, matcher);
}

Outcome with_exceptions(const TraceTables& tables, const std::vector<BucketEvent>& events, const Query& query,
                        const std::vector<OutOfOrderEnd>& ends) {
  Aggregator aggregator(tables, query);
  BlockMatcher matcher(FreePairing::kBucketLifoWithExceptions, aggregator);
  EXPECT_EQ(matcher.counting(), !aggregator.needs_blocks());
  std::size_t next = 0;
  for (const BucketEvent& e : events) {
    matcher.set_time(e.ns);
    bool taken = false;
    while (next < ends.size() && ends[next].seq == matcher.event_count()) {
      const OutOfOrderEnd& end = ends[next++];
      EXPECT_TRUE(matcher.end_out_of_order(end.block, end.temporary, e.thread));
      if (!end.is_free) {
        ++matcher.anomalies().alloc_over_live;
        continue;
      }
      EXPECT_TRUE(e.free);
      EXPECT_EQ(end.block.bucket, e.bucket);
      taken = true;
      break;
    }
    if (taken) continue;
    if (e.free) {
      EXPECT_TRUE(matcher.free_bucket(e.bucket, e.thread));
    } else {
      matcher.alloc(e.bucket, 0, e.thread);
    }
  }
  EXPECT_EQ(next, ends.size());
  return outcome_of(aggregator, matcher);
}

TEST(OutOfOrderEnds, LifoPlusExceptionsAnswersAsTheReadingByAddress) {
  std::vector<BucketId> buckets;
  const TraceTables tables = test::make_bucket_grid(5, 2, buckets);
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const std::vector<AddressEvent> events = make_events(seed, buckets);
    for (const auto& [name, query] : test::one_query_per_layout(40'000'000, 200'000'000, true)) {
      SCOPED_TRACE(fmt::format("seed {}, {}", seed, name));
      Collect ends;
      std::vector<BucketEvent> interpreted;
      const Outcome exact = by_address(tables, events, query, ends, interpreted);
      const Outcome told = with_exceptions(tables, interpreted, query, ends.ends);
      // The streams do exercise both kinds of out-of-order end.
      EXPECT_GT(std::count_if(ends.ends.begin(), ends.ends.end(), [](const OutOfOrderEnd& e) { return e.is_free; }), 50);
      EXPECT_GT(exact.alloc_over_live, 10u);
      EXPECT_EQ(told.events, exact.events);
      EXPECT_EQ(told.blocks, exact.blocks);
      EXPECT_EQ(told.live, exact.live);
      EXPECT_EQ(told.alloc_over_live, exact.alloc_over_live);
      EXPECT_EQ(told.json, exact.json);
    }
  }
}

TEST(OutOfOrderEnds, AClaimThatDoesNotHoldIsRefused) {
  std::vector<BucketId> buckets;
  const TraceTables tables = test::make_bucket_grid(5, 2, buckets);
  Query lifetime;
  lifetime.lifetime_min_ns = 1;
  Aggregator aggregator(tables, lifetime);
  BlockMatcher matcher(FreePairing::kBucketLifoWithExceptions, aggregator);
  matcher.set_exceptions_file("x.hqid");
  ASSERT_FALSE(matcher.counting());
  matcher.set_time(5);
  matcher.alloc(buckets[0], 0);
  matcher.alloc(buckets[0], 0);
  // No block 7; block 0 was allocated at 5 ns, not 4.
  EXPECT_FALSE(matcher.end_out_of_order(LiveBlock{BlockId(7), buckets[0], 0, 5}, false));
  EXPECT_TRUE(matcher.end_out_of_order(LiveBlock{BlockId(0), buckets[0], 0, 4}, false));
  EXPECT_FALSE(matcher.end_out_of_order(LiveBlock{BlockId(0), buckets[0], 0, 4}, false));  // ended already
  EXPECT_TRUE(matcher.free_bucket(buckets[0]));  // block 1
  EXPECT_FALSE(matcher.free_bucket(buckets[0]));  // block 0 has ended
  try {
    matcher.finish();  // block 0 was not allocated as claimed
    ADD_FAILURE() << "a wrong claim was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.hqid: disagrees with the trace"), std::string::npos) << e.what();
  }
}

TEST(OutOfOrderEnds, CountingRefusesAFreeOfAnAllocationTimeWithNoLiveBlock) {
  std::vector<BucketId> buckets;
  const TraceTables tables = test::make_bucket_grid(5, 2, buckets);
  Query window;
  window.window.begin_ns = 10;
  Aggregator aggregator(tables, window);
  BlockMatcher matcher(FreePairing::kBucketLifoWithExceptions, aggregator);
  ASSERT_TRUE(matcher.counting());
  matcher.set_time(20);
  matcher.alloc(buckets[0], 0);
  EXPECT_FALSE(matcher.end_out_of_order(LiveBlock{BlockId(0), buckets[0], 0, 5}, false));  // none before the window
  EXPECT_TRUE(matcher.end_out_of_order(LiveBlock{BlockId(0), buckets[0], 0, 20}, false));
}

}  // namespace
}  // namespace heapql
