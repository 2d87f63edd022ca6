// Ranks in an order: numbers from 0, equal for equal items, that compare as
// the items do. Sorting many rows on one number each replaces
// comparing their keys, which for stacks meant walking the frames two stacks
// share in every comparison.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace heapql {

// Each text's rank among `texts`, by their bytes.
std::vector<std::uint32_t> ranks_by_text(const std::vector<std::string>& texts);
// The same among some of them: sorts `items` (indices into `texts`) by
// their texts and sets `rank_of[item]` for each; other entries are left.
void rank_items_by_text(const std::vector<std::string>& texts, std::vector<std::uint32_t>& items,
                        std::vector<std::uint32_t>& rank_of);

// Each key's rank, keys being `width` ranks each (key k at k * width),
// compared level by level, the first level first.
std::vector<std::uint32_t> ranks_of_tuples(const std::vector<std::uint32_t>& level_ranks, std::size_t width);

// The ranks of `count` keys of `width` levels, given each level's ranks by
// key (`rank_level(level)`): level by level, the first level first.
template <class RankLevel>
std::vector<std::uint32_t> ranks_level_by_level(std::size_t count, std::size_t width, RankLevel rank_level) {
  std::vector<std::uint32_t> level_ranks(count * width);  // per key, per level
  for (std::size_t level = 0; level < width; ++level) {
    const std::vector<std::uint32_t> rank = rank_level(level);
    for (std::size_t k = 0; k < count; ++k) level_ranks[k * width + level] = rank[k];
  }
  return ranks_of_tuples(level_ranks, width);
}

// Ranks of sequences compared symbol by symbol, one that ends first (a
// prefix) first: a sequence's rank is the number of sequences that sort
// before it. A sequence is read through a cursor: `symbol_of(cursor)` is 0
// where the sequence has ended, else 1 + the rank of its symbol there, and
// `next(cursor)` moves to the following symbol. Cursors that are equal read
// equal sequences from there on (two stacks that reach one tree node). Each
// sequence is read once, up to where it differs from every other. Only the
// `needed` first sequences are ranked exactly; any other gets a rank no
// smaller than theirs (top N of a million tied rows reads only the few
// sequences near the front).
// `sequences`: the cursors at each sequence's start (a vector or a span).
template <class Sequences, class SymbolOf, class Next>
std::vector<std::uint32_t> rank_sequences(const Sequences& sequences, SymbolOf symbol_of, Next next,
                                          std::size_t needed = SIZE_MAX) {
  using Cursor = typename Sequences::value_type;
  struct Item {
    std::uint32_t position;  // in `sequences`
    std::uint32_t symbol;
    Cursor cursor;  // the items of a range agree on every symbol before it
  };
  struct Range {
    std::size_t begin, end;
  };
  std::vector<Item> items(sequences.size());
  for (std::size_t i = 0; i < sequences.size(); ++i) items[i] = Item{static_cast<std::uint32_t>(i), 0, sequences[i]};
  // starts_class[i]: items[i] differs from items[i - 1]. A range is a run of
  // items equal so far; the symbols at its cursors split it, or it ends.
  // Ranges are taken smallest first, so that every item before the range
  // being split is ranked.
  std::vector<bool> starts_class(items.size(), false);
  std::vector<Range> pending;
  if (!items.empty()) {
    starts_class[0] = true;
    pending.push_back({0, items.size()});
  }
  const auto by_symbol = [](const Item& a, const Item& b) { return a.symbol < b.symbol; };
  std::vector<Item> scratch;
  while (!pending.empty()) {
    const Range range = pending.back();
    if (range.begin >= needed) break;  // the rest rank no smaller, each range as one
    pending.pop_back();
    const auto first = items.begin() + static_cast<std::ptrdiff_t>(range.begin);
    const auto last = items.begin() + static_cast<std::ptrdiff_t>(range.end);
    bool one_cursor = true, one_symbol = true;
    std::uint32_t largest = 0;
    for (auto it = first; it != last; ++it) {
      it->symbol = symbol_of(it->cursor);
      one_cursor = one_cursor && it->cursor == first->cursor;
      one_symbol = one_symbol && it->symbol == first->symbol;
      largest = std::max(largest, it->symbol);
    }
    if (one_cursor) continue;
    auto sorted_end = last;  // items past it are past the `needed` first: one class, never split
    if (!one_symbol && needed < range.end && range.end - range.begin >= 256) {
      // Only the items up to the needed last one are sorted: the rest, whose
      // symbol is larger, are set apart in linear time.
      const auto nth = first + static_cast<std::ptrdiff_t>(needed - range.begin);
      std::nth_element(first, nth, last, by_symbol);
      const std::uint32_t cutoff = nth->symbol;
      sorted_end = std::partition(nth, last, [&](const Item& item) { return item.symbol == cutoff; });
      if (sorted_end != last) starts_class[static_cast<std::size_t>(sorted_end - items.begin())] = true;
      std::sort(first, sorted_end, by_symbol);
    } else if (!one_symbol) {
      // A range with more items than symbols (the first, of every stack) is
      // sorted by counting, in linear time.
      const std::size_t size = range.end - range.begin;
      if (size >= 256 && std::size_t{largest} < size) {
        std::vector<std::size_t> starts(std::size_t{largest} + 2, 0);
        for (auto it = first; it != last; ++it) ++starts[it->symbol + 1];
        std::partial_sum(starts.begin(), starts.end(), starts.begin());
        scratch.resize(size);
        for (auto it = first; it != last; ++it) scratch[starts[it->symbol]++] = *it;
        std::copy(scratch.begin(), scratch.end(), first);
      } else {
        std::sort(first, last, by_symbol);
      }
    }
    const std::size_t pushed = pending.size();
    for (auto group = first; group != sorted_end;) {
      const auto group_end = std::upper_bound(group, sorted_end, *group, by_symbol);
      starts_class[static_cast<std::size_t>(group - items.begin())] = true;
      if (group->symbol != 0 && group_end - group > 1) {
        for (auto it = group; it != group_end; ++it) it->cursor = next(it->cursor);
        pending.push_back(
            {static_cast<std::size_t>(group - items.begin()), static_cast<std::size_t>(group_end - items.begin())});
      }
      group = group_end;
    }
    std::reverse(pending.begin() + static_cast<std::ptrdiff_t>(pushed), pending.end());  // smallest on top
  }
  std::vector<std::uint32_t> ranks(items.size());
  std::uint32_t rank = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (starts_class[i]) rank = static_cast<std::uint32_t>(i);
    ranks[items[i].position] = rank;
  }
  return ranks;
}

}  // namespace heapql
