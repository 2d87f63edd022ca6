// Rows' rendered keys, compared and matched across results: the key order of
// semantics.md §6 on rendered keys, and an identity string for matching rows
// with equal keys (a recipe's regrouping, a diff's two sides).
#pragma once

#include <cstddef>
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
  // Without making the string: a hash of it, and whether two keys' would be
  // equal.
  std::size_t hash(const std::vector<KeyValue>& key);
  bool same(const std::vector<KeyValue>& a, const std::vector<KeyValue>& b);
  // The number of frame i's text, the same for equal texts of any table.
  std::uint32_t frame_number(const StackFrames& frames, std::size_t i) {
    return text_number(numbers_of(frames), frames, i);
  }
  // By number: the rank of its text among the texts numbered so far.
  std::vector<std::uint32_t> number_ranks() const;
  // By index in the table of `frames`: 1 + number_ranks()[its number], or 0
  // where no text of the table was numbered.
  std::vector<std::uint32_t> symbols_of_table(const StackFrames& frames, const std::vector<std::uint32_t>& number_ranks);

 private:
  struct TableNumbers {
    std::shared_ptr<const FrameTextTable> table;  // kept, so that its address is not reused
    std::vector<std::uint32_t> numbers;           // by index in the table: its text's number + 1 (0: none yet)
  };
  TableNumbers& numbers_of(const StackFrames& frames);
  std::uint32_t text_number(TableNumbers& table, const StackFrames& frames, std::size_t i);

  std::unordered_map<const FrameTextTable*, TableNumbers> tables_;
  TableNumbers* last_ = nullptr;                            // the table numbers_of found last (a map's nodes stay put)
  std::unordered_map<std::string, std::uint32_t> numbers_;  // by text
  std::vector<const std::string*> texts_;                   // by number: the keys of numbers_
};

// Each key's rank in the order of key_less (equal for keys that render
// alike), computed together: sorting a diff of many stacks by comparing
// their frames' texts compared the frames they share again in every
// comparison. All keys have the same levels.
std::vector<std::uint32_t> rank_keys(const std::vector<const std::vector<KeyValue>*>& keys, KeyIdentities& identities);

}  // namespace heapql
