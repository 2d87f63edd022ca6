// Ranks in an order: dense numbers from 0, equal for equal items, that
// compare as the items do. Sorting many rows on one number each replaces
// comparing their keys, which for stacks meant walking the frames two stacks
// share in every comparison.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace heapql {

// Each text's rank among `texts`, by their bytes.
std::vector<std::uint32_t> ranks_by_text(const std::vector<std::string>& texts);

// Each key's rank, keys being `width` ranks each (key k at k * width),
// compared level by level, the first level first.
std::vector<std::uint32_t> ranks_of_tuples(const std::vector<std::uint32_t>& level_ranks, std::size_t width);

// Ranks of sequences compared symbol by symbol, one that ends first (a
// prefix) first. A sequence is read through a cursor: `symbol_of(cursor)` is
// 0 where the sequence has ended, else 1 + the rank of its symbol there, and
// `next(cursor)` moves to the following symbol. Cursors that are equal read
// equal sequences from there on (two stacks that reach one tree node). Each
// sequence is read once, up to where it differs from every other.
template <class Cursor, class SymbolOf, class Next>
std::vector<std::uint32_t> rank_sequences(const std::vector<Cursor>& sequences, SymbolOf symbol_of, Next next) {
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
    bool one_cursor = true, one_symbol = true;
    for (auto it = first; it != last; ++it) {
      it->symbol = symbol_of(it->cursor);
      one_cursor = one_cursor && it->cursor == first->cursor;
      one_symbol = one_symbol && it->symbol == first->symbol;
    }
    if (one_cursor) continue;
    if (!one_symbol) std::sort(first, last, by_symbol);
    for (auto group = first; group != last;) {
      const auto group_end = std::upper_bound(group, last, *group, by_symbol);
      starts_class[static_cast<std::size_t>(group - items.begin())] = true;
      if (group->symbol != 0 && group_end - group > 1) {
        for (auto it = group; it != group_end; ++it) it->cursor = next(it->cursor);
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
