#include "engine/query/group_key.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "engine/error.h"
#include "engine/query/order_ranks.h"
#include "engine/query/stack_order.h"

namespace heapql {

std::uint32_t key_level_value(const TraceTables& tables, GroupBy level, const Bucket& bucket, StackId culled_stack) {
  switch (level) {
    case GroupBy::kStack: return culled_stack.value;
    case GroupBy::kFrame: return culled_stack.valid() ? tables.stack(culled_stack).frame.value : FrameId().value;
    case GroupBy::kImage:
      return culled_stack.valid() ? tables.frame(tables.stack(culled_stack).frame).module.value : StringId().value;
    case GroupBy::kProcess: return tables.process_of(bucket).value;
    case GroupBy::kHeap: return bucket.heap.value;
    case GroupBy::kKind: return static_cast<std::uint32_t>(bucket.kind);
    case GroupBy::kThread: return bucket.thread;
    case GroupBy::kImpacting: return 0;  // decided per block
    case GroupBy::kCustom: break;
  }
  throw Error("a custom key is computed from the stack rows (regroup), not by the aggregator");
}

KeyValue render_key_value(const TraceTables& tables, GroupBy level, std::uint64_t value,
                          const std::shared_ptr<const FrameTextTable>& frame_texts) {
  KeyValue kv;
  kv.level = level;
  kv.id = value;
  const auto id32 = static_cast<std::uint32_t>(value);
  switch (level) {
    case GroupBy::kStack: {
      if (!frame_texts) throw Error("internal error: a stack key rendered without its frames' texts");
      kv.stack = StackId(id32);
      std::vector<FrameId> frames;
      tables.stack_frames(kv.stack, frames);
      std::vector<std::uint32_t> indexes(frames.size());
      for (std::size_t i = 0; i < frames.size(); ++i) indexes[i] = frames[i].value;
      kv.frames = StackFrames(frame_texts, std::move(indexes));
      break;
    }
    case GroupBy::kFrame: kv.text = FrameId(id32).valid() ? tables.frame_text(FrameId(id32)) : "[no stack]"; break;
    case GroupBy::kImage:
      kv.text = StringId(id32).valid() ? std::string(tables.string(StringId(id32))) : "[no stack]";
      break;
    case GroupBy::kProcess:
      if (ProcessId(id32).valid()) {
        const Process& p = tables.process(ProcessId(id32));
        kv.text = fmt::format("{} ({})", tables.string(p.name), p.pid);
      } else {
        kv.text = "[unknown]";
      }
      break;
    case GroupBy::kHeap:
      kv.text = HeapId(id32).valid() ? std::string(tables.string(tables.heap(HeapId(id32)).name)) : "[unknown]";
      break;
    case GroupBy::kKind: kv.text = block_kind_name(static_cast<BlockKind>(value)); break;
    case GroupBy::kThread: kv.text = fmt::format("{}", value); break;
    case GroupBy::kImpacting: kv.text = impacting_name(static_cast<Impacting>(value)); break;
    case GroupBy::kCustom: break;  // rendered by regroup
  }
  return kv;
}

KeyOrder::KeyOrder(const TraceTables& tables, std::span<const GroupBy> levels)
    : tables_(tables), levels_(levels.begin(), levels.end()) {
  if (std::find(levels_.begin(), levels_.end(), GroupBy::kStack) != levels_.end()) {
    auto texts = std::make_shared<FrameTextTable>(tables.frame_count());
    for (std::size_t f = 0; f < texts->size(); ++f) {
      (*texts)[f] = tables.frame_text(FrameId(static_cast<std::uint32_t>(f)));
    }
    frame_texts_ = std::move(texts);
  }
}

std::span<const std::uint32_t> KeyOrder::frame_ranks_of(std::span<const StackId> stacks) const {
  if (frame_rank_.empty()) frame_rank_.assign(tables_.frame_count(), 0);
  if (all_frames_ranked_) return frame_rank_;
  // Only the frames these stacks reach are compared, so only they are
  // ranked: a top 10's tied rows on the cxx bench trace reach a few dozen of
  // its 17 K frames, long C++ names whose sort took a tenth of the query. A
  // node met before had its parents' frames taken then. Past as many nodes
  // as there are frames, every frame is ranked once instead, for this call
  // and the later ones.
  std::unordered_set<std::uint32_t> met, taken;
  std::vector<std::uint32_t> frames;
  const std::size_t most_nodes = tables_.frame_count();
  for (const StackId stack : stacks) {
    for (StackId at = stack; at.valid() && met.insert(at.value).second; at = tables_.stack(at).parent) {
      if (met.size() > most_nodes) return rank_all_frames();
      const std::uint32_t f = tables_.stack(at).frame.index();
      if (taken.insert(f).second) frames.push_back(f);
    }
  }
  rank_items_by_text(*frame_texts_, frames, frame_rank_);
  return frame_rank_;
}

std::span<const std::uint32_t> KeyOrder::rank_all_frames() const {
  frame_rank_ = ranks_by_text(*frame_texts_);
  all_frames_ranked_ = true;
  return frame_rank_;
}

std::vector<std::uint32_t> KeyOrder::rank(std::span<const std::uint64_t> keys, std::size_t needed) const {
  const std::size_t width = levels_.size();
  const std::size_t count = width == 0 ? 0 : keys.size() / width;
  if (width != 1) needed = SIZE_MAX;  // an outer level's ties are ordered by the next level
  return ranks_level_by_level(count, width, [&](std::size_t level) {
    if (levels_[level] == GroupBy::kStack) {
      std::vector<StackId> stacks(count);
      for (std::size_t k = 0; k < count; ++k) stacks[k] = StackId(static_cast<std::uint32_t>(keys[k * width + level]));
      return rank_stacks(tables_, frame_ranks_of(stacks), stacks, needed);
    }
    std::vector<std::uint64_t> distinct(count);
    for (std::size_t k = 0; k < count; ++k) distinct[k] = keys[k * width + level];
    if (levels_[level] == GroupBy::kImpacting) distinct = {0, 1, 2, 3};
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    std::vector<std::string> texts;
    for (std::uint64_t v : distinct) texts.push_back(render_key_value(tables_, levels_[level], v).text);
    const std::vector<std::uint32_t> text_rank = ranks_by_text(texts);
    std::vector<std::uint32_t> rank(count);
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint64_t v = keys[k * width + level];
      rank[k] = text_rank[static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), v) -
                                                   distinct.begin())];
    }
    return rank;
  });
}

}  // namespace heapql
