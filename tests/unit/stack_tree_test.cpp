// The stack tree report (engine/report/stack_tree.h): rows of a result folded
// into a top-down or bottom-up call tree. Inclusive measures add up exactly as
// semantics.md §3 and §9 require of any grouping; paths follow the stack order
// and nested keys of §1 and §6. Results are built by hand so that every
// figure can be worked out on paper.
#include "engine/report/stack_tree.h"

#include <gtest/gtest.h>

#include <string_view>

#include "tests/support/key_values.h"
#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

Measures ms(std::uint64_t so, std::uint64_t soc, std::uint64_t st, std::uint64_t stc, std::uint64_t src) {
  Measures m;
  m.so = so;
  m.soc = soc;
  m.st = st;
  m.stc = stc;
  m.src = src;
  return m;
}

Row row(std::vector<KeyValue> key, const Measures& m) {
  Row r;
  r.key = std::move(key);
  r.measures = m;
  return r;
}

Row stack_row(std::vector<std::string> frames_top_first, const Measures& m) {
  return row({stack_key(std::move(frames_top_first))}, m);
}

Result make_result(std::vector<Row> rows, bool realloc_known = true) {
  Result r;
  r.query.by = {GroupBy::kStack};
  r.realloc_known = realloc_known;
  for (const Row& each : rows) r.totals.add(each.measures);
  r.rows = std::move(rows);
  return r;
}

// Shared prefixes (app!main), two thread entries, recursion (app!walk twice in
// one stack) and a stack whose top frame is app!main itself.
Result worked_example() {
  return make_result({
      stack_row({"alloc!malloc", "app!parse", "app!main"}, ms(100, 1, 300, 3, 1)),
      stack_row({"alloc!malloc", "app!load", "app!main"}, ms(40, 2, 40, 2, 0)),
      stack_row({"alloc!malloc", "app!walk", "app!walk", "app!main"}, ms(10, 1, 60, 4, 2)),
      stack_row({"app!main"}, ms(5, 1, 5, 1, 0)),
      stack_row({"alloc!malloc", "app!parse", "app!worker"}, ms(20, 1, 20, 1, 0)),
  });
}

TreeOptions keep_all(TreeDirection direction = TreeDirection::kTopDown) {
  TreeOptions o;
  o.direction = direction;
  o.threshold = 0;
  return o;
}

const TreeNode& child(const TreeNode& n, std::string_view label) {
  for (const TreeNode& c : n.children) {
    if (c.label == label) return c;
  }
  ADD_FAILURE() << "no child '" << label << "' under '" << n.label << "'";
  static const TreeNode kMissing;
  return kMissing;
}

std::vector<std::string> labels(const TreeNode& n) {
  std::vector<std::string> out;
  for (const TreeNode& c : n.children) out.push_back(c.label);
  return out;
}

void expect_same(const Measures& a, const Measures& b, std::string_view where) {
  EXPECT_EQ(a.so, b.so) << where;
  EXPECT_EQ(a.soc, b.soc) << where;
  EXPECT_EQ(a.st, b.st) << where;
  EXPECT_EQ(a.stc, b.stc) << where;
  EXPECT_EQ(a.src, b.src) << where;
}

// With nothing pruned: inclusive = self + the children's inclusive, in all five measures.
void expect_adds_up(const TreeNode& n) {
  Measures sum = n.self;
  for (const TreeNode& c : n.children) {
    sum.add(c.inclusive);
    expect_adds_up(c);
  }
  expect_same(n.inclusive, sum, n.label);
  EXPECT_EQ(n.pruned_children, 0u) << n.label;
}

