// A query result folded into a call tree, like the Stack column of WPA's Heap
// Allocations table: top-down (callers first) or bottom-up (allocation sites
// first), with inclusive and self measures per node, pruning of small nodes
// and a depth limit, and its text and JSON forms. Owns only the folding and
// those two renderings; the rows and their measures come from the aggregator
// (semantics.md §3, §6).
//
// Paths: the key values of a row other than its stack are outer nodes, in key
// order; the stack's frames follow (top-down: thread entry first, allocator
// last; bottom-up: the reverse). An empty stack is one node, "[empty stack]".
// Every node obeys inclusive = self + the sum of its children's inclusive
// (pruned children included), in all five measures, exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/result.h"

namespace heapql {

// Top-down: root = outermost caller (thread entry) ... leaf = allocator.
// Bottom-up: root = allocation site (the stack's top frame), children = its callers.
enum class TreeDirection { kTopDown, kBottomUp };

struct TreeOptions {
  TreeDirection direction = TreeDirection::kTopDown;
  // What the sort of children, pruning and the text form use. Callers that
  // want the result's own order pass result.query.sort.
  Measure measure = Measure::kSo;
  // Prune nodes whose inclusive value < threshold * the root's inclusive
  // value of the measure (0 = keep all). Their totals stay in the parent.
  double threshold = 0.01;
  // 0 = unlimited. The root is depth 0, its children depth 1: a path longer
  // than max_depth ends at its node at depth max_depth, which takes the rest
  // as self.
  std::uint32_t max_depth = 0;
};

// A tree is as deep as the deepest stack of the trace, which the trace's
// author chose: nothing that walks one recurses, its destruction included.
struct TreeNode {
  std::string label;                  // frame text, the key text of an outer level, or a bracketed marker
  Measures inclusive;                 // all rows passing through this node
  Measures self;                      // rows whose path ends here
  std::vector<TreeNode> children;     // by the measure descending, then label ascending (UTF-8 bytes)
  std::uint64_t pruned_children = 0;  // children below the threshold, dropped (their totals are in `inclusive`)

  TreeNode() = default;
  TreeNode(TreeNode&&) noexcept = default;
  TreeNode& operator=(TreeNode&&) noexcept = default;
  TreeNode(const TreeNode&) = delete;
  TreeNode& operator=(const TreeNode&) = delete;
  ~TreeNode();
};

// Root "[total]": inclusive = sum of the rows plus result.other; when other is
// present it is a child "[other: N more rows]" (sorted and pruned like any
// other child).
TreeNode build_stack_tree(const Result& result, const TreeOptions& options);

// Indented text, one line a node: inclusive and self of options.measure, its
// percentage of the root's inclusive value, and the label (2 spaces a depth);
// a line "... N smaller" (with their summed inclusive value) after a node's
// kept children when some were pruned. Starts with a header naming the
// direction, measure, threshold (and depth limit).
std::string stack_tree_text(const TreeNode& root, const Result& result, const TreeOptions& options);

// {"label":..,"inclusive":{so,soc,st,stc,src},"self":{..},"pruned":N,"children":[..]},
// src null when the source does not mark reallocs. One JSON value, compact, no
// trailing newline, so that a caller can embed it in a larger document.
std::string stack_tree_json(const TreeNode& root, const Result& result);

}  // namespace heapql
