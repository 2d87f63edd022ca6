// A stack's frames as their texts, top first: what tests compare stacks by.
#pragma once

#include <string>
#include <vector>

#include "engine/store/trace_tables.h"

namespace heapql::test {

inline std::vector<std::string> stack_texts(const TraceTables& tables, StackId stack) {
  std::vector<FrameId> frames;
  tables.stack_frames(stack, frames);
  std::vector<std::string> texts;
  for (FrameId f : frames) texts.push_back(tables.frame_text(f));
  return texts;
}

}  // namespace heapql::test
