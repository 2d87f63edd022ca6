#include "engine/query/stack_frames.h"

#include <algorithm>
#include <numeric>

namespace heapql {

StackFrames::StackFrames(std::vector<std::string> texts)
    : table_(std::make_shared<const FrameTextTable>(std::move(texts))), indexes_(table_->size()) {
  std::iota(indexes_.begin(), indexes_.end(), 0u);
}

bool operator==(const StackFrames& a, const StackFrames& b) {
  if (a.table_ == b.table_) return a.indexes_ == b.indexes_;
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

bool operator==(const StackFrames& a, const std::vector<std::string>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace heapql
