-- top-frames: which functions call the allocator? xperf's -frames view:
-- blocks allocated in the window grouped by the top frame left after culling
-- (semantics.md §6). Besides the built-in allocator list this culls glibc's
-- internal allocation helpers (cull/libc-linux.txt) and, unless stl=false,
-- the C++ standard library's container and string growth templates
-- (cull/stl.txt): the frame shown is then the code that used the container,
-- not std::__new_allocator<T>::allocate.
local hq = require "heapql"

return hq.recipe {
  name = "top-frames",
  doc = "Which functions call the allocator (top culled frame, C++ library helpers culled); sorted by so?",
  params = {
    window = { type = "duration_range", default = "all", doc = "time window T1..T2: blocks allocated in it" },
    sort = { type = "string", default = "so", doc = "sort by so|soc|st|stc|src" },
    top = { type = "integer", default = 20, doc = "frames to list; the rest are summed as [other]" },
    stl = { type = "boolean", default = true, doc = "also cull C++ standard library allocation helpers (cull/stl.txt)" },
    cull = { type = "patterns", doc = "extra frame patterns to cull from stack tops" },
  },
  query = function(p)
    local cull = hq.cull.defaults + hq.cull.shipped "libc-linux"
    if p.stl then cull = cull + hq.cull.shipped "stl" end
    return { window = p.window, cull = cull + (p.cull or {}), by = "frame", sort = p.sort, top = p.top }
  end,
}
