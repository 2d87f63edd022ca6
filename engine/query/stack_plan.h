// The work a query does once per unique frame and stack, never per block:
// which frames are culled, required or excluded (§5, §6, §11), each stack's
// culled form and whether it has a required or an excluded frame. Frames are
// decided once each; a culled stack is found by walking its culled top frames
// (a short prefix), so no per-node state is kept unless the query requires or
// excludes frames, in which case whether a node's stack has such a frame is
// memoized along the stack tree (each node resolved once). Grows with the
// tables while a reader streams.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/query/frame_pattern.h"
#include "engine/query/suppressions.h"
#include "engine/util/chunked_vector.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// Whether a frame matches a pattern set, as the frame is shown: an
// unsymbolized frame by its `0x` offset as the symbol (semantics.md §5).
bool frame_matches(const TraceTables& tables, const FramePatternSet& set, FrameId frame);

// The frame patterns of one query, compiled.
struct StackFilters {
  FramePatternSet cull;
  FramePatternSet require;
  FramePatternSet exclude;
  SuppressionList suppressions;
};

class StackPlan {
 public:
  StackPlan(const TraceTables& tables, StackFilters filters);

  // The culled stack (§6): the longest all-culled prefix removed, or only the
  // bottom frame kept when every frame is culled. Invalid for the empty stack.
  StackId culled(StackId stack);
  // Whether any frame of the full stack matches a require pattern; true for
  // every stack when there are no require patterns.
  bool required(StackId stack);
  // Whether any frame of the full stack matches an exclude pattern or a
  // suppression (§11); false for every stack when there are none.
  bool excluded(StackId stack);
  // Whether the stack passes both: required and not excluded.
  bool kept(StackId stack) { return required(stack) && !excluded(stack); }
  const StackFilters& filters() const { return filters_; }

 private:
  static constexpr std::int8_t kUnknown = -1;

  // Per frame and per stack node: whether it, or for a node any frame of its
  // stack, has one property; kUnknown, 0 or 1.
  struct FrameSearch {
    std::vector<std::int8_t> frames;
    ChunkedVector<std::int8_t> nodes;
  };
  template <typename FrameTest>
  bool stack_has_frame(FrameSearch& search, StackId stack, FrameTest frame_test);
  bool frame_known(std::vector<std::int8_t>& known, FrameId frame, bool (StackPlan::*test)(FrameId) const);

  bool frame_culled(FrameId frame) const;
  bool frame_required(FrameId frame) const;
  bool frame_excluded(FrameId frame) const;

  const TraceTables& tables_;
  StackFilters filters_;
  std::vector<std::int8_t> frame_culled_;
  FrameSearch required_;
  FrameSearch excluded_;
  std::vector<StackId> pending_;
};

}  // namespace heapql
