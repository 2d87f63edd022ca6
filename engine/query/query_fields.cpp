// The answer form and the field comparisons of query_fields.h, and the
// build's check that kQueryFields lists every field of Query.
#include "engine/query/query_fields.h"

#include <algorithm>

#include "engine/query/cull_list.h"

namespace heapql {

static_assert(std::tuple_size_v<decltype(kQueryFields)> == aggregate_field_count<Query>(),
              "a field of Query is missing from kQueryFields (query_fields.h): list it there with its role");

namespace {

bool reads_culled_stack(GroupBy level) {
  return level == GroupBy::kStack || level == GroupBy::kFrame || level == GroupBy::kImage ||
         level == GroupBy::kCustom;
}

}  // namespace

Query answer_form(const Query& query) {
  Query form = query;
  const Query defaults;
  for_each_query_field([&](const auto& field) {
    if (field.role == QueryFieldRole::kPresentation) form.*field.member = defaults.*field.member;
  });
  // A cull list that spells out the built-in patterns (a recipe's
  // hq.cull.defaults) culls what default_cull culls, and with default_cull
  // they are redundant: the same answer, so the same form (and a store's
  // stack view answers it).
  const std::vector<std::string>& built_in = default_cull_pattern_texts();
  const auto is_built_in = [&](const std::string& pattern) {
    return std::find(built_in.begin(), built_in.end(), pattern) != built_in.end();
  };
  const auto spelled_out = [&](const std::string& pattern) {
    return std::find(form.cull.begin(), form.cull.end(), pattern) != form.cull.end();
  };
  if (form.default_cull || std::all_of(built_in.begin(), built_in.end(), spelled_out)) {
    std::erase_if(form.cull, is_built_in);
    form.default_cull = true;
  }
  if (std::none_of(form.by.begin(), form.by.end(), reads_culled_stack) || form.totals_only) {
    // Culling changes only the frames a stack is grouped by (semantics.md
    // §6), never which blocks count (§9): with no level that reads the
    // culled stack, every cull list answers alike.
    form.cull.clear();
    form.cull_files.clear();
    form.default_cull = true;
  }
  if (form.totals_only || form.by.empty()) {
    // Of the levels only the impacting one changes the totals: it measures
    // WPA's set of blocks (Query::uses_impacting).
    const bool impacting_level = std::find(form.by.begin(), form.by.end(), GroupBy::kImpacting) != form.by.end();
    form.by.clear();
    if (impacting_level) form.by.push_back(GroupBy::kImpacting);
    form.totals_only = true;
  }
  return form;
}

bool same_fields(const Query& a, const Query& b, QueryFieldRole role) {
  bool same = true;
  for_each_query_field([&](const auto& field) {
    if (field.role == role) same = same && same_field(field, a, b);
  });
  return same;
}

bool answers_alike(const Query& made_for, const Query& asked) {
  const Query wanted = answer_form(asked);
  Query made = made_for;
  made.totals_only = made.totals_only || wanted.totals_only;  // an answer's rows add up to its totals
  made = answer_form(made);
  return same_fields(made, wanted, QueryFieldRole::kAnswer) && same_fields(made, wanted, QueryFieldRole::kRows);
}

}  // namespace heapql
