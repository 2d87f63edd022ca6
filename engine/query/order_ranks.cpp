#include "engine/query/order_ranks.h"

namespace heapql {

namespace {

// Dense ranks of the items 0..n-1, given in order, a new rank wherever
// `differs(previous, item)`.
template <class Differs>
std::vector<std::uint32_t> ranks_in_order(const std::vector<std::uint32_t>& order, Differs differs) {
  std::vector<std::uint32_t> rank(order.size());
  std::uint32_t r = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && differs(order[i - 1], order[i])) ++r;
    rank[order[i]] = r;
  }
  return rank;
}

}  // namespace

std::vector<std::uint32_t> ranks_by_text(const std::vector<std::string>& texts) {
  std::vector<std::uint32_t> order(texts.size()), rank(texts.size());
  std::iota(order.begin(), order.end(), 0u);
  rank_items_by_text(texts, order, rank);
  return rank;
}

void rank_items_by_text(const std::vector<std::string>& texts, std::vector<std::uint32_t>& items,
                        std::vector<std::uint32_t>& rank_of) {
  std::sort(items.begin(), items.end(), [&](std::uint32_t a, std::uint32_t b) { return texts[a] < texts[b]; });
  std::uint32_t r = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0 && texts[items[i - 1]] != texts[items[i]]) ++r;
    rank_of[items[i]] = r;
  }
}

std::vector<std::uint32_t> ranks_of_tuples(const std::vector<std::uint32_t>& level_ranks, std::size_t width) {
  if (width == 1) return level_ranks;
  const std::size_t keys = width == 0 ? 0 : level_ranks.size() / width;
  const auto begin_of = [&](std::uint32_t k) { return level_ranks.begin() + static_cast<std::ptrdiff_t>(k * width); };
  const auto end_of = [&](std::uint32_t k) { return begin_of(k) + static_cast<std::ptrdiff_t>(width); };
  std::vector<std::uint32_t> order(keys);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::lexicographical_compare(begin_of(a), end_of(a), begin_of(b), end_of(b));
  });
  return ranks_in_order(
      order, [&](std::uint32_t a, std::uint32_t b) { return !std::equal(begin_of(a), end_of(a), begin_of(b)); });
}

}  // namespace heapql
