#include "engine/query/summary.h"

#include <vector>

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
  // Distinct stacks of the buckets: a bit per stack node (the last for "no stack").
  std::vector<bool> seen(tables.stack_count() + 1, false);
  std::size_t unique_stacks = 0;
  for (std::size_t i = 0; i < tables.bucket_count(); ++i) {
    const StackId stack = tables.bucket(BucketId(std::uint32_t(i))).stack;
    const std::size_t bit = stack.valid() ? stack.index() : tables.stack_count();
    if (!seen[bit]) {
      seen[bit] = true;
      ++unique_stacks;
    }
  }
  s.unique_stacks = unique_stacks;
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
