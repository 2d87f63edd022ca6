-- transient: the memory that came and went. Blocks allocated and freed inside
-- the window (WPA's AIFI, semantics.md §7), grouped by culled stack, most
-- bytes allocated first. They do not grow steady state, but they cost
-- allocator time and raise the peak while they live.
--
-- Grouping is by stack only: heapql has no size grouping level, so sizes are
-- handled by the min_size filter, and the report adds each row's average
-- block size (st / stc) beside the measures.
local hq = require "heapql"

local commas = hq.format_count

return hq.recipe {
  name = "transient",
  doc = "Which stacks allocate the most bytes that are freed again inside the window (AIFI), by stack; min_size filters sizes?",
  params = {
    window = { type = "duration_range", default = "all", doc = "time window T1..T2: blocks allocated and freed inside it" },
    top = { type = "integer", default = 20, doc = "stacks to list; the rest are summed as [other]" },
    min_size = { type = "size", default = "0", doc = "ignore blocks smaller than this (64, 4KiB, 1MB)" },
    cull = { type = "patterns", doc = "extra frame patterns to cull from stack tops" },
  },
  query = function(p)
    local q = {
      window = p.window,
      impacting = "AIFI",
      cull = p.cull,
      by = "stack",
      sort = "st",
      top = p.top,
    }
    if hq.parse.size(p.min_size) > 0 then q.size = p.min_size .. ".." end
    return q
  end,
  report = function(result, out, p)
    local totals = result:totals()
    out:line("transient: %s blocks, %s bytes (%s) allocated and freed again inside the window",
      commas(totals.stc), commas(totals.st), hq.format_bytes(totals.st))
    if hq.parse.size(p.min_size) > 0 then
      out:line("only blocks of at least %s bytes (min_size)", commas(hq.parse.size(p.min_size)))
    end
    out:line("")
    out:table(result, { columns = {
      { "avg size", function(row)
          if row.stc == 0 then return "" end
          return hq.format_bytes(row.st // row.stc)
        end },
    } })
  end,
}
