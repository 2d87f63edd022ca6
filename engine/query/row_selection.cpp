// The rows shown (row_selection.h): the top N candidates by value, the
// ties among them ranked by key, the rest summed as [other].
#include "engine/query/row_selection.h"

#include <algorithm>
#include <functional>

#include "engine/query/group_key.h"

namespace heapql {

namespace {

// The rows among which the top `shown` by value are chosen: those shown,
// and every row tied with the last of them (their order is decided by key).
// Ascending; one pass keeps the `shown` largest values seen (a min-heap),
// a second collects the rows at or above the smallest of them.
struct Candidates {
  std::vector<std::uint32_t> rows;
  std::vector<std::uint64_t> values;  // each one's sort value
};
Candidates top_candidates(std::size_t count, const SortValueChunks& chunks, std::size_t shown) {
  Candidates candidates;
  if (shown == 0) return candidates;
  std::uint64_t threshold = 0;
  if (shown < count) {
    std::vector<std::uint64_t> largest;
    largest.reserve(shown);
    const auto greater = std::greater<std::uint64_t>();
    chunks([&](std::span<const std::uint64_t> values) {
      for (const std::uint64_t v : values) {
        if (largest.size() < shown) {
          largest.push_back(v);
          std::push_heap(largest.begin(), largest.end(), greater);
        } else if (v > largest.front()) {
          std::pop_heap(largest.begin(), largest.end(), greater);
          largest.back() = v;
          std::push_heap(largest.begin(), largest.end(), greater);
        }
      }
    });
    threshold = largest.front();
  }
  std::size_t row = 0;
  chunks([&](std::span<const std::uint64_t> values) {
    for (const std::uint64_t v : values) {
      if (v >= threshold) {
        candidates.rows.push_back(static_cast<std::uint32_t>(row));
        candidates.values.push_back(v);
      }
      ++row;
    }
  });
  return candidates;
}

// a - b, field by field (b is a part of a sum a).
Measures minus(const Measures& a, const Measures& b) {
  Measures d;
  d.so = a.so - b.so;
  d.soc = a.soc - b.soc;
  d.st = a.st - b.st;
  d.stc = a.stc - b.stc;
  d.src = a.src - b.src;
  d.count = a.count - b.count;
  d.size = a.size - b.size;
  d.impacting =
      static_cast<std::int64_t>(static_cast<std::uint64_t>(a.impacting) - static_cast<std::uint64_t>(b.impacting));
  d.blocks = a.blocks - b.blocks;
  return d;
}

}  // namespace

void show_rows(Result& r, const TraceTables& tables, const Query& query, std::span<const std::uint64_t> sort_values,
               const std::function<void(std::uint32_t row, std::uint64_t* values)>& key_values_of,
               const std::function<std::vector<Measures>(std::span<const std::uint32_t> rows)>& measures_of) {
  show_rows(
      r, tables, query, sort_values.size(),
      [&](const std::function<void(std::span<const std::uint64_t>)>& visit) { visit(sort_values); }, key_values_of,
      measures_of);
}

void show_rows(Result& r, const TraceTables& tables, const Query& query, std::size_t present_rows,
               const SortValueChunks& sort_values,
               const std::function<void(std::uint32_t row, std::uint64_t* values)>& key_values_of,
               const std::function<std::vector<Measures>(std::span<const std::uint32_t> rows)>& measures_of) {
  const std::size_t shown = std::min<std::size_t>(present_rows, query.top);
  Candidates top = top_candidates(present_rows, sort_values, shown);
  const std::vector<std::uint32_t>& order = top.rows;
  const std::size_t candidates = order.size();

  // Order the candidates on ids and ranks, then render only those shown.
  const std::size_t width = query.by.size();
  std::vector<std::uint64_t> row_values(candidates * width);
  for (std::size_t i = 0; i < candidates; ++i) key_values_of(order[i], row_values.data() + i * width);
  // What the order reads of a candidate, side by side: read through
  // `order`, a sort of many rows missed the cache.
  struct Candidate {
    std::uint64_t value;
    std::uint32_t key_rank;  // among the candidates tied with it on value
    std::uint32_t position;
  };
  std::vector<Candidate> sorted(candidates);
  for (std::uint32_t i = 0; i < candidates; ++i) sorted[i] = Candidate{top.values[i], 0, i};
  top.values = {};
  const auto larger = [](const Candidate& a, const Candidate& b) { return a.value > b.value; };
  if (shown < candidates) {
    // The candidates beyond the rows shown all tie with the last of them:
    // only those above it are sorted by value (a million tied rows past a
    // top 20 were).
    const std::uint64_t threshold =
        std::min_element(sorted.begin(), sorted.end(), [](const Candidate& a, const Candidate& b) {
          return a.value < b.value;
        })->value;
    const auto above =
        std::partition(sorted.begin(), sorted.end(), [&](const Candidate& c) { return c.value > threshold; });
    std::sort(sorted.begin(), above, larger);
  } else {
    std::sort(sorted.begin(), sorted.end(), larger);
  }
  struct Run {
    std::size_t begin, end;
  };
  std::vector<Run> tied_runs;
  // Runs of equal values that reach the rows shown: only their keys are
  // ordered, and in a run that passes the last row shown, only as far as
  // it. Ranking every candidate's key cost more than the rest of a query
  // whose values rarely tie, or tie in a million rows past the top 20.
  const KeyOrder key_order(tables, query.by);  // made even with no ties: the shown stacks' texts
  std::vector<std::uint64_t> run_values;
  for (std::size_t begin = 0; begin < shown;) {
    std::size_t end = begin + 1;
    while (end < candidates && sorted[end].value == sorted[begin].value) ++end;
    if (end - begin > 1) {
      run_values.clear();
      for (std::size_t i = begin; i < end; ++i) {
        const std::uint64_t* values = row_values.data() + std::size_t{sorted[i].position} * width;
        run_values.insert(run_values.end(), values, values + width);
      }
      const std::vector<std::uint32_t> ranks = key_order.rank(run_values, shown - begin);
      for (std::size_t i = begin; i < end; ++i) sorted[i].key_rank = ranks[i - begin];
      tied_runs.push_back({begin, end});
    }
    begin = end;
  }
  const auto values_of = [&](std::uint32_t position) {
    return std::span<const std::uint64_t>(row_values.data() + std::size_t{position} * width, width);
  };
  const auto before = [&](const Candidate& a, const Candidate& b) {
    if (a.key_rank != b.key_rank) return a.key_rank < b.key_rank;
    // Keys that render alike (rare): by their ids, which do not depend on how
    // rows were numbered (a store's stack view and a one-shot query agree).
    const auto ids_a = values_of(a.position), ids_b = values_of(b.position);
    return std::lexicographical_compare(ids_a.begin(), ids_a.end(), ids_b.begin(), ids_b.end()) ||
           (std::equal(ids_a.begin(), ids_a.end(), ids_b.begin(), ids_b.end()) &&
            order[a.position] < order[b.position]);
  };
  for (const Run& run : tied_runs) {
    const auto first = sorted.begin() + static_cast<std::ptrdiff_t>(run.begin);
    const auto last = sorted.begin() + static_cast<std::ptrdiff_t>(run.end);
    if (run.end <= shown) {
      std::sort(first, last, before);
    } else {
      std::partial_sort(first, sorted.begin() + static_cast<std::ptrdiff_t>(shown), last, before);
    }
  }
  std::vector<std::uint32_t> positions(shown);
  for (std::size_t i = 0; i < shown; ++i) positions[i] = sorted[i].position;

  std::vector<std::uint32_t> shown_rows(shown);
  for (std::size_t i = 0; i < shown; ++i) shown_rows[i] = order[positions[i]];
  const std::vector<Measures> measures = measures_of(shown_rows);

  Measures shown_sum;
  r.rows.reserve(shown);
  for (std::size_t i = 0; i < shown; ++i) {
    Row row;
    row.measures = measures[i];
    shown_sum.add(measures[i]);
    const std::span<const std::uint64_t> values = values_of(positions[i]);
    for (std::size_t level = 0; level < width; ++level) {
      row.key.push_back(render_key_value(tables, query.by[level], values[level], key_order.frame_texts()));
    }
    r.rows.push_back(std::move(row));
  }
  if (present_rows > shown) {
    r.other = minus(r.totals, shown_sum);
    r.other_rows = present_rows - shown;
  }
}

}  // namespace heapql
