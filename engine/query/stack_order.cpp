#include "engine/query/stack_order.h"

#include "engine/query/order_ranks.h"

namespace heapql {

std::vector<std::uint32_t> rank_stacks(const TraceTables& tables, std::span<const std::uint32_t> frame_rank,
                                       std::span<const StackId> stacks, std::size_t needed) {
  // A cursor is a stack node: the frame reached, and the rest through its
  // parents. Two stacks at one node have the same frames from there on.
  return rank_sequences(
      stacks,
      [&](StackId at) { return at.valid() ? frame_rank[tables.stack(at).frame.index()] + 1 : 0; },
      [&](StackId at) { return tables.stack(at).parent; }, needed);
}

}  // namespace heapql
