// What a query answers: rows of group keys with their measures, totals, the
// remainder beyond top N, the peak and the series. Plain data for the report
// writers and the Lua layer (lua/host/result_binding.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/stack_frames.h"
#include "engine/store/source_info.h"

namespace heapql {

struct Measures {
  // The five xperf measures (§3): blocks allocated in the window only.
  std::uint64_t so = 0, soc = 0, st = 0, stc = 0, src = 0;
  // WPA's measures (§7), filled when the query uses impacting types.
  std::uint64_t count = 0, size = 0;
  std::int64_t impacting = 0;
  std::uint64_t blocks = 0;  // blocks that contributed anything (a row with 0 is not shown)

  // Inline: on the roll-up's per-bucket path.
  void add(const Measures& o) {
    so += o.so, soc += o.soc, st += o.st, stc += o.stc, src += o.src;
    count += o.count, size += o.size, impacting += o.impacting, blocks += o.blocks;
  }
  std::uint64_t value(Measure m) const {
    switch (m) {
      case Measure::kSo: return so;
      case Measure::kSoc: return soc;
      case Measure::kSt: return st;
      case Measure::kStc: return stc;
      case Measure::kSrc: return src;
      case Measure::kImpacting: return magnitude(impacting);
    }
    return 0;
  }
  // |v|, whole: the magnitude of INT64_MIN too.
  static std::uint64_t magnitude(std::int64_t v) {
    return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  }
};

struct KeyValue {
  GroupBy level = GroupBy::kStack;
  std::string text;    // every level but stack
  StackFrames frames;  // stack: top first
  StackId stack;       // stack: the culled stack's node
  // The value the aggregator keys this level by (a stack node, frame,
  // module string, process, heap, kind, thread or impacting type id): what
  // the drill-down (row_detail.h) matches a bucket's key against.
  std::uint64_t id = 0;
};

struct Row {
  std::vector<KeyValue> key;
  Measures measures;
  std::vector<std::string> derived;  // values of Result::derived_columns, in order
};

struct Peak {
  std::uint64_t bytes = 0;
  std::uint64_t blocks = 0;
  std::int64_t time_ns = 0;
};

// Outstanding size over time, sampled into buckets, each the maximum over its
// span (§8), so that short spikes show.
struct Series {
  std::int64_t start_ns = 0;
  std::int64_t bucket_ns = 0;
  std::vector<std::uint64_t> max_bytes;
};

// The drill-down of one listed row (Query::detail; row_detail.h): the blocks
// the row counts, by full stack, by size and by lifetime. Each of stacks (with
// other_stacks), sizes and lifetimes (with not_freed) adds up to blocks and
// bytes, which are the row's Measures::blocks and their bytes.
struct DetailStack {
  StackFrames frames;  // the full (unculled) stack, top first
  StackId stack;
  std::size_t culled_frames = 0;  // how many of its top frames the query's culling removes
  Measures measures;   // the stack's part of the row's measures
  std::uint64_t bytes = 0;
};

// Blocks whose value (a size in bytes, a lifetime in ns) is in [from, to);
// `to` none: no upper bound.
struct DetailBin {
  std::uint64_t from = 0;
  std::optional<std::uint64_t> to;
  std::uint64_t blocks = 0, bytes = 0;
};

struct RowDetail {
  std::uint64_t row = 0;  // 1-based rank among the rows listed
  std::vector<KeyValue> key;
  std::uint64_t blocks = 0, bytes = 0;
  // The row's sort measure first, then bytes, blocks and the stack's text;
  // at most kDetailStacks, the rest summed.
  std::vector<DetailStack> stacks;
  std::uint64_t other_stacks = 0, other_blocks = 0, other_bytes = 0;
  std::vector<DetailBin> sizes;      // power-of-two bins, ascending, non-empty only
  std::vector<DetailBin> lifetimes;  // decade bins of ns from 1 us, ascending, non-empty only
  std::uint64_t not_freed_blocks = 0, not_freed_bytes = 0;  // lifetime unbounded (semantics.md §4)
};

inline constexpr std::size_t kDetailStacks = 20;

// Everything a result says but its rows: what a diff keeps of each side.
struct ResultSummary {
  Query query;
  bool realloc_known = false;  // false: src is unavailable (null)
  bool impacting_measures = false;
  Measures totals;
  std::optional<Measures> other;  // rows beyond top N, summed
  std::uint64_t other_rows = 0;
  std::uint64_t temporary_blocks = 0;  // among the counted blocks
  // Blocks allocated in the window that the filters removed.
  std::uint64_t excluded_blocks = 0, excluded_bytes = 0;
  Peak peak;
  std::optional<Series> series;
  std::int64_t trace_end_ns = 0;
  // Columns a recipe computed per row (never by the engine); the writers
  // show them after the measures.
  std::vector<std::string> derived_columns;
  std::optional<RowDetail> detail;  // when the query asks for one and has that row
};

struct Result : ResultSummary {
  std::vector<Row> rows;
};

}  // namespace heapql
