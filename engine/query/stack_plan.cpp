#include "engine/query/stack_plan.h"

#include <fmt/format.h>

namespace heapql {

StackPlan::StackPlan(const TraceTables& tables, FramePatternSet cull, FramePatternSet require)
    : tables_(tables), cull_(std::move(cull)), require_(std::move(require)) {}

bool frame_matches(const TraceTables& tables, const FramePatternSet& set, FrameId frame) {
  const Frame& f = tables.frame(frame);
  const std::string_view module = tables.string(f.module);
  if (f.symbol.valid()) return set.matches(module, tables.string(f.symbol));
  const std::string symbol = fmt::format("0x{:x}", f.address);
  return set.matches(module, symbol);
}

bool StackPlan::frame_culled(FrameId frame) {
  if (frame_culled_.size() <= frame.index()) frame_culled_.resize(tables_.frame_count(), kUnknown);
  std::int8_t& known = frame_culled_[frame.index()];
  if (known < 0) known = frame_matches(tables_, cull_, frame) ? 1 : 0;
  return known == 1;
}

bool StackPlan::frame_required(FrameId frame) {
  if (frame_required_.size() <= frame.index()) frame_required_.resize(tables_.frame_count(), kUnknown);
  std::int8_t& known = frame_required_[frame.index()];
  if (known < 0) known = frame_matches(tables_, require_, frame) ? 1 : 0;
  return known == 1;
}

StackId StackPlan::culled(StackId stack) {
  // The first node from the top whose frame is kept; the bottom node when
  // every frame is culled.
  for (StackId at = stack; at.valid();) {
    const StackNode& node = tables_.stack(at);
    if (!node.parent.valid() || !frame_culled(node.frame)) return at;
    at = node.parent;
  }
  return stack;
}

bool StackPlan::required(StackId stack) {
  if (require_.empty()) return true;
  if (!stack.valid()) return false;
  if (node_required_.size() <= stack.index()) node_required_.grow_to(tables_.stack_count(), kUnknown);
  if (node_required_[stack.index()] != kUnknown) return node_required_[stack.index()] == 1;
  // Walk towards the root to the first known node, then decide downwards, so
  // that every node's parent is known when the node is.
  pending_.clear();
  for (StackId at = stack; at.valid() && node_required_[at.index()] == kUnknown; at = tables_.stack(at).parent) {
    pending_.push_back(at);
  }
  for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
    const StackNode& node = tables_.stack(*it);
    const bool parent_required = node.parent.valid() && node_required_[node.parent.index()] == 1;
    node_required_[it->index()] = (parent_required || frame_required(node.frame)) ? 1 : 0;
  }
  return node_required_[stack.index()] == 1;
}

}  // namespace heapql
