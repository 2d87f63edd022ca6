// Group keys: how a key level's value (a stack node, frame, module string,
// process, heap, kind, thread or impacting type id) is shown, and the order
// of keys (semantics.md §3: level by level; stacks frame by frame, a prefix
// first; text by its bytes) computed without rendering every key, since a
// query may have hundreds of thousands of rows and show ten.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/result.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// The value a bucket counted by a query has at one level of its group key
// (the culled stack's node, its top frame or module, the bucket's process,
// heap, kind or thread); the impacting level's is 0 (decided per block).
// The aggregator interns these; the drill-down matches a row's ids to them.
std::uint32_t key_level_value(const TraceTables& tables, GroupBy level, const Bucket& bucket, StackId culled_stack);

// A stack's frames take their texts from `frame_texts` (every frame's text,
// by FrameId; KeyOrder::frame_texts()), shared by the rows; other levels
// need none.
KeyValue render_key_value(const TraceTables& tables, GroupBy level, std::uint64_t value,
                          const std::shared_ptr<const FrameTextTable>& frame_texts = nullptr);

class KeyOrder {
 public:
  KeyOrder(const TraceTables& tables, std::span<const GroupBy> levels);

  // Ranks of `keys` (`levels.size()` values each) in the key order, equal
  // for keys that render alike. With one level only the `needed` first keys
  // are ranked exactly, the others no smaller than theirs (rank_sequences):
  // the top 10 of a million tied rows.
  std::vector<std::uint32_t> rank(std::span<const std::uint64_t> keys, std::size_t needed = SIZE_MAX) const;
  // Every frame's text by FrameId, made to rank them when a level is a
  // stack (else null): the shown rows' stacks share it.
  const std::shared_ptr<const FrameTextTable>& frame_texts() const { return frame_texts_; }

 private:
  // By FrameId: the position of a frame's text among the frames `stacks`
  // reach (or among all frames); valid until the next call.
  std::span<const std::uint32_t> frame_ranks_of(std::span<const StackId> stacks) const;
  std::span<const std::uint32_t> rank_all_frames() const;

  const TraceTables& tables_;
  std::vector<GroupBy> levels_;
  std::shared_ptr<const FrameTextTable> frame_texts_;
  mutable std::vector<std::uint32_t> frame_rank_;  // the last call's ranks; only its frames' are meaningful
  mutable bool all_frames_ranked_ = false;
};

}  // namespace heapql
