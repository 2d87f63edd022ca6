// The work a query does once per unique frame and stack, never per block:
// which frames are culled or required (§5, §6), each stack's culled form and
// whether it has a required frame. Frames are decided once each; a culled
// stack is found by walking its culled top frames (a short prefix), so no
// per-node state is kept unless the query requires frames, in which case
// whether a node's stack has one is memoized along the stack tree (each node
// resolved once). Grows with the tables while a reader streams.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/query/frame_pattern.h"
#include "engine/store/chunked_vector.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// Whether a frame matches a pattern set, as the frame is shown: an
// unsymbolized frame by its `0x` offset as the symbol (semantics.md §5).
bool frame_matches(const TraceTables& tables, const FramePatternSet& set, FrameId frame);

class StackPlan {
 public:
  StackPlan(const TraceTables& tables, FramePatternSet cull, FramePatternSet require);

  // The culled stack (§6): the longest all-culled prefix removed, or only the
  // bottom frame kept when every frame is culled. Invalid for the empty stack.
  StackId culled(StackId stack);
  // Whether any frame of the full stack matches a require pattern; true for
  // every stack when there are no require patterns.
  bool required(StackId stack);
  bool has_require() const { return !require_.empty(); }

 private:
  static constexpr std::int8_t kUnknown = -1;

  bool frame_culled(FrameId frame);
  bool frame_required(FrameId frame);

  const TraceTables& tables_;
  FramePatternSet cull_;
  FramePatternSet require_;
  std::vector<std::int8_t> frame_culled_;    // kUnknown, 0 or 1
  std::vector<std::int8_t> frame_required_;  // kUnknown, 0 or 1
  ChunkedVector<std::int8_t> node_required_;  // by stack node; only with require patterns
  std::vector<StackId> pending_;
};

}  // namespace heapql
