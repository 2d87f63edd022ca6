// Every field of Query, listed once with what it changes in an answer
// (QueryFieldRole), and the answer form built from that list: the
// normalized query that two queries with the same answer share. Whoever
// answers a query from something made for another query (the store's stack
// view) compares answer forms, never a hand-kept list of fields. A field
// added to Query and not here fails the build (query_fields.cpp).
#pragma once

#include <string_view>
#include <tuple>

#include "engine/query/query.h"
#include "engine/util/aggregate_field_count.h"

namespace heapql {

enum class QueryFieldRole {
  kAnswer,        // which blocks count, and what is measured of them
  kRows,          // which rows the answer has (answer_form: what of them totals keep)
  kPresentation,  // how rows are ordered, cut and labelled: nothing counted changes
};

template <class T>
struct QueryField {
  std::string_view name;
  T Query::*member;
  QueryFieldRole role;
};

inline constexpr auto kQueryFields = std::tuple{
    QueryField<TimeWindow>{"window", &Query::window, QueryFieldRole::kAnswer},
    QueryField<BlockSet>{"block_set", &Query::block_set, QueryFieldRole::kAnswer},
    QueryField<std::uint64_t>{"size_min", &Query::size_min, QueryFieldRole::kAnswer},
    QueryField<std::optional<std::uint64_t>>{"size_end", &Query::size_end, QueryFieldRole::kAnswer},
    QueryField<std::optional<std::int64_t>>{"lifetime_min_ns", &Query::lifetime_min_ns, QueryFieldRole::kAnswer},
    QueryField<std::optional<std::int64_t>>{"lifetime_end_ns", &Query::lifetime_end_ns, QueryFieldRole::kAnswer},
    QueryField<std::vector<std::string>>{"processes", &Query::processes, QueryFieldRole::kAnswer},
    QueryField<std::vector<std::string>>{"heaps", &Query::heaps, QueryFieldRole::kAnswer},
    QueryField<std::vector<BlockKind>>{"kinds", &Query::kinds, QueryFieldRole::kAnswer},
    QueryField<std::vector<std::uint32_t>>{"threads", &Query::threads, QueryFieldRole::kAnswer},
    QueryField<std::vector<Impacting>>{"impacting", &Query::impacting, QueryFieldRole::kAnswer},
    QueryField<bool>{"temporary_only", &Query::temporary_only, QueryFieldRole::kAnswer},
    QueryField<std::vector<std::string>>{"require", &Query::require, QueryFieldRole::kAnswer},
    QueryField<std::vector<std::string>>{"cull", &Query::cull, QueryFieldRole::kAnswer},
    QueryField<std::vector<std::string>>{"cull_files", &Query::cull_files, QueryFieldRole::kAnswer},
    QueryField<bool>{"default_cull", &Query::default_cull, QueryFieldRole::kAnswer},
    // The label reports show for the cull patterns; the patterns themselves are above.
    QueryField<std::string>{"cull_origin", &Query::cull_origin, QueryFieldRole::kPresentation},
    QueryField<std::vector<std::string>>{"exclude", &Query::exclude, QueryFieldRole::kAnswer},
    QueryField<std::vector<std::string>>{"suppressions", &Query::suppressions, QueryFieldRole::kAnswer},
    QueryField<std::vector<std::string>>{"suppression_files", &Query::suppression_files, QueryFieldRole::kAnswer},
    QueryField<bool>{"embedded_suppressions", &Query::embedded_suppressions, QueryFieldRole::kAnswer},
    QueryField<std::vector<GroupBy>>{"by", &Query::by, QueryFieldRole::kRows},
    // Every row is counted whatever the sort and the cut; `[other]` sums the rest.
    QueryField<Measure>{"sort", &Query::sort, QueryFieldRole::kPresentation},
    QueryField<std::uint64_t>{"top", &Query::top, QueryFieldRole::kPresentation},
    QueryField<bool>{"totals_only", &Query::totals_only, QueryFieldRole::kRows},
    QueryField<std::uint32_t>{"series_buckets", &Query::series_buckets, QueryFieldRole::kAnswer},
    // The drill-down is an extra section of the answer, made by a pass of its
    // own over the store (row_detail.h) after the rows are chosen: the rows
    // and totals are those of the query without it, so whatever answers
    // those (the stack view) still answers them.
    QueryField<std::optional<std::uint64_t>>{"detail", &Query::detail, QueryFieldRole::kPresentation},
};

// Whether two queries agree on one field.
inline bool same_value(const TimeWindow& a, const TimeWindow& b) {
  static_assert(aggregate_field_count<TimeWindow>() == 2, "TimeWindow has a new field: compare it here");
  return a.begin_ns == b.begin_ns && a.end_ns == b.end_ns;
}
template <class T>
bool same_value(const T& a, const T& b) {
  return a == b;
}
template <class T>
bool same_field(const QueryField<T>& field, const Query& a, const Query& b) {
  return same_value(a.*field.member, b.*field.member);
}

// Calls f(field) for each entry of kQueryFields, in Query's order.
template <class F>
void for_each_query_field(F&& f) {
  std::apply([&](const auto&... field) { (f(field), ...); }, kQueryFields);
}

// The query as its answer depends on it: presentation fields at their
// defaults; no cull list where no `by` level reads the culled stack (stack,
// frame, image, a custom function), since culling changes no total; and a
// query of totals alone (totals_only, or no `by` level) with totals_only set
// and, of its `by` levels, only the impacting one, which changes what is
// measured.
Query answer_form(const Query& query);

// Whether the fields of `role` are equal in two queries.
bool same_fields(const Query& a, const Query& b, QueryFieldRole role);

// Whether an answer made for `made_for` answers `asked`: the same blocks
// counted and measured, and the same rows, or the totals alone.
bool answers_alike(const Query& made_for, const Query& asked);

}  // namespace heapql