TEST(StackTreeSemantics6Grouping, TopDownStartsAtTheThreadEntryAndMergesSharedPrefixes) {
  const Result r = worked_example();
  const TreeNode root = build_stack_tree(r, keep_all());
  EXPECT_EQ(root.label, "[total]");
  expect_same(root.inclusive, r.totals, "root");
  EXPECT_EQ(root.inclusive.so, 175u);
  EXPECT_EQ(labels(root), (std::vector<std::string>{"app!main", "app!worker"}));

  const TreeNode& main = child(root, "app!main");
  expect_same(main.inclusive, ms(155, 5, 405, 10, 3), "app!main");
  expect_same(main.self, ms(5, 1, 5, 1, 0), "app!main self");  // the stack that is app!main alone
  EXPECT_EQ(labels(main), (std::vector<std::string>{"app!parse", "app!load", "app!walk"}));
  const TreeNode& leaf = child(child(main, "app!parse"), "alloc!malloc");
  expect_same(leaf.self, ms(100, 1, 300, 3, 1), "parse leaf");
  EXPECT_TRUE(leaf.children.empty());

  // The same frame under another caller is another node.
  const TreeNode& worker_parse = child(child(root, "app!worker"), "app!parse");
  EXPECT_EQ(worker_parse.inclusive.so, 20u);
  expect_adds_up(root);
}

TEST(StackTreeSemantics6Grouping, RecursionIsOneNodePerDepthAndCountsOnce) {
  const TreeNode root = build_stack_tree(worked_example(), keep_all());
  const TreeNode& outer = child(child(root, "app!main"), "app!walk");
  const TreeNode& inner = child(outer, "app!walk");
  expect_same(outer.inclusive, ms(10, 1, 60, 4, 2), "outer walk");
  expect_same(inner.inclusive, ms(10, 1, 60, 4, 2), "inner walk");
  expect_same(outer.self, Measures{}, "outer walk self");
  expect_same(child(inner, "alloc!malloc").self, ms(10, 1, 60, 4, 2), "walk leaf");

  const TreeNode up = build_stack_tree(worked_example(), keep_all(TreeDirection::kBottomUp));
  const TreeNode& walk = child(child(up, "alloc!malloc"), "app!walk");
  EXPECT_EQ(labels(walk), (std::vector<std::string>{"app!walk"}));
  expect_same(child(child(walk, "app!walk"), "app!main").self, ms(10, 1, 60, 4, 2), "bottom-up walk leaf");
}

TEST(StackTreeSemantics6Grouping, BottomUpStartsAtTheAllocationSiteAndEndsAtTheThreadEntry) {
  const Result r = worked_example();
  const TreeNode root = build_stack_tree(r, keep_all(TreeDirection::kBottomUp));
  expect_same(root.inclusive, r.totals, "root");
  EXPECT_EQ(labels(root), (std::vector<std::string>{"alloc!malloc", "app!main"}));

  const TreeNode& malloc = child(root, "alloc!malloc");
  expect_same(malloc.inclusive, ms(170, 5, 420, 10, 3), "malloc");
  expect_same(malloc.self, Measures{}, "malloc self");
  EXPECT_EQ(labels(malloc), (std::vector<std::string>{"app!parse", "app!load", "app!walk"}));

  const TreeNode& parse = child(malloc, "app!parse");
  EXPECT_EQ(parse.inclusive.so, 120u);
  EXPECT_EQ(labels(parse), (std::vector<std::string>{"app!main", "app!worker"}));
  expect_same(child(parse, "app!main").self, ms(100, 1, 300, 3, 1), "parse <- main");
  expect_same(child(parse, "app!worker").self, ms(20, 1, 20, 1, 0), "parse <- worker");

  // A one-frame stack is its own allocation site and thread entry.
  const TreeNode& main = child(root, "app!main");
  expect_same(main.inclusive, main.self, "app!main");
  EXPECT_TRUE(main.children.empty());
  expect_adds_up(root);
}

TEST(StackTreeSemantics3Measures, SelfIsWhatEndsAtTheNodeInclusiveIsEverythingThrough) {
  const Result r = make_result({
      stack_row({"app!f", "app!main"}, ms(7, 1, 7, 1, 0)),
      stack_row({"app!main"}, ms(3, 1, 3, 1, 0)),
      stack_row({"app!g", "app!f", "app!main"}, ms(11, 1, 11, 1, 0)),
  });
  const TreeNode down = build_stack_tree(r, keep_all());
  const TreeNode& main = child(down, "app!main");
  EXPECT_EQ(main.inclusive.so, 21u);
  EXPECT_EQ(main.self.so, 3u);
  const TreeNode& f = child(main, "app!f");
  EXPECT_EQ(f.inclusive.so, 18u);
  EXPECT_EQ(f.self.so, 7u);
  EXPECT_EQ(child(f, "app!g").self.so, 11u);
  EXPECT_EQ(down.self.so, 0u);

  const TreeNode up = build_stack_tree(r, keep_all(TreeDirection::kBottomUp));
  // Bottom-up, self is at the thread entry: every row here ends at app!main.
  const TreeNode& f_up = child(up, "app!f");
  EXPECT_EQ(f_up.inclusive.so, 7u);
  EXPECT_EQ(f_up.self.so, 0u);
  EXPECT_EQ(child(f_up, "app!main").self.so, 7u);
  EXPECT_EQ(child(up, "app!main").self.so, 3u);
  EXPECT_EQ(child(child(child(up, "app!g"), "app!f"), "app!main").self.so, 11u);
}

