// rank_stacks against the order it stands for (semantics.md §3): stacks
// rendered as lists of frame texts, top first, compared as lists (a prefix
// first), on random trees with frames whose texts repeat; in full and for
// the first few only.
#include "engine/query/stack_order.h"

#include "engine/query/group_key.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tests/support/stack_texts.h"

namespace heapql {
namespace {

// Each frame's place among the frames' texts, equal texts equal.
std::vector<std::uint32_t> frame_ranks(const TraceTables& tables) {
  std::vector<std::string> texts;
  for (std::size_t f = 0; f < tables.frame_count(); ++f)
    texts.push_back(tables.frame_text(FrameId(static_cast<std::uint32_t>(f))));
  std::vector<std::string> sorted = texts;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<std::uint32_t> rank;
  for (const std::string& t : texts)
    rank.push_back(static_cast<std::uint32_t>(std::lower_bound(sorted.begin(), sorted.end(), t) - sorted.begin()));
  return rank;
}

// Each stack's rank must be the number of stacks whose texts sort before
// its; with `needed`, exactly so for the stacks ranked below `needed`, and no
// smaller than `needed` for the others.
void expect_ranks_are_texts_order(const TraceTables& tables, const std::vector<StackId>& stacks,
                                  const std::vector<std::uint32_t>& ranks, std::size_t needed = SIZE_MAX) {
  ASSERT_EQ(ranks.size(), stacks.size());
  std::vector<std::vector<std::string>> texts;
  for (StackId s : stacks) texts.push_back(test::stack_texts(tables, s));
  for (std::size_t a = 0; a < stacks.size(); ++a) {
    std::uint32_t before = 0;
    for (std::size_t b = 0; b < stacks.size(); ++b) before += texts[b] < texts[a] ? 1 : 0;
    if (before < needed) {
      ASSERT_EQ(ranks[a], before) << "stack " << a << ", needed " << needed;
    } else {
      ASSERT_GE(ranks[a], needed) << "stack " << a;
    }
  }
}

void expect_ranks_order_texts(const TraceTables& tables, const std::vector<StackId>& stacks,
                              std::size_t needed = SIZE_MAX) {
  expect_ranks_are_texts_order(tables, stacks, rank_stacks(tables, frame_ranks(tables), stacks, needed), needed);
}

// A tree of `nodes` random nodes over `frame_count` frames of `text_count`
// texts (frames of one text at several addresses).
std::vector<StackId> random_tree(TraceTables& tables, std::mt19937& random, int frame_count, int text_count,
                                 int nodes) {
  const StringId module = tables.intern_string("app");
  std::vector<FrameId> frames;
  for (int f = 0; f < frame_count; ++f) {
    frames.push_back(tables.intern_frame(module, tables.intern_string("f" + std::to_string(f % text_count)),
                                         0x100 + static_cast<std::uint64_t>(f)));
  }
  std::vector<StackId> tree{StackId()};
  for (int n = 0; n < nodes; ++n) {
    tree.push_back(tables.intern_stack(frames[random() % frames.size()], tree[random() % tree.size()]));
  }
  return tree;
}

TEST(StackOrder, RandomTreesRankAsTheirTexts) {
  std::mt19937 random(20261127);
  for (int round = 0; round < 20; ++round) {
    TraceTables tables;
    const StringId module = tables.intern_string("app");
    // Few texts for many frames: stacks alike for many frames, and frames of
    // one text at several addresses (different nodes, equal stacks).
    const int text_count = 2 + round % 5;
    std::vector<FrameId> frames;
    for (int f = 0; f < 3 * text_count; ++f) {
      frames.push_back(tables.intern_frame(module, tables.intern_string("f" + std::to_string(f % text_count)),
                                           0x100 + static_cast<std::uint64_t>(f)));
    }
    std::vector<StackId> nodes{StackId()};
    for (int n = 0; n < 300; ++n) {
      const StackId parent = nodes[random() % nodes.size()];
      nodes.push_back(tables.intern_stack(frames[random() % frames.size()], parent));
    }
    std::vector<StackId> stacks;
    for (int s = 0; s < 120; ++s) stacks.push_back(nodes[random() % nodes.size()]);  // duplicates and no-stack too
    expect_ranks_order_texts(tables, stacks);
    for (const std::size_t needed : {1, 7, 60}) expect_ranks_order_texts(tables, stacks, needed);
  }
}

// Past 256 tied stacks the needed first are set apart without sorting the
// rest (nth_element), and a range with more stacks than frames is sorted by
// counting: both against the texts.
TEST(StackOrder, ManyStacksRankedInFullAndOnlyTheFirst) {
  std::mt19937 random(5);
  TraceTables tables;
  const StringId module = tables.intern_string("app");
  std::vector<FrameId> frames;
  for (int f = 0; f < 24; ++f) {
    frames.push_back(tables.intern_frame(module, tables.intern_string("f" + std::to_string(f % 12)), 0x100 + f));
  }
  std::vector<StackId> nodes{StackId()};
  for (int n = 0; n < 3000; ++n)
    nodes.push_back(tables.intern_stack(frames[random() % frames.size()], nodes[random() % nodes.size()]));
  std::vector<StackId> stacks;
  for (int s = 0; s < 1200; ++s) stacks.push_back(nodes[random() % nodes.size()]);
  expect_ranks_order_texts(tables, stacks);
  for (const std::size_t needed : {1, 10, 300, 1199}) expect_ranks_order_texts(tables, stacks, needed);
}

TEST(StackOrder, APrefixFirstAndDeepSharedTops) {
  TraceTables tables;
  const StringId module = tables.intern_string("app");
  const FrameId f = tables.intern_frame(module, tables.intern_string("f"), 0x10);
  const FrameId g = tables.intern_frame(module, tables.intern_string("g"), 0x20);
  const FrameId f_again = tables.intern_frame(module, tables.intern_string("f"), 0x30);
  // Two chains of 500 frames, alike but for the root, and each one's prefixes.
  std::vector<StackId> stacks{StackId()};
  for (const FrameId root : {f, g}) {
    StackId node = tables.intern_stack(root, StackId());
    for (int d = 0; d < 500; ++d) node = tables.intern_stack(d % 2 ? f : f_again, node);
    stacks.push_back(node);
    stacks.push_back(tables.stack(node).parent);
  }
  expect_ranks_order_texts(tables, stacks);
  EXPECT_EQ(rank_stacks(tables, frame_ranks(tables), stacks)[0], 0u) << "no frames: before every stack";
}

// KeyOrder ranks only the frames the ranked stacks reach, until they reach
// more nodes than there are frames; then every frame, once. One KeyOrder
// ranks run after run (as row_selection.cpp does with tied rows), few
// stacks and many, so ranks left from an earlier run must not count.
TEST(StackOrder, KeyOrderRanksRunAfterRunByTheirFramesOrAll) {
  std::mt19937 random(20261130);
  for (int round = 0; round < 10; ++round) {
    TraceTables tables;
    const std::vector<StackId> tree = random_tree(tables, random, 200, 40 + round, 2000);
    const std::vector<GroupBy> by{GroupBy::kStack};
    const KeyOrder order(tables, by);
    for (const std::size_t run : {2, 5, 3, 40, 7, 1500, 4}) {
      std::vector<StackId> stacks;
      std::vector<std::uint64_t> keys;
      for (std::size_t s = 0; s < run; ++s) {
        stacks.push_back(tree[random() % tree.size()]);
        keys.push_back(stacks.back().value);
      }
      expect_ranks_are_texts_order(tables, stacks, order.rank(keys), SIZE_MAX);
      expect_ranks_are_texts_order(tables, stacks, order.rank(keys, 2), 2);
    }
  }
}

TEST(StackOrder, NoStacks) { EXPECT_TRUE(rank_stacks(TraceTables(), {}, {}).empty()); }

}  // namespace
}  // namespace heapql
