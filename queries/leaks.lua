-- leaks: leak candidates. The blocks allocated inside the window that are
-- still outstanding when it ends (WPA's AIFO, semantics.md §7), grouped by
-- culled stack, biggest outstanding size first. With the default window (the
-- whole trace) these are the blocks never freed: heaptrack's "leaked".
local hq = require "heapql"

-- 1234567 -> "1,234,567"
local commas = hq.format_count

return hq.recipe {
  name = "leaks",
  doc = "Which stacks allocated the blocks still outstanding when the window ends (AIFO: leak candidates)?",
  params = {
    window = { type = "duration_range", default = "all",
               doc = "time window T1..T2: blocks allocated in it and not freed by T2 (all = whole trace: never freed)" },
    top = { type = "integer", default = 20, doc = "stacks to list; the rest are summed as [other]" },
    min_size = { type = "size", default = "0", doc = "ignore blocks smaller than this (64, 4KiB, 1MB)" },
    cull = { type = "patterns", doc = "extra frame patterns to cull from stack tops (your allocation wrappers)" },
  },
  query = function(p)
    local q = {
      window = p.window,
      impacting = "AIFO",
      -- The built-in allocator frames plus glibc's internal names and
      -- string-duplication helpers, so a leak is charged to its caller.
      cull = hq.cull.defaults + hq.cull.shipped "libc-linux" + (p.cull or {}),
      by = "stack",
      sort = "so",
      top = p.top,
      tree = { direction = "bottom-up", depth = 4 },
    }
    if hq.parse.size(p.min_size) > 0 then q.size = p.min_size .. ".." end
    return q
  end,
  report = function(result, out, p)
    local info, totals = result:info(), result:totals()
    local stacks = #result:rows() + ((result:other() or {}).rows or 0)
    local from = stacks == 1 and "1 stack" or (stacks .. " stacks")
    local what
    if info.window_end_ns then
      what = "allocated in the window and still outstanding at " .. hq.format_duration(info.window_end_ns)
    else
      what = (info.window_start_ns > 0 and ("allocated from " .. hq.format_duration(info.window_start_ns) .. " on and ") or "")
        .. "never freed before the trace ended (" .. hq.format_duration(info.trace_end_ns) .. ")"
    end
    out:line("leak candidates: %s blocks, %s bytes (%s) from %s, %s", commas(totals.soc), commas(totals.so),
      hq.format_bytes(totals.so), from, what)
    -- Over the whole trace, what was never freed is exact per size and stack
    -- even without block addresses (semantics.md §1); a narrower window is not.
    if info.block_identity ~= "exact" and (info.window_start_ns > 0 or info.window_end_ns) then
      out:line("caution: this trace has no block addresses, so which blocks outlived the window is an attribution (see the note below)")
    end
    out:line("")
    out:table(result)
    -- With one stack the tree would only repeat it.
    if #result:rows() > 1 then
      out:line("")
      out:line("the same blocks as a bottom-up tree: allocation sites first, then their callers (4 levels)")
      out:tree(result)
    end
  end,
}
