// The queries the store-reading fuzz targets ask of a store they could read:
// one of every kind the aggregator answers from a store (from its stack
// view, from its bucket sums, replaying it whole, and skipping to a window).
#pragma once

#include <algorithm>
#include <vector>

#include "engine/query/aggregator.h"
#include "engine/store/trace_store.h"

namespace heapql::fuzz {

inline void answer_every_way(const heapql::TraceStore& store) {
  using namespace heapql;
  const std::int64_t end = std::max<std::int64_t>(store.columns().end_ns, 3);
  std::vector<Query> queries(4);
  queries[0].by = {GroupBy::kStack};
  // Two thirds of `end` without 2 * end, which overflows for an end near 2^63.
  queries[1].window = {end / 3, end - end / 3};
  queries[1].impacting = {Impacting::kAifo, Impacting::kAofi};
  queries[1].by = {GroupBy::kImpacting, GroupBy::kStack};
  queries[2].window = {end / 2, std::nullopt};
  queries[2].block_set = BlockSet::kAtPeak;
  queries[2].by = {GroupBy::kFrame};
  queries[3].window = {end / 4, end / 2};
  queries[3].lifetime_min_ns = 1;
  queries[3].series_buckets = 4;
  queries[3].by = {GroupBy::kThread};
  for (std::size_t i = 0; i < queries.size(); ++i) {
    Aggregator aggregator(store.tables(), queries[i]);
    if (i == 0) store.replay(aggregator);
    else aggregator.answer_from(store);
    (void)aggregator.result(store.source());
  }
  Aggregator from_view(store.tables(), queries[0]);
  from_view.answer_from(store);
  (void)from_view.result(store.source());
  Query no_view = queries[0];  // another cull list: the bucket sums answer
  no_view.default_cull = false;
  Aggregator from_sums(store.tables(), no_view);
  from_sums.answer_from(store);
  (void)from_sums.result(store.source());
}

}  // namespace heapql::fuzz