TEST(StackTreeSemantics3Measures, ChildrenSortByTheChosenMeasureThenByLabel) {
  const Result r = make_result({
      stack_row({"app!b"}, ms(5, 1, 50, 9, 0)),
      stack_row({"app!a"}, ms(5, 1, 90, 1, 0)),
      stack_row({"app!c"}, ms(9, 1, 10, 2, 0)),
  });
  TreeOptions o = keep_all();
  EXPECT_EQ(labels(build_stack_tree(r, o)), (std::vector<std::string>{"app!c", "app!a", "app!b"}));  // tie: a < b
  o.measure = Measure::kStc;
  EXPECT_EQ(labels(build_stack_tree(r, o)), (std::vector<std::string>{"app!b", "app!c", "app!a"}));
  o.measure = Measure::kSt;
  EXPECT_EQ(labels(build_stack_tree(r, o)), (std::vector<std::string>{"app!a", "app!b", "app!c"}));
}

TEST(StackTreeSemantics9Checks, RootEqualsTheRowsPlusOtherInBothDirections) {
  Result r = worked_example();
  r.other = ms(1000, 9, 2000, 19, 4);
  r.other_rows = 3;
  Measures expected = r.totals;
  expected.add(*r.other);
  for (TreeDirection d : {TreeDirection::kTopDown, TreeDirection::kBottomUp}) {
    const TreeNode root = build_stack_tree(r, keep_all(d));
    expect_same(root.inclusive, expected, "root");
    ASSERT_FALSE(root.children.empty());
    // Largest by so, so it sorts first.
    EXPECT_EQ(root.children.front().label, "[other: 3 more rows]");
    expect_same(root.children.front().self, *r.other, "other");
    EXPECT_TRUE(root.children.front().children.empty());
    expect_adds_up(root);
  }
}

TEST(StackTreeSemantics6Grouping, AnEmptyStackIsOneNode) {
  const Result r = make_result({
      stack_row({}, ms(4, 1, 4, 1, 0)),
      stack_row({}, ms(6, 2, 6, 2, 0)),  // as if from another key; equal labels under one parent merge
      stack_row({"app!main"}, ms(1, 1, 1, 1, 0)),
  });
  for (TreeDirection d : {TreeDirection::kTopDown, TreeDirection::kBottomUp}) {
    const TreeNode root = build_stack_tree(r, keep_all(d));
    EXPECT_EQ(labels(root), (std::vector<std::string>{"[empty stack]", "app!main"}));
    const TreeNode& empty = child(root, "[empty stack]");
    expect_same(empty.self, ms(10, 3, 10, 3, 0), "empty stack");
    expect_adds_up(root);
  }
}

