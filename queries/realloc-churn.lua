-- realloc-churn: which stacks keep reallocating? Sorted by src, the number of
-- blocks produced by a realloc (semantics.md §3), by culled stack.
--
-- Some sources do not mark reallocs (heaptrack writes a realloc as a free
-- followed by an allocation; semantics.md §1): there src is unknown, never a
-- guess, and sorting by it would mean nothing. The recipe then says so and
-- falls back to stc, allocation calls (each realloc counts as one), over the
-- blocks that were also freed inside the window (AIFI): churn is memory that
-- is allocated and given back again and again, and a growing buffer's every
-- step is such a block. Blocks still alive at the window's end (leaks,
-- caches) are left out of the fallback: many small leaked nodes would
-- otherwise head the list without churning at all.
local hq = require "heapql"

local commas = hq.format_count

return hq.recipe {
  name = "realloc-churn",
  doc = "Which stacks reallocate most (src)? Where reallocs are not marked: most allocation calls freed in the window (stc, AIFI)",
  params = {
    window = { type = "duration_range", default = "all", doc = "time window T1..T2" },
    top = { type = "integer", default = 20, doc = "stacks to list; the rest are summed as [other]" },
    cull = { type = "patterns", doc = "extra frame patterns to cull from stack tops" },
  },
  run = function(trace, p, out)
    -- Asked of the trace first: ranking by src where every src is 0 orders
    -- every stack by its frames, only for the answer to be thrown away.
    local fallback = not trace:source().realloc_known
    local q = { window = p.window, cull = p.cull, by = "stack", sort = "src", top = p.top }
    if fallback then
      q.sort, q.impacting = "stc", "AIFI"
    end
    local result = trace:query(q)
    if out.format ~= "table" then
      -- The JSON says which sort was used: query.sort is "src" or "stc".
      out:result(result)
      return
    end
    local totals = result:totals()
    if fallback then
      out:line("note: this source does not mark reallocs (it records a realloc as a free and an allocation),")
      out:line("      so src is unknown. Sorted by stc instead: allocation calls (a realloc counts as one) whose")
      out:line("      block was freed again inside the window (AIFI), which is what a realloc loop leaves behind;")
      out:line("      blocks still alive at the window's end are left out.")
      out:line("churn: %s allocation calls, %s bytes (%s), allocated and freed inside the window",
        commas(totals.stc), commas(totals.st), hq.format_bytes(totals.st))
    else
      out:line("reallocs: %s of %s allocation calls in the window produced their block by a realloc",
        commas(totals.src), commas(totals.stc))
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
