#include "engine/query/stack_plan.h"

#include <fmt/format.h>

#include "engine/query/short_name.h"

namespace heapql {

StackPlan::StackPlan(const TraceTables& tables, StackFilters filters)
    : tables_(tables), filters_(std::move(filters)) {}

bool frame_matches(const TraceTables& tables, const FramePatternSet& set, FrameId frame) {
  const Frame& f = tables.frame(frame);
  const std::string_view module = tables.string(f.module);
  if (f.symbol.valid()) {
    const std::string_view symbol = tables.string(f.symbol);
    if (set.matches(module, symbol)) return true;
    // Tables show short names: a pattern copied from one means that frame.
    return symbol.find_first_of("<(") != std::string_view::npos && set.matches(module, short_symbol_name(symbol));
  }
  const std::string symbol = fmt::format("0x{:x}", f.address);
  return set.matches(module, symbol);
}

bool StackPlan::frame_known(std::vector<std::int8_t>& known, FrameId frame, bool (StackPlan::*test)(FrameId) const) {
  if (known.size() <= frame.index()) known.resize(tables_.frame_count(), kUnknown);
  std::int8_t& state = known[frame.index()];
  if (state < 0) state = (this->*test)(frame) ? 1 : 0;
  return state == 1;
}

bool StackPlan::frame_culled(FrameId frame) const { return frame_matches(tables_, filters_.cull, frame); }

bool StackPlan::frame_required(FrameId frame) const { return frame_matches(tables_, filters_.require, frame); }

bool StackPlan::frame_excluded(FrameId frame) const {
  if (frame_matches(tables_, filters_.exclude, frame)) return true;
  if (filters_.suppressions.empty()) return false;
  // LSan matches a frame's function, or its module (semantics.md §11).
  const Frame& f = tables_.frame(frame);
  return (f.symbol.valid() && filters_.suppressions.matches(tables_.string(f.symbol))) ||
         filters_.suppressions.matches(tables_.string(f.module));
}

StackId StackPlan::culled(StackId stack) {
  // The first node from the top whose frame is kept; the bottom node when
  // every frame is culled. With nothing to cull that is the stack itself,
  // found without reading its node (a cache miss for most buckets planned).
  if (filters_.cull.empty()) return stack;
  for (StackId at = stack; at.valid();) {
    const StackNode& node = tables_.stack(at);
    if (!node.parent.valid() || !frame_known(frame_culled_, node.frame, &StackPlan::frame_culled)) return at;
    at = node.parent;
  }
  return stack;
}

template <typename FrameTest>
bool StackPlan::stack_has_frame(FrameSearch& search, StackId stack, FrameTest frame_test) {
  if (!stack.valid()) return false;
  ChunkedVector<std::int8_t>& nodes = search.nodes;
  if (nodes.size() <= stack.index()) nodes.grow_to(tables_.stack_count(), kUnknown);
  if (nodes[stack.index()] != kUnknown) return nodes[stack.index()] == 1;
  // Walk towards the root to the first known node, then decide downwards, so
  // that every node's parent is known when the node is.
  pending_.clear();
  for (StackId at = stack; at.valid() && nodes[at.index()] == kUnknown; at = tables_.stack(at).parent) {
    pending_.push_back(at);
  }
  for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
    const StackNode& node = tables_.stack(*it);
    const bool parent_has = node.parent.valid() && nodes[node.parent.index()] == 1;
    nodes[it->index()] = (parent_has || frame_test(node.frame)) ? 1 : 0;
  }
  return nodes[stack.index()] == 1;
}

bool StackPlan::required(StackId stack) {
  if (filters_.require.empty()) return true;
  return stack_has_frame(required_, stack, [&](FrameId f) {
    return frame_known(required_.frames, f, &StackPlan::frame_required);
  });
}

bool StackPlan::excluded(StackId stack) {
  if (filters_.exclude.empty() && filters_.suppressions.empty()) return false;
  return stack_has_frame(excluded_, stack, [&](FrameId f) {
    return frame_known(excluded_.frames, f, &StackPlan::frame_excluded);
  });
}

}  // namespace heapql