TEST(StackTreeSemantics6Grouping, OuterKeyLevelsAreNodesAboveTheStackInKeyOrder) {
  Result r;
  r.query.by = {GroupBy::kProcess, GroupBy::kStack};
  r.realloc_known = true;
  r.rows = {
      row({text_key(GroupBy::kProcess, "10 app"), stack_key({"alloc!malloc", "app!main"})}, ms(8, 1, 8, 1, 0)),
      row({text_key(GroupBy::kProcess, "10 app"), stack_key({"alloc!malloc", "app!run"})}, ms(4, 1, 4, 1, 0)),
      row({text_key(GroupBy::kProcess, "20 svc"), stack_key({"alloc!malloc", "app!main"})}, ms(16, 1, 16, 1, 0)),
  };
  for (const Row& each : r.rows) r.totals.add(each.measures);

  const TreeNode down = build_stack_tree(r, keep_all());
  EXPECT_EQ(labels(down), (std::vector<std::string>{"20 svc", "10 app"}));
  const TreeNode& app = child(down, "10 app");
  EXPECT_EQ(app.inclusive.so, 12u);
  EXPECT_EQ(app.self.so, 0u);
  EXPECT_EQ(labels(app), (std::vector<std::string>{"app!main", "app!run"}));
  EXPECT_EQ(child(child(app, "app!main"), "alloc!malloc").self.so, 8u);
  EXPECT_EQ(child(child(down, "20 svc"), "app!main").inclusive.so, 16u);

  const TreeNode up = build_stack_tree(r, keep_all(TreeDirection::kBottomUp));
  const TreeNode& app_malloc = child(child(up, "10 app"), "alloc!malloc");
  EXPECT_EQ(app_malloc.inclusive.so, 12u);
  EXPECT_EQ(labels(app_malloc), (std::vector<std::string>{"app!main", "app!run"}));
  expect_adds_up(down);
  expect_adds_up(up);
}

TEST(StackTreeSemantics6Grouping, RowsWithoutAStackUseTheirKeyValuesAsThePath) {
  Result by_frame;
  by_frame.query.by = {GroupBy::kFrame};
  by_frame.rows = {row({text_key(GroupBy::kFrame, "app!f")}, ms(3, 1, 3, 1, 0)),
                   row({text_key(GroupBy::kFrame, "app!g")}, ms(5, 1, 5, 1, 0))};
  for (TreeDirection d : {TreeDirection::kTopDown, TreeDirection::kBottomUp}) {
    const TreeNode root = build_stack_tree(by_frame, keep_all(d));
    EXPECT_EQ(labels(root), (std::vector<std::string>{"app!g", "app!f"}));
    EXPECT_EQ(child(root, "app!g").self.so, 5u);
    EXPECT_EQ(root.inclusive.so, 8u);
  }

  Result nested;
  nested.query.by = {GroupBy::kProcess, GroupBy::kImage};
  nested.rows = {row({text_key(GroupBy::kProcess, "1 a"), text_key(GroupBy::kImage, "libc.so.6")}, ms(2, 1, 2, 1, 0)),
                 row({text_key(GroupBy::kProcess, "1 a"), text_key(GroupBy::kImage, "app")}, ms(7, 1, 7, 1, 0)),
                 row({text_key(GroupBy::kProcess, "2 b"), text_key(GroupBy::kImage, "app")}, ms(1, 1, 1, 1, 0))};
  const TreeNode root = build_stack_tree(nested, keep_all());
  EXPECT_EQ(labels(root), (std::vector<std::string>{"1 a", "2 b"}));
  EXPECT_EQ(labels(child(root, "1 a")), (std::vector<std::string>{"app", "libc.so.6"}));
  EXPECT_EQ(child(child(root, "2 b"), "app").self.so, 1u);
  expect_adds_up(root);
}

TEST(StackTreeSemantics3Measures, PruningDropsSmallNodesButKeepsTheirTotalsInTheParent) {
  const Result r = worked_example();
  TreeOptions o;
  o.threshold = 0.1;  // 17.5 bytes of 175
  const TreeNode root = build_stack_tree(r, o);
  EXPECT_EQ(root.inclusive.so, 175u);
  EXPECT_EQ(labels(root), (std::vector<std::string>{"app!main", "app!worker"}));
  const TreeNode& main = child(root, "app!main");
  EXPECT_EQ(labels(main), (std::vector<std::string>{"app!parse", "app!load"}));
  EXPECT_EQ(main.pruned_children, 1u);  // app!walk, 10 bytes
  EXPECT_EQ(main.inclusive.so, 155u);
  EXPECT_EQ(root.pruned_children, 0u);

  const std::string text = stack_tree_text(root, r, o);
  EXPECT_NE(text.find("        10 B                 5.71%      ... 1 smaller\n"), std::string::npos) << text;

  // A node exactly at the threshold stays: 20 of 200 at 10%.
  const Result edge =
      make_result({stack_row({"app!a"}, ms(180, 1, 1, 1, 0)), stack_row({"app!b"}, ms(20, 1, 1, 1, 0))});
  EXPECT_EQ(build_stack_tree(edge, o).children.size(), 2u);
  o.threshold = 0.07;
  const Result seven = make_result({stack_row({"app!a"}, ms(93, 1, 1, 1, 0)), stack_row({"app!b"}, ms(7, 1, 1, 1, 0))});
  EXPECT_EQ(build_stack_tree(seven, o).children.size(), 2u);
}

