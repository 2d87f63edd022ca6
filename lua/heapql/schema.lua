-- heapql.schema: every field of a recipe's query table — its type, default
-- and meaning — and the validator that turns a recipe's table into the plain
-- form the engine reads. docs/recipes.md is generated from `schema.fields`.
local grammar = require "heapql.grammar"
local patterns = require "heapql.patterns"

local schema = {}

local MEASURES = { so = true, soc = true, st = true, stc = true, src = true }
local LEVELS = { stack = true, frame = true, image = true, process = true, heap = true,
                 kind = true, thread = true, impacting = true }
local IMPACTING = { AIFI = true, AIFO = true, AOFI = true, AOFO = true }

local function describe(value)
  if type(value) == "string" then return string.format("%q", value) end
  if type(value) == "table" then return patterns.is_set(value) and "a pattern set" or "a table" end
  if type(value) == "function" then return "a function" end
  return tostring(value) .. " (" .. type(value) .. ")"
end

-- Raised errors are tables so that the caller can add the recipe's name.
local function fail(field, message, given)
  error({ field = field, message = message, given = given }, 0)
end

local function range_of(field, value, parse, open_word)
  if type(value) == "table" and not patterns.is_set(value) then
    local first, last = value.first or value[1] or 0, value.last or value[2]
    if math.type(first) ~= "integer" or (last ~= nil and math.type(last) ~= "integer") then
      fail(field, "expected a range table {first = integer, last = integer or nil}", value)
    end
    if first < 0 then fail(field, "a range starts at 0 or later", value) end
    if last and last < first then fail(field, "the range ends before it starts", value) end
    return { first = first, last = last }
  end
  if type(value) ~= "string" then fail(field, "expected a range string such as " .. open_word, value) end
  local r, err = parse(value)
  if not r then fail(field, err, value) end
  return r
end

local function list_of(value)
  if type(value) == "table" and not patterns.is_set(value) then return value end
  return { value }
end

