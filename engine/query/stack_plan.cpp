#include "engine/query/stack_plan.h"

#include <fmt/format.h>

namespace heapql {

StackPlan::StackPlan(const TraceTables& tables, FramePatternSet cull, FramePatternSet require)
    : tables_(tables), cull_(std::move(cull)), require_(std::move(require)) {}

bool StackPlan::frame_matches(const FramePatternSet& set, FrameId frame) {
  const Frame& f = tables_.frame(frame);
  const std::string_view module = tables_.string(f.module);
  if (f.symbol.valid()) return set.matches(module, tables_.string(f.symbol));
  const std::string symbol = fmt::format("0x{:x}", f.address);
  return set.matches(module, symbol);
}

bool StackPlan::frame_culled(FrameId frame) {
  if (frame_culled_.size() <= frame.index()) frame_culled_.resize(tables_.frame_count(), -1);
  std::int8_t& known = frame_culled_[frame.index()];
  if (known < 0) known = frame_matches(cull_, frame) ? 1 : 0;
  return known == 1;
}

bool StackPlan::frame_required(FrameId frame) {
  if (frame_required_.size() <= frame.index()) frame_required_.resize(tables_.frame_count(), -1);
  std::int8_t& known = frame_required_[frame.index()];
  if (known < 0) known = frame_matches(require_, frame) ? 1 : 0;
  return known == 1;
}

void StackPlan::resolve(StackId stack) {
  if (nodes_.size() <= stack.index()) nodes_.grow_to(tables_.stack_count());
  if (nodes_[stack.index()].resolved) return;
  // Walk towards the root to the first resolved node, then resolve downwards,
  // so that every node's parent is known when the node is.
  pending_.clear();
  for (StackId at = stack; at.valid() && !nodes_[at.index()].resolved; at = tables_.stack(at).parent) {
    pending_.push_back(at);
  }
  for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
    const StackNode& node = tables_.stack(*it);
    NodeState& state = nodes_[it->index()];
    const NodeState* parent = node.parent.valid() ? &nodes_[node.parent.index()] : nullptr;
    if (!frame_culled(node.frame) || parent == nullptr) {
      state.culled = *it;  // a kept frame, or the bottom frame of an all-culled stack
    } else {
      state.culled = parent->culled;
    }
    state.required = (frame_required(node.frame) || (parent && parent->required == 1)) ? 1 : 0;
    state.resolved = true;
  }
}

StackId StackPlan::culled(StackId stack) {
  if (!stack.valid()) return stack;
  resolve(stack);
  return nodes_[stack.index()].culled;
}

bool StackPlan::required(StackId stack) {
  if (require_.empty()) return true;
  if (!stack.valid()) return false;
  resolve(stack);
  return nodes_[stack.index()].required == 1;
}

}  // namespace heapql
