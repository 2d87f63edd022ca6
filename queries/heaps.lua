-- heaps: how much did each heap of each process allocate and keep? The five
-- measures per process and heap (semantics.md §3), biggest first. heaptrack
-- traces have one implicit heap per process; ETW traces one row per heap
-- handle, and VirtualAlloc commits as the pseudo heap "VirtualAlloc".
local hq = require "heapql"

return hq.recipe {
  name = "heaps",
  doc = "How much did each heap of each process allocate (st, stc) and still hold (so, soc)?",
  params = {
    window = { type = "duration_range", default = "all", doc = "time window T1..T2: blocks allocated in it" },
    sort = { type = "string", default = "so", doc = "sort by so|soc|st|stc|src" },
    top = { type = "integer", default = 100, doc = "heaps to list; the rest are summed as [other]" },
  },
  query = function(p)
    return { window = p.window, by = { "process", "heap" }, sort = p.sort, top = p.top }
  end,
}