local function strings(field, value, check)
  local out = {}
  for i, item in ipairs(list_of(value)) do
    if type(item) == "string" then
      local parts, err = grammar.list(item)
      if not parts then fail(field, err, item) end
      for _, part in ipairs(parts) do out[#out + 1] = check and check(part) or part end
    elseif math.type(item) == "integer" then
      out[#out + 1] = check and check(tostring(item)) or tostring(item)
    else
      fail(field, "item " .. i .. " must be a string or an integer", item)
    end
  end
  return out
end

local function pattern_texts(field, value)
  local ok, set = pcall(patterns.set, value)
  if not ok then fail(field, tostring(set):gsub("^.-:%d+: ", ""), value) end
  return set
end

-- Each field: name, type (as the docs show it), default (as the docs show
-- it), doc, and normalize(value, out, query) which writes the engine's form.
schema.fields = {
  { name = "window", type = "duration range", default = '"all"',
    doc = "Time window [T1, T2) since the trace start: only blocks allocated inside count (`10s..20s`, `..5m`, `2s..end`, `all`, or {first = ns, last = ns}).",
    normalize = function(v, out) out.window = range_of("window", v, grammar.duration_range, '"10s..20s"') end },
  { name = "at_peak", type = "boolean", default = "false",
    doc = "Look at the blocks alive at the peak of outstanding size (inside the window) instead of those allocated in it.",
    normalize = function(v, out)
      if type(v) ~= "boolean" then fail("at_peak", "expected true or false", v) end
      out.at_peak = v
    end },
  { name = "size", type = "size range", default = '"all"',
    doc = "Block sizes [A, B) in bytes (`4KB..1MiB`, `64..`; K = 1000, Ki = 1024).",
    normalize = function(v, out) out.size = range_of("size", v, grammar.size_range, '"4KB..1MiB"') end },
  { name = "lifetime", type = "duration range", default = "none",
    doc = "Block lifetimes [A, B) (`100ms..`, `..1s`); an outstanding block lives until the window's end (forever with an open window).",
    normalize = function(v, out) out.lifetime = range_of("lifetime", v, grammar.duration_range, '"100ms.."') end },
  { name = "process", type = "string | integer | list", default = "all",
    doc = "Processes by pid or name (case-insensitive); a list or `\"a,b\"` keeps any of them.",
    normalize = function(v, out) out.process = strings("process", v) end },
  { name = "heap", type = "string | integer | list", default = "all",
    doc = "Heaps by handle (`0x10` or decimal) or name.",
    normalize = function(v, out) out.heap = strings("heap", v) end },
  { name = "kind", type = '"heap" | "virtual" | list', default = "all",
    doc = "Block kinds: heap allocations, or VirtualAlloc commits.",
    normalize = function(v, out)
      out.kind = strings("kind", v, function(k)
        if k ~= "heap" and k ~= "virtual" then fail("kind", "expected heap or virtual", k) end
        return k
      end)
    end },
  { name = "thread", type = "integer | list", default = "all",
    doc = "Allocating threads, by id.",
    normalize = function(v, out)
      local ids = {}
      for _, t in ipairs(strings("thread", v)) do
        local n = math.tointeger(tonumber(t))
        if not n or n < 0 or n > 0xFFFFFFFF then fail("thread", "expected a thread id (0 to 4294967295)", t) end
        ids[#ids + 1] = n
      end
      out.thread = ids
    end },
  { name = "impacting", type = "string | list", default = "none",
    doc = "Keep only blocks of these impacting types (AIFI, AIFO, AOFI, AOFO; WPA's set of blocks, semantics §7).",
    normalize = function(v, out)
      out.impacting = strings("impacting", v, function(t)
        local upper = t:upper()
        if not IMPACTING[upper] then fail("impacting", "expected AIFI, AIFO, AOFI or AOFO", t) end
        return upper
      end)
    end },
  { name = "temporary", type = "boolean", default = "false",
    doc = "Keep only temporary blocks (freed by the very next heap event, semantics §8).",
    normalize = function(v, out)
      if type(v) ~= "boolean" then fail("temporary", "expected true or false", v) end
      out.temporary = v
    end },
  { name = "require", type = "patterns", default = "none",
    doc = "Keep a block only if its full (unculled) stack has a frame matching one of these patterns.",
    normalize = function(v, out) out.require = pattern_texts("require", v):texts() end },
  { name = "exclude", type = "patterns", default = "none",
    doc = "Drop a block if its full (unculled) stack has a frame matching one of these patterns (the opposite of require, semantics §11).",
    normalize = function(v, out) out.exclude = pattern_texts("exclude", v):texts() end },
  { name = "suppressions", type = "string | list", default = "none",
    doc = "LeakSanitizer patterns (the text after `leak:`; `hq.suppressions.file` / `.shipped` read a file of them): drop a block if a frame's function or module name matches one (semantics §11).",
    normalize = function(v, out)
      local texts = {}
      for i, item in ipairs(list_of(v)) do
        if type(item) ~= "string" then fail("suppressions", "item " .. i .. " must be a string", item) end
        texts[#texts + 1] = item
      end
      out.suppressions = texts
    end },
  { name = "embedded_suppressions", type = "boolean", default = "false",
    doc = "Also apply the suppressions a heaptrack file carries (its `S` records, semantics §11).",
    normalize = function(v, out)
      if type(v) ~= "boolean" then fail("embedded_suppressions", "expected true or false", v) end
      out.embedded_suppressions = v
    end },
  { name = "cull", type = "patterns", default = "hq.cull.defaults",
    doc = "Frames to cull from stack tops. A pattern set (`hq.cull.defaults + {...}`) is the whole list; a string or list is added to the default list.",
    normalize = function(v, out, q)
      local set = pattern_texts("cull", v)
      out.cull = set:texts()
      if patterns.is_set(v) then
        if q.default_cull ~= nil then
          fail("default_cull", "not needed when cull is a pattern set, which says itself whether it holds hq.cull.defaults", q.default_cull)
        end
        out.default_cull = false
      end
    end },
  { name = "default_cull", type = "boolean", default = "true",
    doc = "Whether the built-in allocator cull list applies (when `cull` is not a pattern set).",
    normalize = function(v, out)
      if type(v) ~= "boolean" then fail("default_cull", "expected true or false", v) end
      if out.default_cull == nil then out.default_cull = v end
    end },
  { name = "by", type = "string | function | list", default = '"stack"',
    doc = "Grouping, outer level first: stack, frame, image, process, heap, kind, thread, impacting, or a function(frames) returning a key (called once per unique culled stack).",
    normalize = function(v, out)
      local levels, fn = {}, nil
      for i, level in ipairs(type(v) == "table" and v or { v }) do
        if type(level) == "function" then
          if fn then fail("by", "at most one function level", level) end
          fn = level
          levels[#levels + 1] = "custom"
        elseif type(level) == "string" and LEVELS[level] then
          levels[#levels + 1] = level
        else
          fail("by", "level " .. i .. ": expected one of stack|frame|image|process|heap|kind|thread|impacting or a function", level)
        end
      end
      out.by, out.by_function = levels, fn
    end },
  { name = "sort", type = "string", default = '"so"',
    doc = "The measure rows are sorted by, descending: so, soc, st, stc or src.",
    normalize = function(v, out)
      if type(v) ~= "string" or not MEASURES[v] then fail("sort", "expected one of so|soc|st|stc|src", v) end
      out.sort = v
    end },
  { name = "top", type = "integer", default = "10000",
    doc = "Rows to list; the rest are summed as [other].",
    normalize = function(v, out)
      local n = math.tointeger(v)
      if not n or n < 1 then fail("top", "expected a whole number of at least 1", v) end
      out.top = n
    end },
  { name = "totals", type = "boolean", default = "false",
    doc = "Totals only, no rows.",
    normalize = function(v, out)
      if type(v) ~= "boolean" then fail("totals", "expected true or false", v) end
      out.totals = v
    end },
  { name = "series", type = "integer", default = "0",
    doc = "Outstanding size over time in at most this many buckets (each the maximum over its span); 0 = none.",
    normalize = function(v, out)
      local n = math.tointeger(v)
      if not n or n < 0 or n > 100000 then fail("series", "expected a bucket count from 0 to 100000", v) end
      out.series = n
    end },
  { name = "tree", type = "table", default = "{}",
    doc = "Defaults for the stack tree report: {direction = \"top-down\"|\"bottom-up\", threshold = 0.01, depth = 0, measure = sort}.",
    normalize = function(v, out)
      if type(v) ~= "table" then fail("tree", "expected a table", v) end
      local allowed = { direction = true, threshold = true, depth = true, measure = true }
      for k in pairs(v) do
        if not allowed[k] then fail("tree", "unknown option '" .. tostring(k) .. "' (direction, threshold, depth, measure)", k) end
      end
      out.tree = v
    end },
}

local by_name = {}
for i, f in ipairs(schema.fields) do by_name[f.name] = i end

-- Edit distance, for "did you mean" hints on misspelt field names.
local function distance(a, b)
  local previous = {}
  for j = 0, #b do previous[j] = j end
  for i = 1, #a do
    local current = { [0] = i }
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      current[j] = math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
    end
    previous = current
  end
  return previous[#b]
end

local function nearest(name)
  local best, best_score = nil, 3
  for _, f in ipairs(schema.fields) do
    local score = distance(name, f.name)
    if score < best_score then best, best_score = f.name, score end
  end
  return best
end

-- Turns a recipe's query table into the engine's form. `where` names the
-- recipe for messages ("recipe queries/leaks.lua"). Raises a string error.
function schema.normalize(query, where)
  where = where or "query"
  if type(query) ~= "table" then
    error(string.format("%s: query must return a table, got %s", where, type(query)), 0)
  end
  for key in pairs(query) do
    if type(key) ~= "string" or not by_name[key] then
      local hint = type(key) == "string" and nearest(key)
      error(string.format("%s, query field '%s': unknown field%s; fields are: %s", where, tostring(key),
        hint and (" (did you mean '" .. hint .. "'?)") or "", schema.field_list()), 0)
    end
  end
  local out = { by = { "stack" } }
  for _, field in ipairs(schema.fields) do
    local value = query[field.name]
    if value ~= nil then
      local ok, err = pcall(field.normalize, value, out, query)
      if not ok then
        if type(err) == "table" and err.field then
          error(string.format("%s, query field '%s': %s; got %s", where, err.field, err.message, describe(err.given)), 0)
        end
        error(err, 0)
      end
    end
  end
  if out.at_peak and (out.lifetime or out.temporary or (out.impacting and #out.impacting > 0)) then
    error(where .. ", query field 'at_peak': cannot be combined with lifetime, temporary or impacting (blocks alive at the peak have no lifetime yet)", 0)
  end
  return out
end

function schema.field_list()
  local names = {}
  for _, f in ipairs(schema.fields) do names[#names + 1] = f.name end
  return table.concat(names, ", ")
end

return schema
