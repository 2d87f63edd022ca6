-- regression: what a CI job runs after a change. The same query on a
-- baseline trace (the last good build) and on this one; every stack whose
-- outstanding bytes at the end grew by more than `budget` fails the run
-- (exit 1). The report is the diff (semantics.md §10), biggest change first.
local hq = require "heapql"

return hq.recipe {
  name = "regression",
  doc = "Fail (exit 1) when any stack's outstanding bytes grew by more than `budget` since a baseline trace.",
  params = {
    baseline = { type = "path", doc = "the baseline trace, or its store (required)" },
    budget = { type = "size", default = "0", doc = "growth in outstanding bytes a stack may have (64, 4KiB, 1MB)" },
    window = { type = "duration_range", default = "all", doc = "the same window of both traces, each from its own start" },
    top = { type = "integer", default = 20, doc = "stacks to list, biggest change first; the rest are summed as [other]" },
    cull = { type = "patterns", doc = "extra frame patterns to cull from stack tops (your allocation wrappers)" },
  },
  run = function(trace, p, out)
    if not p.baseline then
      error("regression: --param baseline=TRACE is required: the trace to compare this one with", 0)
    end
    local q = {
      window = p.window,
      cull = hq.cull.defaults + hq.cull.shipped "libc-linux" + (p.cull or {}),
      by = "stack",
      sort = "so",
      top = math.maxinteger,  -- every stack is gated, not only those listed
    }
    local before = hq.open(p.baseline):query(q)
    local now = trace:query(q)
    local budget = hq.parse.size(p.budget)
    local grown = 0
    for _, row in hq.diff(before, now):each() do
      if row.delta.so > budget then grown = grown + 1 end
    end
    out:result(hq.diff(before, now, { top = p.top }))
    hq.fail_if(grown > 0, string.format("%d stack%s grew by more than %s of outstanding memory since %s", grown,
      grown == 1 and "" or "s", hq.format_bytes(budget), p.baseline))
  end,
}
