// The per-event cost of answering a query: a synthetic stream fed straight
// into an Aggregator through the EventConsumer interface (what a reader's
// block matcher does), the same stream replayed from a TraceStore, and the
// producers alone (store replay, block matcher) against a counting consumer.
// Reported as items_per_second = events per second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "bench/micro/synthetic_trace.h"
#include "engine/query/aggregator.h"
#include "engine/query/query.h"
#include "engine/ingest/block_matcher.h"
#include "engine/store/trace_store.h"

namespace heapql::bench {
namespace {

const SyntheticTrace& default_trace() {
  static const SyntheticTrace trace = make_trace();
  return trace;
}

std::int64_t items(const SyntheticTrace& t) {
  return static_cast<std::int64_t>(t.events.size() + t.still_alive.size());
}

Query by_stack_query() {
  Query q;
  q.by = {GroupBy::kStack};
  q.top = 10;
  return q;
}

// `heapql query --window T/4..3T/4 --by impacting,stack`: WPA's set of blocks.
Query impacting_query(const SyntheticTrace& t) {
  Query q;
  q.window.begin_ns = t.end_ns / 4;
  q.window.end_ns = t.end_ns / 4 * 3;
  q.by = {GroupBy::kImpacting, GroupBy::kStack};
  q.top = 10;
  return q;
}

// One query over the stream as a one-shot query sees it: construct, feed,
// finish, result.
void run_query(benchmark::State& state, const SyntheticTrace& t, const Query& query) {
  for (auto _ : state) {
    Aggregator aggregator(t.tables(), query);
    t.feed(aggregator);
    Result result = aggregator.result(t.source);
    benchmark::DoNotOptimize(result.totals.stc);
  }
  state.SetItemsProcessed(state.iterations() * items(t));
}

void BM_AggregatorByStack(benchmark::State& state) { run_query(state, default_trace(), by_stack_query()); }
BENCHMARK(BM_AggregatorByStack)->Unit(benchmark::kMillisecond);

// The same query fed as the heaptrack reader feeds a one-shot query: bucket
// events through a block matcher, in runs of events that share a timestamp.
void BM_AggregatorByStackBucketRuns(benchmark::State& state) {
  const SyntheticTrace& t = default_trace();
  struct Run {
    std::int64_t ns;
    std::vector<std::uint32_t> events;
  };
  std::vector<Run> runs;
  for (const Event& e : t.events) {
    const std::int64_t ns = e.alloc ? e.block.alloc_ns : e.free_ns;
    if (runs.empty() || runs.back().ns != ns) runs.push_back(Run{ns, {}});
    runs.back().events.push_back(e.block.bucket.value << 1 | (e.alloc ? 0u : 1u));
  }
  for (auto _ : state) {
    Aggregator aggregator(t.tables(), by_stack_query());
    BlockMatcher matcher(BlockIdentity::kBucketLifo, aggregator);
    for (const Run& run : runs) {
      matcher.set_time(run.ns);
      if (matcher.bucket_run(run.events) != run.events.size()) state.SkipWithError("a free found no live block");
    }
    matcher.finish();
    Result result = aggregator.result(t.source);
    benchmark::DoNotOptimize(result.totals.stc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(t.events.size()));
  state.counters["runs"] = static_cast<double>(runs.size());
}
BENCHMARK(BM_AggregatorByStackBucketRuns)->Unit(benchmark::kMillisecond);

void BM_AggregatorImpacting(benchmark::State& state) {
  run_query(state, default_trace(), impacting_query(default_trace()));
}
BENCHMARK(BM_AggregatorImpacting)->Unit(benchmark::kMillisecond);

void BM_AggregatorTotals(benchmark::State& state) {
  Query q;
  q.totals_only = true;
  run_query(state, default_trace(), q);
}
BENCHMARK(BM_AggregatorTotals)->Unit(benchmark::kMillisecond);

void BM_AggregatorAtPeakByStack(benchmark::State& state) {
  Query q = by_stack_query();
  q.block_set = BlockSet::kAtPeak;
  run_query(state, default_trace(), q);
}
BENCHMARK(BM_AggregatorAtPeakByStack)->Unit(benchmark::kMillisecond);

// TraceStore replay alone (a consumer that only counts), then replay into a
// --by stack aggregator: what `heapql query --store` pays after loading.
void BM_StoreReplay(benchmark::State& state) {
  const SyntheticTrace& t = default_trace();
  for (auto _ : state) {
    CountingConsumer counter;
    t.store->replay(counter);
    benchmark::DoNotOptimize(counter.sum());
  }
  state.SetItemsProcessed(state.iterations() * items(t));
}
BENCHMARK(BM_StoreReplay)->Unit(benchmark::kMillisecond);

void BM_StoreReplayByStack(benchmark::State& state) {
  const SyntheticTrace& t = default_trace();
  const Query query = by_stack_query();
  for (auto _ : state) {
    Aggregator aggregator(t.tables(), query);
    t.store->replay(aggregator);
    Result result = aggregator.result(t.source);
    benchmark::DoNotOptimize(result.totals.stc);
  }
  state.SetItemsProcessed(state.iterations() * items(t));
}
BENCHMARK(BM_StoreReplayByStack)->Unit(benchmark::kMillisecond);

void BM_StoreReplayImpacting(benchmark::State& state) {
  const SyntheticTrace& t = default_trace();
  const Query query = impacting_query(t);
  for (auto _ : state) {
    Aggregator aggregator(t.tables(), query);
    t.store->replay(aggregator);
    Result result = aggregator.result(t.source);
    benchmark::DoNotOptimize(result.totals.count);
  }
  state.SetItemsProcessed(state.iterations() * items(t));
}
BENCHMARK(BM_StoreReplayImpacting)->Unit(benchmark::kMillisecond);

// Building the store's columns from the stream (what `--load` adds to a read).
void BM_StoreBuild(benchmark::State& state) {
  const SyntheticTrace& t = default_trace();
  for (auto _ : state) {
    TraceStore store;
    TraceStore::Builder builder(store);
    t.feed(builder);
    benchmark::DoNotOptimize(store.block_count());
  }
  state.SetItemsProcessed(state.iterations() * items(t));
}
BENCHMARK(BM_StoreBuild)->Unit(benchmark::kMillisecond);

// The heaptrack reader's pairing (bucket LIFO, no addresses) and the raw
// reader's (exact, by address), against a counting consumer.
void BM_BlockMatcherBucketLifo(benchmark::State& state) {
  const SyntheticTrace& t = default_trace();
  for (auto _ : state) {
    CountingConsumer counter;
    BlockMatcher matcher(BlockIdentity::kBucketLifo, counter);
    for (const Event& e : t.events) {
      if (e.alloc) {
        matcher.set_time(e.block.alloc_ns);
        matcher.alloc(e.block.bucket, 0);
      } else {
        matcher.set_time(e.free_ns);
        matcher.free_bucket(e.block.bucket);
      }
    }
    matcher.finish();
    benchmark::DoNotOptimize(counter.sum());
  }
  state.SetItemsProcessed(state.iterations() * items(t));
}
BENCHMARK(BM_BlockMatcherBucketLifo)->Unit(benchmark::kMillisecond);

void BM_BlockMatcherExact(benchmark::State& state) {
  const SyntheticTrace& t = default_trace();
  // Block addresses: distinct per live block, reused after a free, as malloc does.
  const auto address = [](const LiveBlock& b) { return 0x7f0000000000ull + std::uint64_t{b.id.value} * 48; };
  for (auto _ : state) {
    CountingConsumer counter;
    BlockMatcher matcher(BlockIdentity::kExact, counter);
    for (const Event& e : t.events) {
      if (e.alloc) {
        matcher.set_time(e.block.alloc_ns);
        matcher.alloc(e.block.bucket, address(e.block));
      } else {
        matcher.set_time(e.free_ns);
        matcher.free_address(address(e.block));
      }
    }
    matcher.finish();
    benchmark::DoNotOptimize(counter.sum());
  }
  state.SetItemsProcessed(state.iterations() * items(t));
}
BENCHMARK(BM_BlockMatcherExact)->Unit(benchmark::kMillisecond);

// Aggregator::result() alone for --by stack --top 10 as the number of
// distinct stacks grows (the real 47 M-call Python trace has ~500 k): the
// stream is fed outside the timing; items = rows (distinct stacks).
void BM_AggregatorResultByStack(benchmark::State& state) {
  Shape shape;
  shape.leaf_stacks = static_cast<std::size_t>(state.range(0));
  shape.sizes_per_stack = 1;
  shape.events = shape.leaf_stacks * 8;
  shape.target_live = shape.leaf_stacks;
  shape.skewed = false;
  const SyntheticTrace t = make_trace(shape);
  const Query query = by_stack_query();
  std::size_t rows = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto aggregator = std::make_unique<Aggregator>(t.tables(), query);
    t.feed(*aggregator);
    state.ResumeTiming();
    Result result = aggregator->result(t.source);
    rows = result.rows.size() + result.other_rows;
    benchmark::DoNotOptimize(result.totals.stc);
    state.PauseTiming();
    aggregator.reset();
    state.ResumeTiming();
  }
  state.counters["rows"] = static_cast<double>(rows);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(rows));
}
BENCHMARK(BM_AggregatorResultByStack)->Arg(1000)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace heapql::bench
