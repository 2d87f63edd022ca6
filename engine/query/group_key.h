// Group keys: how a key level's value (a stack node, frame, module string,
// process, heap, kind, thread or impacting type id) is shown, and the order
// of keys (semantics.md §3: level by level; stacks frame by frame, a prefix
// first; text by its bytes) computed without rendering every key, since a
// query may have hundreds of thousands of rows and show ten.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/result.h"
#include "engine/store/trace_tables.h"

namespace heapql {

KeyValue render_key_value(const TraceTables& tables, GroupBy level, std::uint64_t value);

class KeyOrder {
 public:
  // `values` holds the keys to order, `levels.size()` values each.
  KeyOrder(const TraceTables& tables, std::span<const GroupBy> levels, std::span<const std::uint64_t> values);

  // Whether key a (its values) sorts before key b.
  bool less(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b) const;

 private:
  int compare_stacks(StackId a, StackId b) const;

  const TraceTables& tables_;
  std::vector<GroupBy> levels_;
  std::vector<std::uint32_t> frame_rank_;  // by FrameId: position of its text among all frames
  // Per non-stack level: each distinct value's position among their texts.
  std::vector<std::unordered_map<std::uint64_t, std::uint32_t>> value_rank_;
};

}  // namespace heapql
