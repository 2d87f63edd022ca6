// The trace summary behind `heapql info`: what was read, whole-trace figures
// (semantics.md §8, §9) and the source's capabilities.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/query/result.h"
#include "engine/store/source_info.h"
#include "engine/store/store_file_info.h"
#include "engine/store/trace_tables.h"

namespace heapql {

struct StoreStats {
  std::uint64_t column_bytes = 0;
  std::uint64_t table_bytes = 0;
  double bytes_per_block = 0;
};

struct TraceSummary {
  SourceInfo source;
  std::uint64_t blocks = 0;        // allocation events (reallocs included)
  std::uint64_t frees = 0;
  std::uint64_t unique_stacks = 0;  // distinct allocating stacks
  std::uint64_t stack_nodes = 0;
  std::uint64_t unique_frames = 0;
  std::uint64_t unique_modules = 0;
  std::uint64_t processes = 0;
  std::uint64_t heaps = 0;
  std::int64_t duration_ns = 0;
  std::uint64_t total_allocated_bytes = 0;
  std::uint64_t leaked_bytes = 0;
  std::uint64_t leaked_blocks = 0;
  Peak peak;
  std::uint64_t temporary = 0;
  std::optional<StoreStats> store;
  std::optional<StoreFileInfo> store_file;  // answered from a store file
};

// The query whose result `summarize` reads: the whole trace, no filters.
Query summary_query();
TraceSummary summarize(const TraceTables& tables, const SourceInfo& source, const Result& whole_trace);

}  // namespace heapql
