-- temporary: which stacks allocate blocks that are freed right away? A
-- block is temporary when its free is the very next heap event after its
-- allocation (semantics.md §8): an allocation that bought nothing, a
-- candidate for a stack buffer, a reused buffer or no buffer at all. Grouped
-- by culled stack, most allocation calls first.
local hq = require "heapql"

local commas = hq.format_count

return hq.recipe {
  name = "temporary",
  doc = "Which stacks allocate temporary blocks (freed by the very next heap event), most calls first?",
  params = {
    window = { type = "duration_range", default = "all", doc = "time window T1..T2" },
    top = { type = "integer", default = 20, doc = "stacks to list; the rest are summed as [other]" },
    cull = { type = "patterns", doc = "extra frame patterns to cull from stack tops" },
  },
  query = function(p)
    return { window = p.window, temporary = true, cull = p.cull, by = "stack", sort = "stc", top = p.top }
  end,
  report = function(result, out, p)
    local totals = result:totals()
    out:line("temporary: %s allocations, %s bytes (%s), each freed by the next heap event after it",
      commas(totals.stc), commas(totals.st), hq.format_bytes(totals.st))
    out:line("(heaptrack_print counts by a looser rule, so its \"temporary memory allocations\" can differ a little)")
    out:line("")
    out:table(result)
  end,
}
