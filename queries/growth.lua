-- growth: why did steady state grow between two times? WPA's answer
-- (semantics.md §7): the blocks allocated inside the window and still
-- outstanding at its end (AIFO) grew outstanding memory, the blocks allocated
-- before it and freed inside it (AOFI) shrank it; a stack's impacting size is
-- AIFO bytes minus AOFI bytes. Blocks that came and went (AIFI) or lived
-- through (AOFO) do not change it and are left out.
--
-- By default the window is the second half of the trace (from its middle to
-- its end), which compares the steady state at half time with the state at
-- the end. The report lists the stacks by impacting size, biggest change
-- first; --format json|csv prints the engine's result (sorted by so).
local hq = require "heapql"

local commas = hq.format_count

-- A change with its sign: hq.format_bytes writes a minus, the plus is ours.
local function signed_bytes(n)
  return (n < 0 and "" or "+") .. hq.format_bytes(n)
end

local function signed_commas(n)
  return (n < 0 and "" or "+") .. commas(n)
end

-- "1 block", "2 blocks"
local function count_of(n, noun)
  return commas(n) .. " " .. noun .. (n == 1 and "" or "s")
end

local FRAMES_SHOWN = 4

return hq.recipe {
  name = "growth",
  doc = "Why did outstanding memory grow between two times: impacting size (AIFO minus AOFI bytes) by stack?",
  params = {
    from = { type = "duration", doc = "start of the window (default: the middle of the trace)" },
    to = { type = "duration", doc = "end of the window (default: the end of the trace)" },
    top = { type = "integer", default = 20, doc = "stacks to list, biggest change first" },
    cull = { type = "patterns", doc = "extra frame patterns to cull from stack tops" },
  },
  run = function(trace, p, out)
    local first = p.from and hq.parse.duration(p.from)
    local last = p.to and hq.parse.duration(p.to)
    if not first then
      -- The middle of the trace, on a whole millisecond so the header reads well.
      local duration = trace:source().duration_ns
      first = duration // 2 // 1000000 * 1000000
      if last and first > last then first = 0 end
    end
    if last and last < first then
      error(string.format("growth: --param to=%s is before the window's start (%s)", p.to,
        hq.format_duration(first)), 0)
    end
    local q = {
      window = { first = first, last = last },
      impacting = { "AIFO", "AOFI" },
      cull = p.cull,
      by = "stack",
      sort = "so",
      top = p.top,
    }
    if out.format ~= "table" then
      out:result(trace:query(q))
      return
    end

    -- Ranked by the size of their change (|impacting|), biggest first, by
    -- the engine: only the stacks listed are named.
    q.sort = "impacting"
    local result = trace:query(q)
    local info, totals = result:info(), result:totals()
    local window_end = info.window_end_ns and hq.format_duration(info.window_end_ns)
      or ("the end of the trace (" .. hq.format_duration(info.trace_end_ns) .. ")")
    local aofi = totals.so - totals.impacting  -- the AIFO part of every row is its so
    out:line("outstanding memory changed by %s (%s bytes) between %s and %s", signed_bytes(totals.impacting),
      signed_commas(totals.impacting), hq.format_duration(info.window_start_ns), window_end)
    out:line("  grew by   %s in %s allocated in the window and still outstanding at its end (AIFO)",
      hq.format_bytes(totals.so), count_of(totals.soc, "block"))
    out:line("  shrank by %s in %s allocated before the window and freed inside it (AOFI)",
      hq.format_bytes(aofi), count_of(totals.count - totals.soc, "block"))
    out:line("impacting = AIFO bytes - AOFI bytes: a positive row grew steady state, a negative row shrank it")
    if info.block_identity ~= "exact" then
      out:line("caution: this trace has no block addresses, so which blocks lived across the window's ends is an attribution")
    end
    out:line("")

    -- A stack whose AIFO and AOFI bytes cancel changed nothing: not listed.
    local rows = {}
    for _, row in result:each() do
      if row.impacting ~= 0 then rows[#rows + 1] = row end
    end
    out:line("%12s %12s %12s %12s  %s", "impacting", "AIFO", "AOFI", "blocks", "stack")
    local indent = string.rep(" ", 4 * 13 + 2)
    for _, row in ipairs(rows) do
      local frames = row.stack
      out:line("%12s %12s %12s %12s  %s", signed_bytes(row.impacting), hq.format_bytes(row.so),
        hq.format_bytes(row.so - row.impacting), commas(row.count), frames[1] or "[no stack]")
      for f = 2, math.min(#frames, FRAMES_SHOWN) do out:line("%s%s", indent, frames[f]) end
      if #frames > FRAMES_SHOWN then
        out:line("%s... %s", indent, count_of(#frames - FRAMES_SHOWN, "more frame"))
      end
    end
    local other = result:other()
    if other then
      -- The stacks past the top, summed: those that changed nothing too.
      out:line("%12s %12s %12s %12s  [%s]", signed_bytes(other.impacting), hq.format_bytes(other.so),
        hq.format_bytes(other.so - other.impacting), commas(other.count), count_of(other.rows, "more stack"))
    end
    if #rows == 0 then out:line("(no stack changed outstanding memory in this window)") end
    out:line("%12s %12s %12s %12s  [total]", signed_bytes(totals.impacting), hq.format_bytes(totals.so),
      hq.format_bytes(aofi), commas(totals.count))
  end,
}
