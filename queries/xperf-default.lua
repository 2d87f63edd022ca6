-- xperf-default: what a bare `xperf -i trace.etl -a heap` prints
-- (formats/etw-heap.md §1): the whole trace, blocks grouped by stack after
-- culling with the built-in allocator list, sorted by outstanding size,
-- 10,000 rows at most. No params and no report of its own: its output in
-- every format is exactly `heapql query TRACE --by stack --sort so`.
local hq = require "heapql"

return hq.recipe {
  name = "xperf-default",
  doc = "What a bare `xperf -a heap` prints: whole trace, by culled stack, sorted by so, top 10000",
  query = function()
    return { window = "all", cull = hq.cull.defaults, by = "stack", sort = "so", top = 10000 }
  end,
}
