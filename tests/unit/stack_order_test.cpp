// rank_stacks against the order it stands for (semantics.md §3): stacks
// rendered as lists of frame texts, top first, compared as lists (a prefix
// first), on random trees with frames whose texts repeat.
#include "engine/query/stack_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace heapql {
namespace {

std::vector<std::string> texts_of(const TraceTables& tables, StackId stack) {
  std::vector<FrameId> frames;
  tables.stack_frames(stack, frames);
  std::vector<std::string> texts;
  for (FrameId f : frames) texts.push_back(tables.frame_text(f));
  return texts;
}

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

// The ranks must order the stacks as their texts do, equal where they are equal, and be dense from 0.
void expect_ranks_order_texts(const TraceTables& tables, const std::vector<StackId>& stacks) {
  const std::vector<std::uint32_t> ranks = rank_stacks(tables, frame_ranks(tables), stacks);
  ASSERT_EQ(ranks.size(), stacks.size());
  std::vector<std::vector<std::string>> texts;
  for (StackId s : stacks) texts.push_back(texts_of(tables, s));
  for (std::size_t a = 0; a < stacks.size(); ++a) {
    for (std::size_t b = 0; b < stacks.size(); ++b) {
      ASSERT_EQ(texts[a] < texts[b], ranks[a] < ranks[b]) << "stacks " << a << " and " << b;
      ASSERT_EQ(texts[a] == texts[b], ranks[a] == ranks[b]) << "stacks " << a << " and " << b;
    }
  }
  std::vector<std::uint32_t> distinct = ranks;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (std::size_t i = 0; i < distinct.size(); ++i) EXPECT_EQ(distinct[i], i) << "dense";
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
  }
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
  const std::vector<std::uint32_t> ranks = rank_stacks(tables, frame_ranks(tables), stacks);
  EXPECT_EQ(ranks[0], 0u) << "no frames: before every stack";
}

TEST(StackOrder, NoStacks) { EXPECT_TRUE(rank_stacks(TraceTables(), {}, {}).empty()); }

}  // namespace
}  // namespace heapql
