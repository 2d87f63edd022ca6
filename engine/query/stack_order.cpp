#include "engine/query/stack_order.h"

#include <algorithm>

namespace heapql {

namespace {

struct Item {
  std::uint32_t position;  // in the caller's list
  StackId cursor;          // the frame reached: stacks in one range agree on every frame above it
  std::uint32_t symbol;    // 0: the stack has ended; else 1 + the rank of the cursor's frame
};

struct Range {
  std::size_t begin, end;
};

}  // namespace

std::vector<std::uint32_t> rank_stacks(const TraceTables& tables, std::span<const std::uint32_t> frame_rank,
                                       std::span<const StackId> stacks) {
  std::vector<Item> items(stacks.size());
  for (std::size_t i = 0; i < stacks.size(); ++i) items[i] = Item{static_cast<std::uint32_t>(i), stacks[i], 0};
  // starts_class[i]: items[i] differs from items[i - 1]. A range is a run of
  // items equal so far; it is split by the frame at the cursors, or ends.
  std::vector<bool> starts_class(items.size(), false);
  std::vector<Range> pending;
  if (!items.empty()) {
    starts_class[0] = true;
    pending.push_back({0, items.size()});
  }
  const auto by_symbol = [](const Item& a, const Item& b) { return a.symbol < b.symbol; };
  while (!pending.empty()) {
    const Range range = pending.back();
    pending.pop_back();
    const auto first = items.begin() + static_cast<std::ptrdiff_t>(range.begin);
    const auto last = items.begin() + static_cast<std::ptrdiff_t>(range.end);
    bool one_node = true, one_symbol = true;
    for (auto it = first; it != last; ++it) {
      it->symbol = it->cursor.valid() ? frame_rank[tables.stack(it->cursor).frame.index()] + 1 : 0;
      one_node = one_node && it->cursor == first->cursor;
      one_symbol = one_symbol && it->symbol == first->symbol;
    }
    if (one_node) continue;  // the same node: the same frames from here on
    if (!one_symbol) std::sort(first, last, by_symbol);
    for (auto group = first; group != last;) {
      const auto group_end = std::upper_bound(group, last, *group, by_symbol);
      starts_class[static_cast<std::size_t>(group - items.begin())] = true;
      if (group->symbol != 0 && group_end - group > 1) {
        for (auto it = group; it != group_end; ++it) it->cursor = tables.stack(it->cursor).parent;
        pending.push_back(
            {static_cast<std::size_t>(group - items.begin()), static_cast<std::size_t>(group_end - items.begin())});
      }
      group = group_end;
    }
  }
  std::vector<std::uint32_t> ranks(items.size());
  std::uint32_t rank = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0 && starts_class[i]) ++rank;
    ranks[items[i].position] = rank;
  }
  return ranks;
}

}  // namespace heapql
