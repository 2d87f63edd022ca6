// How ingest makes the store's stack view (stack_view.h) without holding
// the bucket sums and the whole view at once: the column builder hands the
// sums over a chunk at a time, the query layer rolls them up
// (Aggregator::build_stack_view) and gives the view to a sink a part at a
// time, one measure's column after another; the store writer's sink writes
// each part to the file as it comes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>

#include "engine/store/stack_view.h"
#include "engine/store/store_columns.h"

namespace heapql {

// Calls `chunk` with every bucket sum, in order, a chunk at a time.
using BucketSumChunks = std::function<void(const std::function<void(std::span<const BucketSum>)>& chunk)>;

struct StackViewHead {
  std::uint64_t cull_fingerprint = 0;
  std::uint64_t rows = 0;
  std::uint64_t temporary_blocks = 0;
  std::array<std::uint64_t, kViewMeasures> totals{};
};

// Receives head(), then stacks() with a value per row, then measure() once
// for each of the kViewMeasures columns, in Measure order.
class StackViewSink {
 public:
  virtual ~StackViewSink() = default;
  virtual void head(const StackViewHead& head) = 0;
  virtual void stacks(std::span<const std::uint32_t> stacks) = 0;
  virtual void measure(std::span<const std::uint64_t> column) = 0;
};

}  // namespace heapql
