// The HTML pages prune rows and nothing else: a pruned result or diff keeps
// every other field of the one it was made from (its ResultSummary or
// DiffSummary, copied whole), so a field added to a result reaches the page.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/query/result_diff.h"
#include "engine/report/diff_reports.h"
#include "engine/report/html_report.h"
#include "engine/report/reports.h"
#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

// The pages copy the summary and prune the rows: a field of Result or
// ResultDiff outside their summaries would not reach them.
static_assert(sizeof(Result) == sizeof(ResultSummary) + sizeof(std::vector<Row>),
              "a field of Result outside ResultSummary would be dropped from the HTML page: put it in ResultSummary");
static_assert(sizeof(ResultDiff) == sizeof(DiffSummary) + sizeof(std::vector<DiffRow>),
              "a field of ResultDiff outside DiffSummary would be dropped from the HTML page: put it in DiffSummary");

// Keeps the first 10 rows and those over 0.6% of a total: of the rows below,
// the larger ones.
const PagePruning kPruning{10, 6000, 2'000'000};

// One block on each of `stacks` stacks, stack i's of 16 * (i + 1) bytes
// (times `scale`), one a millisecond: rows of every share of the total.
Result rows_of_every_share(ScriptedTrace& t, int stacks, std::uint64_t scale, std::uint64_t top) {
  for (int i = 0; i < stacks; ++i) {
    t.at_ms(i);
    t.alloc(static_cast<std::uint64_t>(i + 1) * 64, 16 * static_cast<std::uint64_t>(i + 1) * scale,
            t.stack({"app!f" + std::to_string(i), "app!main"}));
  }
  Query q;
  q.window.end_ns = std::int64_t{stacks} * 1'000'000;
  q.by = {GroupBy::kStack};
  q.top = top;
  q.default_cull = false;
  q.series_buckets = 8;
  return t.run(q);
}

// Every field of the summary away from its default, whatever the engine left there.
void vary_summary(Result& r) {
  r.derived_columns = {"label"};
  for (std::size_t i = 0; i < r.rows.size(); ++i) r.rows[i].derived = {"row " + std::to_string(i)};
  r.impacting_measures = true;
  r.temporary_blocks = 7;
  r.excluded_blocks = 3;
  r.excluded_bytes = 48;
  r.peak.time_ns += 1;
}

TEST(HtmlPagePruning, APrunedResultKeepsAllButItsRows) {
  ScriptedTrace t;
  Result r = rows_of_every_share(t, 200, 1, 150);
  ASSERT_TRUE(r.other.has_value());
  ASSERT_TRUE(r.series.has_value());
  vary_summary(r);

  const PrunedResult pruned = prune_for_page(r, kPruning);
  ASSERT_GT(pruned.rows_pruned, 0u);
  ASSERT_GT(pruned.result.rows.size(), 0u);
  EXPECT_EQ(pruned.result.rows.size() + pruned.rows_pruned, r.rows.size());
  EXPECT_EQ(pruned.result.other_rows, r.other_rows + pruned.rows_pruned);

  // With its rows and [other] put back, it says what the result says.
  Result restored = pruned.result;
  restored.rows = r.rows;
  restored.other = r.other;
  restored.other_rows = r.other_rows;
  EXPECT_EQ(result_json(restored, t.source()), result_json(r, t.source()));
  EXPECT_EQ(result_table(restored, t.source()), result_table(r, t.source()));
  EXPECT_EQ(result_csv(restored), result_csv(r));
  // Fields no writer shows.
  EXPECT_EQ(restored.temporary_blocks, r.temporary_blocks);
  EXPECT_EQ(restored.trace_end_ns, r.trace_end_ns);
}

TEST(HtmlPagePruning, APrunedDiffKeepsAllButItsRows) {
  ScriptedTrace before, after;
  const auto a = std::make_shared<const Result>(rows_of_every_share(before, 200, 1, 1'000'000));
  const auto b = std::make_shared<const Result>(rows_of_every_share(after, 200, 3, 1'000'000));
  ResultDiff d = diff_results(a, b, 150);
  ASSERT_TRUE(d.other.has_value());
  d.notes.emplace_back("a note");
  d.a.temporary_blocks = 5;
  d.b.excluded_blocks = 9;

  const PrunedDiff pruned = prune_diff_for_page(d, kPruning);
  ASSERT_GT(pruned.rows_pruned, 0u);
  ASSERT_GT(pruned.diff.rows.size(), 0u);
  EXPECT_EQ(pruned.diff.rows.size() + pruned.rows_pruned, d.rows.size());

  ResultDiff restored = pruned.diff;
  restored.rows = d.rows;
  restored.other = d.other;
  restored.other_rows = d.other_rows;
  EXPECT_EQ(diff_json(restored, before.source(), after.source()), diff_json(d, before.source(), after.source()));
  EXPECT_EQ(diff_table(restored, before.source(), after.source()), diff_table(d, before.source(), after.source()));
  EXPECT_EQ(diff_csv(restored), diff_csv(d));
  EXPECT_EQ(restored.whole_a, d.whole_a);
  EXPECT_EQ(restored.whole_b, d.whole_b);
  EXPECT_EQ(restored.a.temporary_blocks, d.a.temporary_blocks);
  EXPECT_EQ(restored.b.excluded_blocks, d.b.excluded_blocks);
}

}  // namespace
}  // namespace heapql::test
