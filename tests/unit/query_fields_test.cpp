// Query's fields classified once (query_fields.h), and the stack view's
// eligibility built on it (stack_view_query.h): a query that differs from
// the view's in any field that changes an answer is not answered from the
// view, whatever the field. A field added to Query and not classified fails
// the build (the static_assert in query_fields.cpp, which counts Query's
// fields with aggregate_field_count).
#include "engine/query/query_fields.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/query/cull_list.h"
#include "engine/query/stack_view_query.h"
#include "engine/util/aggregate_field_count.h"

namespace heapql::test {
namespace {

struct ThreeFields {
  int a = 0;
  std::optional<std::int64_t> b;
  std::vector<std::string> c;
};
struct Nested {
  ThreeFields inner;  // one field, however many it has
  std::string text;
};
static_assert(aggregate_field_count<ThreeFields>() == 3);
static_assert(aggregate_field_count<Nested>() == 2);
static_assert(aggregate_field_count<TimeWindow>() == 2);

// A value of the field's type other than `v`. A field of a new type needs a
// case here (else this does not compile).
template <class T>
T changed(const T& v);
template <class T>
std::optional<T> changed_container(const std::optional<T>& v);
template <class T>
std::vector<T> changed_container(const std::vector<T>& v);

template <class T>
T changed(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return !v;
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(static_cast<std::underlying_type_t<T>>(v) + 1);
  } else if constexpr (std::is_integral_v<T>) {
    return v + 1;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v + "x";
  } else if constexpr (std::is_same_v<T, TimeWindow>) {
    return TimeWindow{v.begin_ns + 1, v.end_ns};
  } else {
    return changed_container(v);
  }
}

template <class T>
std::optional<T> changed_container(const std::optional<T>& v) {
  return v ? std::nullopt : std::optional<T>(changed(T{}));
}

template <class T>
std::vector<T> changed_container(const std::vector<T>& v) {
  std::vector<T> more = v;
  more.push_back(v.empty() ? T{} : changed(v.back()));
  return more;
}

bool is_cull_field(std::string_view name) { return name == "cull" || name == "cull_files" || name == "default_cull"; }

TEST(QueryFields, EachFieldIsListedOnce) {
  // With the count checked at compile time, distinct fields mean every one.
  const Query q;
  std::set<const void*> fields;
  std::set<std::string_view> names;
  for_each_query_field([&](const auto& field) {
    EXPECT_TRUE(fields.insert(&(q.*field.member)).second) << field.name << " is listed twice";
    EXPECT_TRUE(names.insert(field.name).second) << field.name;
  });
  EXPECT_EQ(fields.size(), aggregate_field_count<Query>());
}

TEST(QueryFields, TheAnswerFormSetsPresentationFieldsToTheirDefaults) {
  Query q;
  const Query defaults;
  for_each_query_field([&](const auto& field) {
    if (field.role == QueryFieldRole::kPresentation) q.*field.member = changed(q.*field.member);
  });
  const Query form = answer_form(q);
  for_each_query_field([&](const auto& field) {
    if (field.role == QueryFieldRole::kPresentation) {
      EXPECT_TRUE(same_field(field, form, defaults)) << field.name;
    }
  });
}

TEST(QueryFields, TheAnswerFormOfTotalsKeepsOnlyTheImpactingLevel) {
  Query q;
  q.by = {GroupBy::kStack};
  q.totals_only = true;
  EXPECT_TRUE(answer_form(q).by.empty());
  // No level at all is totals alone too; the impacting level measures WPA's set, so it stays.
  Query no_levels;
  no_levels.by.clear();
  EXPECT_TRUE(answer_form(no_levels).totals_only);
  Query impacting;
  impacting.by = {GroupBy::kImpacting, GroupBy::kStack};
  impacting.totals_only = true;
  EXPECT_EQ(answer_form(impacting).by, std::vector<GroupBy>{GroupBy::kImpacting});
}

// semantics.md §9: adding a cull pattern never changes the totals, only the
// grouping; so a level that does not read the culled stack (process, heap,
// kind, thread, impacting) is answered alike under any cull list, and its
// answer form has none. A summary (no built-in list) is the view's totals.
TEST(QueryFields, TheAnswerFormHasNoCullListWhereNoLevelReadsTheCulledStack) {
  Query culled;
  culled.by = {GroupBy::kProcess, GroupBy::kHeap};
  culled.cull = {"app!Alloc"};
  culled.cull_files = {"more.txt"};
  culled.default_cull = false;
  Query plain;
  plain.by = culled.by;
  EXPECT_TRUE(answers_alike(plain, culled));
  EXPECT_TRUE(answer_form(culled).cull.empty());
  EXPECT_TRUE(answer_form(culled).cull_files.empty());
  for (const GroupBy level : {GroupBy::kStack, GroupBy::kFrame, GroupBy::kImage, GroupBy::kCustom}) {
    Query reads = culled;
    reads.by = {GroupBy::kProcess, level};
    Query reads_plain = plain;
    reads_plain.by = reads.by;
    EXPECT_FALSE(answers_alike(reads_plain, reads)) << group_by_name(level);
    EXPECT_EQ(answer_form(reads).cull, culled.cull) << group_by_name(level);
  }
  Query summary;  // summary_query(): the totals with no built-in list
  summary.default_cull = false;
  summary.totals_only = true;
  EXPECT_TRUE(stack_view_answers(summary));
}

TEST(StackViewQuery, AnswersItsOwnQueryItsTotalsAndAnyOrderOrCut) {
  EXPECT_TRUE(stack_view_answers(stack_view_query()));
  Query totals = stack_view_query();
  totals.totals_only = true;
  EXPECT_TRUE(stack_view_answers(totals));
  Query no_levels = stack_view_query();
  no_levels.by.clear();
  EXPECT_TRUE(stack_view_answers(no_levels));
  Query shown = stack_view_query();
  shown.sort = Measure::kSrc;
  shown.top = 3;
  shown.cull_origin = "defaults";
  EXPECT_TRUE(stack_view_answers(shown));
}

// A recipe's `cull = hq.cull.defaults` spells out the built-in patterns in
// place of default_cull: the same frames culled, so the view answers it; a
// pattern more or less does not.
TEST(StackViewQuery, ACullListSpellingOutTheBuiltInOneIsTheViews) {
  Query spelled = stack_view_query();
  spelled.default_cull = false;
  spelled.cull = default_cull_pattern_texts();
  std::reverse(spelled.cull.begin(), spelled.cull.end());
  spelled.cull_origin = "defaults";
  EXPECT_TRUE(stack_view_answers(spelled));
  Query more = spelled;
  more.cull.push_back("app!extra");
  EXPECT_FALSE(stack_view_answers(more));
  Query fewer = spelled;
  fewer.cull.pop_back();
  EXPECT_FALSE(stack_view_answers(fewer));
  Query twice = stack_view_query();  // the defaults, and spelled out again
  twice.cull = default_cull_pattern_texts();
  EXPECT_TRUE(stack_view_answers(twice));
}

TEST(StackViewQuery, AQueryDifferingInAnyFieldThatChangesTheAnswerIsNotTheViews) {
  for_each_query_field([&](const auto& field) {
    Query asked = stack_view_query();
    asked.*field.member = changed(asked.*field.member);
    ASSERT_FALSE(same_field(field, asked, stack_view_query())) << field.name;
    switch (field.role) {
      case QueryFieldRole::kAnswer: {
        EXPECT_FALSE(stack_view_answers(asked)) << field.name;
        // Nor its totals, but for the cull fields: culling never changes a
        // total (TheAnswerFormHasNoCullListWhereNoLevelReadsTheCulledStack).
        asked.totals_only = true;
        EXPECT_EQ(stack_view_answers(asked), is_cull_field(field.name)) << field.name << ", totals only";
        break;
      }
      case QueryFieldRole::kPresentation: EXPECT_TRUE(stack_view_answers(asked)) << field.name; break;
      case QueryFieldRole::kRows: {
        // Other rows are not the view's; its totals are.
        EXPECT_EQ(stack_view_answers(asked), answer_form(asked).totals_only) << field.name;
        break;
      }
    }
  });
}

TEST(StackViewQuery, RowFieldsAreTheGroupingAlone) {
  // What AQueryDifferingInAnyField... assumes of the rows fields: a new one
  // needs its own cases there.
  std::vector<std::string_view> rows;
  for_each_query_field([&](const auto& field) {
    if (field.role == QueryFieldRole::kRows) rows.push_back(field.name);
  });
  EXPECT_EQ(rows, (std::vector<std::string_view>{"by", "totals_only"}));
}

TEST(StackViewQuery, OtherRowsAndTheImpactingLevelAreNotTheViews) {
  Query by_frame = stack_view_query();
  by_frame.by = {GroupBy::kFrame};
  EXPECT_FALSE(stack_view_answers(by_frame));
  Query nested = stack_view_query();
  nested.by = {GroupBy::kProcess, GroupBy::kStack};
  EXPECT_FALSE(stack_view_answers(nested));
  // Totals by impacting type measure WPA's set of blocks: not the view's totals.
  Query impacting_totals = stack_view_query();
  impacting_totals.by = {GroupBy::kImpacting};
  impacting_totals.totals_only = true;
  EXPECT_FALSE(stack_view_answers(impacting_totals));
  Query whole_trace_window = stack_view_query();
  whole_trace_window.window.end_ns = 1'000;
  EXPECT_FALSE(stack_view_answers(whole_trace_window));
}

}  // namespace
}  // namespace heapql::test