TEST(StackTreeSemantics3Measures, PruningUsesTheChosenMeasure) {
  const Result r = make_result({stack_row({"app!a"}, ms(99, 1, 1, 1, 0)), stack_row({"app!b"}, ms(1, 1, 99, 1, 0))});
  TreeOptions o;
  o.threshold = 0.05;
  EXPECT_EQ(labels(build_stack_tree(r, o)), (std::vector<std::string>{"app!a"}));
  o.measure = Measure::kSt;
  EXPECT_EQ(labels(build_stack_tree(r, o)), (std::vector<std::string>{"app!b"}));
  o.measure = Measure::kStc;
  EXPECT_EQ(labels(build_stack_tree(r, o)), (std::vector<std::string>{"app!a", "app!b"}));
}

TEST(StackTreeSemantics3Measures, MaxDepthFoldsDeeperFramesIntoTheirAncestorsSelf) {
  const Result r = worked_example();
  TreeOptions o = keep_all();
  o.max_depth = 2;
  const TreeNode root = build_stack_tree(r, o);
  const TreeNode& main = child(root, "app!main");
  EXPECT_EQ(labels(main), (std::vector<std::string>{"app!parse", "app!load", "app!walk"}));
  for (const TreeNode& c : main.children) {
    EXPECT_TRUE(c.children.empty()) << c.label;
    expect_same(c.self, c.inclusive, c.label);
  }
  expect_same(child(main, "app!walk").self, ms(10, 1, 60, 4, 2), "folded recursion");
  expect_same(root.inclusive, r.totals, "root");
  expect_adds_up(root);

  o.direction = TreeDirection::kBottomUp;
  o.max_depth = 1;
  const TreeNode up = build_stack_tree(r, o);
  EXPECT_EQ(labels(up), (std::vector<std::string>{"alloc!malloc", "app!main"}));
  EXPECT_EQ(child(up, "alloc!malloc").self.so, 170u);
  expect_adds_up(up);
}

TEST(StackTreeSemantics1DataModel, SrcIsShownAsUnavailableWhenReallocsAreNotMarked) {
  const Result r = make_result({stack_row({"app!f"}, ms(8, 1, 8, 1, 0))}, /*realloc_known=*/false);
  TreeOptions o = keep_all();
  o.measure = Measure::kSrc;
  const TreeNode root = build_stack_tree(r, o);
  const std::string text = stack_tree_text(root, r, o);
  EXPECT_EQ(text,
            "stack tree  top-down (callers first)  measure src  threshold none\n"
            "note        this source does not mark reallocs: src is unavailable (-)\n"
            "\n"
            "   inclusive         self        %  node\n"
            "           -            -        -  [total]\n"
            "           -            -        -    app!f\n");
  EXPECT_NE(stack_tree_json(root, r).find("\"src\":null"), std::string::npos);
}

TEST(StackTree, TextOfASmallTree) {
  Result r = make_result({
      stack_row({"alloc!malloc", "app!parse", "app!main"}, ms(3000, 3, 5000, 5, 1)),
      stack_row({"alloc!malloc", "app!load", "app!main"}, ms(1000, 1, 1000, 1, 0)),
      stack_row({"alloc!malloc", "app!tiny", "app!main"}, ms(200, 1, 200, 1, 0)),
  });
  r.other = ms(500, 2, 500, 2, 0);
  r.other_rows = 2;
  TreeOptions o;
  o.threshold = 0.1;
  const TreeNode root = build_stack_tree(r, o);
  EXPECT_EQ(stack_tree_text(root, r, o),
            "stack tree  top-down (callers first)  measure so  threshold 10%\n"
            "\n"
            "   inclusive         self        %  node\n"
            "     4.70 KB          0 B  100.00%  [total]\n"
            "     4.20 KB          0 B   89.36%    app!main\n"
            "     3.00 KB          0 B   63.83%      app!parse\n"
            "     3.00 KB      3.00 KB   63.83%        alloc!malloc\n"
            "     1.00 KB          0 B   21.28%      app!load\n"
            "     1.00 KB      1.00 KB   21.28%        alloc!malloc\n"
            "       200 B                 4.26%      ... 1 smaller\n"
            "       500 B        500 B   10.64%    [other: 2 more rows]\n");

  TreeOptions counts = o;
  counts.direction = TreeDirection::kBottomUp;
  counts.measure = Measure::kSoc;
  counts.threshold = 0;
  counts.max_depth = 2;
  EXPECT_EQ(stack_tree_text(build_stack_tree(r, counts), r, counts),
            "stack tree  bottom-up (allocation sites first)  measure soc  threshold none  max depth 2\n"
            "\n"
            "   inclusive         self        %  node\n"
            "           7            0  100.00%  [total]\n"
            "           5            0   71.43%    alloc!malloc\n"
            "           3            3   42.86%      app!parse\n"
            "           1            1   14.29%      app!load\n"
            "           1            1   14.29%      app!tiny\n"
            "           2            2   28.57%    [other: 2 more rows]\n");
}

