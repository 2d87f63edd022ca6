#include "engine/query/summary.h"

#include <unordered_set>

namespace heapql {

Query summary_query() {
  Query q;
  q.default_cull = false;
  q.totals_only = true;
  return q;
}

TraceSummary summarize(const TraceTables& tables, const SourceInfo& source, const Result& whole_trace) {
  TraceSummary s;
  s.source = source;
  s.blocks = whole_trace.totals.stc;
  s.frees = whole_trace.totals.stc - whole_trace.totals.soc;
  std::unordered_set<std::uint32_t> stacks;
  for (std::size_t i = 0; i < tables.bucket_count(); ++i) stacks.insert(tables.bucket(BucketId(std::uint32_t(i))).stack.value);
  s.unique_stacks = stacks.size();
  s.stack_nodes = tables.stack_count();
  s.unique_frames = tables.frame_count();
  s.unique_modules = tables.module_count();
  s.processes = tables.process_count();
  s.heaps = tables.heap_count();
  s.duration_ns = source.end_ns;
  s.total_allocated_bytes = whole_trace.totals.st;
  s.leaked_bytes = whole_trace.totals.so;
  s.leaked_blocks = whole_trace.totals.soc;
  s.peak = whole_trace.peak;
  s.temporary = whole_trace.temporary_blocks;
  return s;
}

}  // namespace heapql
