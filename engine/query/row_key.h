// Rows' rendered keys, compared and matched across results: the key order of
// semantics.md §6 on rendered keys, and an identity string for matching rows
// with equal keys (a recipe's regrouping, a diff's two sides).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/query/result.h"

namespace heapql {

// Level by level; stacks frame by frame with a prefix first; text by its bytes.
bool key_less(const std::vector<KeyValue>& a, const std::vector<KeyValue>& b);

// Identity strings of keys: equal for equal rendered keys, whatever trace or
// store they came from. A stack's frames go in as numbers given to their
// texts, not as the texts: tens of frames with long demangled names made
// kilobytes a row, and a diff of every stack of two C++ traces passed its
// 4 GiB limit.
class KeyIdentities {
 public:
  std::string of(const std::vector<KeyValue>& key);

 private:
  struct TableNumbers {
    std::shared_ptr<const FrameTextTable> table;  // kept, so that its address is not reused
    std::vector<std::uint32_t> numbers;           // by index in the table: its text's number + 1 (0: none yet)
  };
  TableNumbers& numbers_of(const StackFrames& frames);
  // The number of frame i's text, the same for equal texts of any table.
  std::uint32_t text_number(TableNumbers& table, const StackFrames& frames, std::size_t i);

  std::unordered_map<const FrameTextTable*, TableNumbers> tables_;
  std::unordered_map<std::string, std::uint32_t> numbers_;  // by text
};

}  // namespace heapql
