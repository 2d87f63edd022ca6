-- top-images: which modules allocate? xperf's -images view: blocks allocated
-- in the window grouped by the module of the top frame left after culling
-- the allocator's own frames (semantics.md §6).
local hq = require "heapql"

return hq.recipe {
  name = "top-images",
  doc = "Which modules (images) call the allocator most, by the top culled frame's module; sorted by st?",
  params = {
    window = { type = "duration_range", default = "all", doc = "time window T1..T2: blocks allocated in it" },
    sort = { type = "string", default = "st", doc = "sort by so|soc|st|stc|src" },
    top = { type = "integer", default = 20, doc = "modules to list; the rest are summed as [other]" },
    cull = { type = "patterns", doc = "extra frame patterns to cull from stack tops" },
  },
  query = function(p)
    return { window = p.window, cull = p.cull, by = "image", sort = p.sort, top = p.top }
  end,
}
