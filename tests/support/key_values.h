// Rendered key values for tests that build rows by hand: a stack level
// from its frames (top first), another level from its text.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/query/result.h"

namespace heapql::test {

inline KeyValue stack_key(StackFrames frames_top_first) {
  KeyValue k;
  k.level = GroupBy::kStack;
  k.frames = std::move(frames_top_first);
  return k;
}

inline KeyValue stack_key(std::vector<std::string> frames_top_first) {
  return stack_key(StackFrames(std::move(frames_top_first)));
}

inline KeyValue text_key(GroupBy level, std::string text) {
  KeyValue k;
  k.level = level;
  k.text = std::move(text);
  return k;
}

}  // namespace heapql::test
