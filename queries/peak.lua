-- peak: what was alive at the peak? The first instant at which outstanding
-- size is largest (inside the window; semantics.md §8) and the blocks alive
-- then, grouped by culled stack, biggest first. The report prints the peak
-- and each stack's share of it.
local hq = require "heapql"

local commas = hq.format_count

return hq.recipe {
  name = "peak",
  doc = "What was alive at the peak of outstanding memory, by stack, and when was the peak?",
  params = {
    window = { type = "duration_range", default = "all", doc = "look for the peak inside this window T1..T2" },
    top = { type = "integer", default = 20, doc = "stacks to list; the rest are summed as [other]" },
    cull = { type = "patterns", doc = "extra frame patterns to cull from stack tops" },
  },
  query = function(p)
    return { window = p.window, at_peak = true, cull = p.cull, by = "stack", sort = "so", top = p.top }
  end,
  report = function(result, out, p)
    local peak = result:peak()
    out:line("peak: %s (%s bytes) in %s blocks at %s", hq.format_bytes(peak.bytes), commas(peak.bytes),
      commas(peak.blocks), hq.format_duration(peak.time_ns))
    out:line("")
    out:table(result, { columns = {
      { "% of peak", function(row)
          if peak.bytes == 0 then return "" end
          return string.format("%.2f%%", 100 * row.so / peak.bytes)
        end },
    } })
  end,
}