TEST(StackTree, JsonOfASmallTree) {
  const Result r = make_result({stack_row({"alloc!malloc", "app!main"}, ms(8, 1, 24, 3, 2))});
  const TreeNode root = build_stack_tree(r, keep_all());
  EXPECT_EQ(stack_tree_json(root, r),
            R"({"label":"[total]","inclusive":{"so":8,"soc":1,"st":24,"stc":3,"src":2},)"
            R"("self":{"so":0,"soc":0,"st":0,"stc":0,"src":0},"pruned":0,"children":[)"
            R"({"label":"app!main","inclusive":{"so":8,"soc":1,"st":24,"stc":3,"src":2},)"
            R"("self":{"so":0,"soc":0,"st":0,"stc":0,"src":0},"pruned":0,"children":[)"
            R"({"label":"alloc!malloc","inclusive":{"so":8,"soc":1,"st":24,"stc":3,"src":2},)"
            R"("self":{"so":8,"soc":1,"st":24,"stc":3,"src":2},"pruned":0,"children":[]}]}]})");

  TreeOptions o;
  o.threshold = 0.5;
  const Result two = make_result({stack_row({"app!a"}, ms(9, 1, 9, 1, 0)), stack_row({"app!b"}, ms(1, 1, 1, 1, 0))},
                                 /*realloc_known=*/false);
  EXPECT_EQ(stack_tree_json(build_stack_tree(two, o), two),
            R"({"label":"[total]","inclusive":{"so":10,"soc":2,"st":10,"stc":2,"src":null},)"
            R"("self":{"so":0,"soc":0,"st":0,"stc":0,"src":null},"pruned":1,"children":[)"
            R"({"label":"app!a","inclusive":{"so":9,"soc":1,"st":9,"stc":1,"src":null},)"
            R"("self":{"so":9,"soc":1,"st":9,"stc":1,"src":null},"pruned":0,"children":[]}]})");
}

// §9 "sum over the rows of any grouping equals the totals", through the
// aggregator: a real by process,stack result folds to a root equal to its totals.
TEST(StackTreeSemantics9Checks, TreeOfAnAggregatedResultAddsUpToItsTotals) {
  ScriptedTrace t;
  const StackId a = t.stack({"app!alloc", "app!parse", "app!main"});
  const StackId b = t.stack({"app!alloc", "app!main"});
  BlockSpec other_process{64, b};
  other_process.pid = 2;
  other_process.process = "svc";
  t.at_ms(0);
  t.alloc(0x10, 100, a);
  t.alloc(0x20, 30, b);
  t.alloc(0x30, other_process);
  t.at_ms(5);
  t.free(0x20);
  Query q;
  q.by = {GroupBy::kProcess, GroupBy::kStack};
  q.default_cull = false;
  const Result r = t.run(q);
  for (TreeDirection d : {TreeDirection::kTopDown, TreeDirection::kBottomUp}) {
    const TreeNode root = build_stack_tree(r, keep_all(d));
    expect_same(root.inclusive, r.totals, "root");
    EXPECT_EQ(root.children.size(), 2u);  // one node a process
    expect_adds_up(root);
  }
}

}  // namespace
}  // namespace heapql::test
