// Group keys: how a key level's value (a stack node, frame, module string,
// process, heap, kind, thread or impacting type id) is shown, and the order
// of keys (semantics.md §3: level by level; stacks frame by frame, a prefix
// first; text by its bytes) computed without rendering every key, since a
// query may have hundreds of thousands of rows and show ten.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/result.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// A stack's frames take their texts from `frame_texts` (every frame's text,
// by FrameId; KeyOrder::frame_texts()), shared by the rows; other levels
// need none.
KeyValue render_key_value(const TraceTables& tables, GroupBy level, std::uint64_t value,
                          const std::shared_ptr<const FrameTextTable>& frame_texts = nullptr);

class KeyOrder {
 public:
  // `values` holds the keys to order, `levels.size()` values each.
  KeyOrder(const TraceTables& tables, std::span<const GroupBy> levels, std::span<const std::uint64_t> values);

  // The place of key k (its place in `values`) in the key order: keys that
  // render alike share one.
  std::uint32_t rank(std::size_t k) const { return key_rank_[k]; }
  // Every frame's text by FrameId, made to rank them when a level is a
  // stack (else null): the shown rows' stacks share it.
  const std::shared_ptr<const FrameTextTable>& frame_texts() const { return frame_texts_; }

 private:
  std::shared_ptr<const FrameTextTable> frame_texts_;
  std::vector<std::uint32_t> key_rank_;  // by key
};

}  // namespace heapql
