// Interning the stack tree and the buckets through their indexes' shortcuts
// (stack_node_index.h, id_bits.h): a node whose parent has no child is new
// without a lookup, a parent's first child is found by its id and never
// indexed, the children of a parent made a moment ago are found among the
// nodes made since, a bucket of a stack without buckets is new without a
// lookup. Each
// shortcut must give exactly the ids a plain map gives, for chains, branches,
// repeats long after, roots, and after the indexes are released.
#include "engine/store/trace_tables.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

namespace heapql {
namespace {

struct Reference {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> stacks;
  std::map<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>, std::uint32_t> buckets;

  std::uint32_t stack(FrameId frame, StackId parent) {
    return stacks.try_emplace({frame.value, parent.value}, static_cast<std::uint32_t>(stacks.size())).first->second;
  }
  std::uint32_t bucket(std::uint64_t size, StackId stack, std::uint32_t thread) {
    return buckets.try_emplace({size, stack.value, thread}, static_cast<std::uint32_t>(buckets.size())).first->second;
  }
};

TEST(StackNodeIndex, GivesTheIdsOfAPlainMapForChainsBranchesAndRepeats) {
  TraceTables t;
  Reference ref;
  std::vector<FrameId> frames;
  const StringId module = t.intern_string("m");
  for (std::uint64_t a = 0; a < 40; ++a) frames.push_back(t.intern_frame(module, StringId(), a));
  std::mt19937 rng(11);
  std::vector<StackId> known;  // every node made so far
  for (int step = 0; step < 60'000; ++step) {
    if (step == 20'000 || step == 45'000) t.release_indexes();
    // A chain from a root, from a node made a moment ago or long ago (a
    // branch), or a repeat of a node, as tracers' stack trees come.
    StackId node;
    if (!known.empty() && rng() % 8 != 0) {
      const std::size_t back = rng() % 2 == 0 ? rng() % std::min<std::size_t>(known.size(), 100) : rng() % known.size();
      node = known[known.size() - 1 - back];
    }
    const int depth = 1 + static_cast<int>(rng() % 6);
    for (int d = 0; d < depth; ++d) {
      const FrameId frame = frames[rng() % (d == 0 ? frames.size() : 4)];
      const StackId got = t.intern_stack(frame, node);
      ASSERT_EQ(got.value, ref.stack(frame, node)) << "step " << step;
      if (got.value == known.size()) known.push_back(got);
      node = got;
    }
    const std::uint64_t size = 8 * (1 + rng() % 3);
    const std::uint32_t thread = rng() % 2;
    const Bucket bucket{size, rng() % 16 == 0 ? StackId() : node, HeapId(), thread, BlockKind::kHeap, false};
    ASSERT_EQ(t.intern_bucket(bucket).value, ref.bucket(size, bucket.stack, thread)) << "step " << step;
  }
  EXPECT_EQ(t.stack_count(), ref.stacks.size());
  EXPECT_EQ(t.bucket_count(), ref.buckets.size());
  // Every node and bucket is found again, none added.
  for (const auto& [key, id] : ref.stacks) {
    EXPECT_EQ(t.intern_stack(FrameId(key.first), StackId(key.second)).value, id);
  }
  for (const auto& [key, id] : ref.buckets) {
    const Bucket bucket{std::get<0>(key), StackId(std::get<1>(key)), HeapId(), std::get<2>(key), BlockKind::kHeap, false};
    EXPECT_EQ(t.intern_bucket(bucket).value, id);
  }
  EXPECT_EQ(t.stack_count(), ref.stacks.size());
}

TEST(StackNodeIndex, FindsAParentsFirstChildAndItsLaterSiblings) {
  TraceTables t;
  const StringId module = t.intern_string("m");
  const FrameId a = t.intern_frame(module, StringId(), 1), b = t.intern_frame(module, StringId(), 2),
                c = t.intern_frame(module, StringId(), 3);
  const StackId root = t.intern_stack(a, StackId());
  const StackId first = t.intern_stack(b, root);  // root + 1: not in the hash index
  EXPECT_EQ(first.value, root.value + 1);
  const StackId deeper = t.intern_stack(c, first);
  const StackId sibling = t.intern_stack(c, root);  // a second child: indexed
  EXPECT_EQ(t.intern_stack(b, root), first);
  EXPECT_EQ(t.intern_stack(c, root), sibling);
  EXPECT_EQ(t.intern_stack(c, first), deeper);
  EXPECT_EQ(t.intern_stack(a, StackId()), root);
  EXPECT_EQ(t.stack_count(), 4u);
}

TEST(StackNodeIndex, ViewedNodesAreFoundWhenInterningResumes) {
  // A store's stack table is viewed in place, then a later read interns into
  // it: the viewed nodes, chains and branches alike, must be found.
  const std::vector<StackNode> viewed = {
      {FrameId(0), StackId()}, {FrameId(1), StackId(0)}, {FrameId(2), StackId(1)}, {FrameId(2), StackId(0)}};
  TraceTables t;
  t.view_stacks(viewed);
  for (std::uint32_t id = 0; id < viewed.size(); ++id) {
    EXPECT_EQ(t.intern_stack(viewed[id].frame, viewed[id].parent).value, id);
  }
  EXPECT_EQ(t.intern_stack(FrameId(3), StackId(2)).value, 4u);
  EXPECT_EQ(t.stack_count(), 5u);
}

}  // namespace
}  // namespace heapql
