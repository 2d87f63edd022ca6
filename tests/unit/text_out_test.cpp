// Reports written in pieces (engine/report/text_out.h): every writer of rows
// passes a long report on about a megabyte at a time, and the pieces joined
// are the whole text, byte for byte.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/query/result_diff.h"
#include "engine/report/diff_reports.h"
#include "engine/report/reports.h"
#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

constexpr std::size_t kMegabyte = std::size_t{1} << 20;

// 20,000 stacks whose frames have long names: each report is several megabytes.
Result many_rows(ScriptedTrace& t) {
  const std::string padding(120, 'x');
  for (int i = 0; i < 20000; ++i) {
    t.alloc(static_cast<std::uint64_t>(i + 1), 16 + static_cast<std::uint64_t>(i % 7),
            t.stack({"app!worker_" + std::to_string(i) + "_" + padding, "app!run_" + padding, "app!main"}));
  }
  Query q;
  q.by = {GroupBy::kStack};
  q.top = 1'000'000;
  q.default_cull = false;
  return t.run(q);
}

struct Pieces {
  std::vector<std::size_t> sizes;
  std::string joined;
};

Pieces pieces_of(const std::function<void(TextOut&)>& write) {
  Pieces p;
  TextOut out([&](std::string_view piece) {
    p.sizes.push_back(piece.size());
    p.joined += piece;
  });
  write(out);
  out.finish();
  return p;
}

// The pieces are the whole text, and none but the last is under a megabyte
// or far over it (a row at most).
void expect_written_in_pieces(const std::string& name, const std::function<void(TextOut&)>& write) {
  const std::string whole = whole_text(write);
  const Pieces p = pieces_of(write);
  EXPECT_EQ(p.joined, whole) << name;
  ASSERT_GE(whole.size(), 3 * kMegabyte) << name << ": the report is long enough to need pieces";
  EXPECT_GE(p.sizes.size(), whole.size() / (2 * kMegabyte)) << name << ": passed on as it is made";
  for (std::size_t i = 0; i + 1 < p.sizes.size(); ++i) {
    EXPECT_GE(p.sizes[i], kMegabyte) << name << " piece " << i;
    EXPECT_LT(p.sizes[i], kMegabyte + 4096) << name << " piece " << i;
  }
}

TEST(TextOut, KeptWholeWithoutADestination) {
  TextOut out;
  out.text() = std::string(3 * kMegabyte, 'a');
  out.row_written();
  out.finish();
  EXPECT_EQ(out.take().size(), 3 * kMegabyte);
}

TEST(TextOut, ResultWritersPassTheirRowsOnInPieces) {
  ScriptedTrace t;
  const Result r = many_rows(t);
  ASSERT_EQ(r.rows.size(), 20000u);
  expect_written_in_pieces("csv", [&](TextOut& o) { result_csv(o, r); });
  expect_written_in_pieces("json", [&](TextOut& o) { result_json(o, r, t.source()); });
  expect_written_in_pieces("table", [&](TextOut& o) { result_table(o, r, t.source(), DisplayOptions{true, 0}); });
  expect_written_in_pieces("folded", [&](TextOut& o) { result_folded(o, r); });
}

TEST(TextOut, DiffWritersPassTheirRowsOnInPieces) {
  ScriptedTrace t;
  const auto a = std::make_shared<const Result>(many_rows(t));
  const ResultDiff d = diff_results(a, a, 1'000'000);
  ASSERT_EQ(d.rows.size(), 20000u);
  expect_written_in_pieces("diff csv", [&](TextOut& o) { diff_csv(o, d); });
  expect_written_in_pieces("diff json", [&](TextOut& o) { diff_json(o, d, t.source(), t.source()); });
  expect_written_in_pieces("diff table", [&](TextOut& o) { diff_table(o, d, t.source(), t.source(), {true, 0}); });
  expect_written_in_pieces("diff folded", [&](TextOut& o) { diff_folded(o, d); });
}

}  // namespace
}  // namespace heapql::test
