// The store's precomputed answer to its most asked question: the whole
// trace grouped by culled stack under the built-in cull list, with no
// filter (docs/store.md, "The stack view"). One row per culled stack, in the
// order a query over the bucket sums numbers them (first met), with the five
// xperf measures; a query that asks exactly this reads these columns instead
// of rolling up every bucket. The view is tied to the cull list it was made
// with by a fingerprint, so a heapql whose built-in list differs ignores it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace heapql {

// The measures' order in the view: xperf's so, soc, st, stc, src.
inline constexpr std::size_t kViewMeasures = 5;

struct StackView {
  std::uint64_t cull_fingerprint = 0;
  std::uint64_t temporary_blocks = 0;
  std::array<std::uint64_t, kViewMeasures> totals{};
  std::span<const std::uint32_t> stacks;                             // a StackId value per row
  std::array<std::span<const std::uint64_t>, kViewMeasures> measures;  // a value per row each
  std::size_t rows() const { return stacks.size(); }
};

}  // namespace heapql
