// Which rows an answer shows, and in what order (semantics.md §3, §6): the
// top N by the sort measure, rows tied on it ordered by their keys (ranked
// together, not compared pair by pair), the rest summed as `[other]`. For
// the roll-up of bucket states and for the store's stack view alike.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/result.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// The rows' sort measures in row order, a chunk at a time: calls `visit`
// with each chunk's values, the first chunk's first row being row 0 (a
// packed view's column is decoded a chunk at a time, never whole).
using SortValueChunks = std::function<void(const std::function<void(std::span<const std::uint64_t>)>& visit)>;

// Chooses, orders and renders into r.rows the rows shown among the `rows`
// with blocks (numbered densely: `sort_values` gives each one's sort
// measure), and sums the rest into r.other from r.totals. The caller says
// how: key_values_of(row, out) writes a row's key values (one per `by`
// level); measures_of(rows shown, in order) returns their measures (it may
// free the sort values: they are not read after it is called).
void show_rows(Result& r, const TraceTables& tables, const Query& query, std::size_t rows,
               const SortValueChunks& sort_values,
               const std::function<void(std::uint32_t row, std::uint64_t* values)>& key_values_of,
               const std::function<std::vector<Measures>(std::span<const std::uint32_t> rows)>& measures_of);
// The same, the sort measures in one span.
void show_rows(Result& r, const TraceTables& tables, const Query& query, std::span<const std::uint64_t> sort_values,
               const std::function<void(std::uint32_t row, std::uint64_t* values)>& key_values_of,
               const std::function<std::vector<Measures>(std::span<const std::uint32_t> rows)>& measures_of);

}  // namespace heapql
