// Ranks of stacks in the key order (semantics.md §3): frame by frame from
// the top, by the frames' texts, a stack that ends first (a prefix) first.
// Sorting by comparisons walks the frames two stacks share at their top in
// every comparison, and a trace's stacks are often alike for tens of
// frames. Ranking them together walks each stack's frames once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/store/trace_tables.h"

namespace heapql {

// One rank per entry of `stacks` (duplicates allowed; an invalid id is a
// stack of no frames): the number of entries that sort before it, equal for
// stacks whose frames have equal texts; exact for the `needed` first, no
// smaller than theirs for the others (rank_sequences). `frame_rank` gives
// each frame's position among the frames' texts, equal texts equal, by
// FrameId.
std::vector<std::uint32_t> rank_stacks(const TraceTables& tables, std::span<const std::uint32_t> frame_rank,
                                       std::span<const StackId> stacks, std::size_t needed = SIZE_MAX);

}  // namespace heapql
