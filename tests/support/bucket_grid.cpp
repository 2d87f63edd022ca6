#include "tests/support/bucket_grid.h"

#include <fmt/format.h>

namespace heapql::test {

TraceTables make_bucket_grid(int frames, std::uint32_t threads, std::vector<BucketId>& buckets) {
  TraceTables tables;
  const StringId app = tables.intern_string("app");
  const ProcessId process = tables.intern_process(7, "app");
  const HeapId heap = tables.intern_heap(process, 0, "default");
  StackId parent;
  for (int f = 0; f < frames; ++f) {
    const StackId stack =
        tables.intern_stack(tables.intern_frame(app, tables.intern_string(fmt::format("f{}", f)), 0), parent);
    if (f % 2 == 0) parent = stack;
    for (std::uint32_t thread = 0; thread < threads; ++thread) {
      buckets.push_back(tables.intern_bucket(Bucket{16u * (1 + f % 3), stack, heap, thread, BlockKind::kHeap, false}));
    }
  }
  return tables;
}

std::vector<std::pair<std::string, Query>> one_query_per_layout(std::int64_t begin_ns, std::int64_t end_ns,
                                                                bool with_lifetime) {
  std::vector<std::pair<std::string, Query>> all;
  Query by_stack;
  by_stack.by = {GroupBy::kStack, GroupBy::kThread};
  by_stack.default_cull = false;
  all.emplace_back("by stack, thread (whole-trace layout)", by_stack);
  Query temporary = by_stack;
  temporary.temporary_only = true;
  all.emplace_back("temporary only (open-window layout)", temporary);
  Query open_window = by_stack;
  open_window.window.begin_ns = begin_ns;
  all.emplace_back("a window with no end (open-window layout)", open_window);
  Query window = by_stack;
  window.window.begin_ns = begin_ns;
  window.window.end_ns = end_ns;
  window.by = {GroupBy::kImpacting, GroupBy::kStack};
  all.emplace_back("window, impacting (full layout)", window);
  Query peak = by_stack;
  peak.block_set = BlockSet::kAtPeak;
  all.emplace_back("at peak (peak layout)", peak);
  if (with_lifetime) {
    Query lifetime = by_stack;
    lifetime.lifetime_min_ns = (end_ns - begin_ns) / 80;
    all.emplace_back("lifetime (blocks kept)", lifetime);
  }
  return all;
}

}  // namespace heapql::test
