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
    }
    return 0;
  }
};

struct KeyValue {
  GroupBy level = GroupBy::kStack;
  std::string text;    // every level but stack
  StackFrames frames;  // stack: top first
  StackId stack;       // stack: the culled stack's node
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
};

struct Result : ResultSummary {
  std::vector<Row> rows;
};

}  // namespace heapql
