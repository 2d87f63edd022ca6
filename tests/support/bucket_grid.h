// For tests that replay random bucket events through the aggregator: a grid
// of buckets (stacks of growing depth x sizes x threads) and one query for
// each bucket-state layout the aggregator has (docs/architecture.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/query/query.h"
#include "engine/store/trace_tables.h"

namespace heapql::test {

// A bucket event at a time on a thread: an allocation or a free.
struct BucketEvent {
  std::int64_t ns;
  std::uint32_t thread;
  BucketId bucket;
  bool free;
};

// `frames` stacks (every second one the parent of the next), a bucket for
// each stack and thread (`threads`), sizes 16, 32 and 48 bytes by turns.
TraceTables make_bucket_grid(int frames, std::uint32_t threads, std::vector<BucketId>& buckets);

// By stack and thread, with no default culling: the whole trace, temporary
// blocks only, a window from `begin_ns` with no end, the window
// [begin_ns, end_ns) by impacting type, and at the peak; all counted by
// bucket. With `with_lifetime`, also a lifetime filter, which keeps blocks.
std::vector<std::pair<std::string, Query>> one_query_per_layout(std::int64_t begin_ns, std::int64_t end_ns,
                                                                bool with_lifetime);

}  // namespace heapql::test
