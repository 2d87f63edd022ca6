#include "engine/query/group_key.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "engine/error.h"

namespace heapql {

KeyValue render_key_value(const TraceTables& tables, GroupBy level, std::uint64_t value,
                          const std::shared_ptr<const FrameTextTable>& frame_texts) {
  KeyValue kv;
  kv.level = level;
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

namespace {
// Ranks of `items` by their texts (equal texts, equal ranks).
template <class Id>
std::vector<std::uint32_t> ranks_by_text(const std::vector<std::string>& texts) {
  std::vector<std::uint32_t> order(texts.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return texts[a] < texts[b]; });
  std::vector<std::uint32_t> rank(texts.size());
  std::uint32_t r = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && texts[order[i]] != texts[order[i - 1]]) ++r;
    rank[order[i]] = r;
  }
  return rank;
}
}  // namespace

KeyOrder::KeyOrder(const TraceTables& tables, std::span<const GroupBy> levels, std::span<const std::uint64_t> values)
    : tables_(tables), levels_(levels.begin(), levels.end()), value_rank_(levels.size()) {
  const bool has_stack = std::find(levels_.begin(), levels_.end(), GroupBy::kStack) != levels_.end();
  if (has_stack) {
    auto texts = std::make_shared<FrameTextTable>(tables.frame_count());
    for (std::size_t f = 0; f < texts->size(); ++f) {
      (*texts)[f] = tables.frame_text(FrameId(static_cast<std::uint32_t>(f)));
    }
    frame_rank_ = ranks_by_text<FrameId>(*texts);
    frame_texts_ = std::move(texts);
  }
  const std::size_t width = levels_.size();
  for (std::size_t level = 0; level < width; ++level) {
    if (levels_[level] == GroupBy::kStack) continue;
    std::vector<std::uint64_t> distinct;
    for (std::size_t i = level; i < values.size(); i += width) distinct.push_back(values[i]);
    if (levels_[level] == GroupBy::kImpacting) distinct = {0, 1, 2, 3};
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    std::vector<std::string> texts;
    for (std::uint64_t v : distinct) texts.push_back(render_key_value(tables, levels_[level], v).text);
    const std::vector<std::uint32_t> rank = ranks_by_text<std::uint64_t>(texts);
    for (std::size_t i = 0; i < distinct.size(); ++i) value_rank_[level][distinct[i]] = rank[i];
  }
}

int KeyOrder::compare_stacks(StackId a, StackId b) const {
  // Frame by frame from the top; the stack that ends first is a prefix.
  while (a.valid() && b.valid()) {
    if (a == b) return 0;  // the same node: the same frames from here on
    const StackNode& na = tables_.stack(a);
    const StackNode& nb = tables_.stack(b);
    const std::uint32_t ra = frame_rank_[na.frame.index()], rb = frame_rank_[nb.frame.index()];
    if (ra != rb) return ra < rb ? -1 : 1;
    a = na.parent;
    b = nb.parent;
  }
  return a.valid() ? 1 : b.valid() ? -1 : 0;
}

bool KeyOrder::less(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b) const {
  for (std::size_t level = 0; level < levels_.size(); ++level) {
    if (levels_[level] == GroupBy::kStack) {
      const int c = compare_stacks(StackId(static_cast<std::uint32_t>(a[level])), StackId(static_cast<std::uint32_t>(b[level])));
      if (c != 0) return c < 0;
      continue;
    }
    const std::uint32_t ra = value_rank_[level].at(a[level]), rb = value_rank_[level].at(b[level]);
    if (ra != rb) return ra < rb;
  }
  return false;
}

}  // namespace heapql
