-- heapql.schema: the one definition of a query. Every field — its type,
-- default, meaning, and the command-line option that sets it — and the
-- validator that turns a recipe's table, or `heapql query`'s options, into the
-- plain form the engine reads (lua/host/query_from_lua.cpp copies it).
-- docs/recipes.md, `heapql help`'s query options and docs/cli.md's option
-- table are generated from `schema.fields`.
local grammar = require "heapql.grammar"
local patterns = require "heapql.patterns"

local schema = {}

-- The values some fields take, in the order help shows them: each field's
-- `choices` (`heapql help query --format json` lists them for forms), its
-- checks and its help text are made from these lists.
local LEVEL_NAMES = { "stack", "frame", "image", "process", "heap", "kind", "thread", "impacting" }
local IMPACTING_NAMES = { "AIFI", "AIFO", "AOFI", "AOFO" }
local KIND_NAMES = { "heap", "virtual" }
-- Rows rank by one of the five measures, or by the magnitude of their
-- impacting size (only in a query with impacting types: the cross-field
-- check in normalize_through).
local SORT_NAMES = { "so", "soc", "st", "stc", "src", "impacting" }

local function set_of(list)
  local set = {}
  for _, item in ipairs(list) do set[item] = true end
  return set
end
local SORT_KEYS, LEVELS, IMPACTING, KINDS = set_of(SORT_NAMES), set_of(LEVEL_NAMES), set_of(IMPACTING_NAMES),
  set_of(KIND_NAMES)
local LEVEL_WORDS = table.concat(LEVEL_NAMES, "|")
local SORT_WORDS = table.concat(SORT_NAMES, "|")

-- Edit distance, for "did you mean" hints on misspelt field names and values.
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

-- " (did you mean 'stack'?)" for a word near one of a set's keys (case
-- ignored), else "".
local function near_key(set, word)
  if type(word) ~= "string" then return "" end
  local best, best_score = nil, math.max(2, #word // 3 + 1)
  for key in pairs(set) do
    local score = distance(word:lower(), key:lower())
    if score < best_score or (score == best_score and best and key < best) then best, best_score = key, score end
  end
  return best and (" (did you mean '" .. best .. "'?)") or ""
end


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

local function plain_strings(field, value)
  local texts = {}
  for i, item in ipairs(list_of(value)) do
    if type(item) ~= "string" then fail(field, "item " .. i .. " must be a string", item) end
    texts[#texts + 1] = item
  end
  return texts
end

-- Strings, or lists of them (what hq.suppressions.file returns): one list.
local function flat_strings(field, value)
  local texts = {}
  for i, item in ipairs(list_of(value)) do
    if type(item) == "table" and not patterns.is_set(item) then
      for j, text in ipairs(item) do
        if type(text) ~= "string" then fail(field, "item " .. i .. "[" .. j .. "] must be a string", text) end
        texts[#texts + 1] = text
      end
    elseif type(item) == "string" then
      texts[#texts + 1] = item
    else
      fail(field, "item " .. i .. " must be a string or a list of strings", item)
    end
  end
  return texts
end

local function pattern_texts(field, value)
  local ok, set = pcall(patterns.set, value)
  if not ok then fail(field, tostring(set):gsub("^.-:%d+: ", ""), value) end
  return set
end

-- Each field: name, type (as the docs show it), default (as the docs show
-- it), doc, choices (the values it takes, when a fixed list), the flag that
-- sets it, and normalize(value, out, query) which writes the engine's form.
schema.fields = {
  { name = "window", type = "duration range", default = '"all"',
    flag = { "--window", "A..B", help = "time window, e.g. 1s..3s, ..250ms, 2m.. (default: whole trace)",
             doc = "§2. Durations with units `ns us ms s m h` (`250us`, `443ms`, `1.5s`, `2m`); either end may be open (`..5m`, `10s..`); `all` = whole trace" },
    doc = "Time window [T1, T2) since the trace start: only blocks allocated inside count (`10s..20s`, `..5m`, `2s..end`, `all`, or {first = ns, last = ns}).",
    normalize = function(v, out) out.window = range_of("window", v, grammar.duration_range, '"10s..20s"') end },
  { name = "at_peak", type = "boolean", default = "false",
    flag = { "--at-peak", help = "look at the blocks alive at the peak instead of the window",
             doc = "§8. The blocks alive at the peak instead of those allocated in the window; with an empty window `T..T`, the blocks alive at `T`" },
    doc = "Look at the blocks alive at the peak of outstanding size (inside the window) instead of those allocated in it; with an empty window (`\"5s..5s\"`), the blocks alive at that moment.",
    normalize = function(v, out)
      if type(v) ~= "boolean" then fail("at_peak", "expected true or false", v) end
      out.at_peak = v
    end },
  { name = "size", type = "size range", default = '"all"',
    flag = { "--size", "A..B", help = "block sizes, e.g. 4KB..1MiB (KB = 1000, KiB = 1024)",
             doc = "§4. Bytes with optional units (`4KB` = 4000, `4KiB` = 4096)" },
    doc = "Block sizes [A, B) in bytes (`4KB..1MiB`, `64..`; K = 1000, Ki = 1024).",
    normalize = function(v, out) out.size = range_of("size", v, grammar.size_range, '"4KB..1MiB"') end },
  { name = "lifetime", type = "duration range", default = "none",
    flag = { "--lifetime", "A..B", help = "block lifetimes, e.g. 100ms..", doc = "§4. Durations" },
    doc = "Block lifetimes [A, B) (`100ms..`, `..1s`); an outstanding block lives until the window's end (forever with an open window).",
    normalize = function(v, out) out.lifetime = range_of("lifetime", v, grammar.duration_range, '"100ms.."') end },
  { name = "process", type = "string | integer | list", default = "all",
    flag = { "--process", "P", repeatable = true, help = "pid or name (repeatable, or P1,P2)",
             doc = "§4. Repeatable or comma-separated; case-insensitive names" },
    doc = "Processes by pid or name (case-insensitive); a list or `\"a,b\"` keeps any of them.",
    normalize = function(v, out) out.process = strings("process", v) end },
  { name = "heap", type = "string | integer | list", default = "all",
    flag = { "--heap", "H", repeatable = true, help = "heap handle (0x10 or decimal) or name (repeatable, or H1,H2)",
             doc = "§4. Repeatable or comma-separated" },
    doc = "Heaps by handle (`0x10` or decimal) or name.",
    normalize = function(v, out) out.heap = strings("heap", v) end },
  { name = "kind", type = '"heap" | "virtual" | list', default = "all", choices = KIND_NAMES,
    flag = { "--kind", table.concat(KIND_NAMES, "|"), repeatable = true, help = "heap allocations or VirtualAlloc commits",
             doc = "§4. Repeatable or comma-separated" },
    doc = "Block kinds: heap allocations, or VirtualAlloc commits.",
    normalize = function(v, out)
      out.kind = strings("kind", v, function(k)
        if not KINDS[k] then fail("kind", "expected heap or virtual", k) end
        return k
      end)
    end },
  { name = "thread", type = "integer | list", default = "all",
    flag = { "--thread", "T", repeatable = true, help = "allocating thread id (repeatable, or T1,T2)",
             doc = "§4. Repeatable or comma-separated" },
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
  { name = "impacting", type = "string | list", default = "none", choices = IMPACTING_NAMES,
    flag = { "--impacting", "T[,T...]", repeatable = true,
             help = "only blocks of these impacting types: " .. table.concat(IMPACTING_NAMES, ","),
             doc = "§7. `AIFI`, `AIFO`, `AOFI`, `AOFO` (any case)" },
    doc = "Keep only blocks of these impacting types (AIFI, AIFO, AOFI, AOFO; WPA's set of blocks, semantics §7).",
    normalize = function(v, out)
      out.impacting = strings("impacting", v, function(t)
        local upper = t:upper()
        if not IMPACTING[upper] then fail("impacting", "expected AIFI, AIFO, AOFI or AOFO", t) end
        return upper
      end)
    end },
  { name = "temporary", type = "boolean", default = "false",
    flag = { "--temporary", help = "only temporary blocks (freed by the very next event)", doc = "§8. Only temporary blocks" },
    doc = "Keep only temporary blocks (freed by the very next heap event, semantics §8).",
    normalize = function(v, out)
      if type(v) ~= "boolean" then fail("temporary", "expected true or false", v) end
      out.temporary = v
    end },
  { name = "require", type = "patterns", default = "none",
    flag = { "--require", "PAT", repeatable = true, help = "keep blocks whose full stack has a frame matching PAT (repeatable)",
             doc = "§4, §5. Repeatable. A pattern that matches no frame of the trace is named on stderr, with the frames it nearly names (a pattern matches the whole symbol, or its short form as tables show it: `GrowSteadyState` matches `GrowSteadyState()`, `GrowSteady` matches nothing)" },
    doc = "Keep a block only if its full (unculled) stack has a frame matching one of these patterns.",
    normalize = function(v, out) out.require = pattern_texts("require", v):texts() end },
  { name = "exclude", type = "patterns", default = "none",
    flag = { "--exclude", "PAT", repeatable = true, help = "drop blocks whose full stack has a frame matching PAT (repeatable)",
             doc = "§11. Repeatable. Drops blocks whose full stack has a frame matching PAT: the opposite of `--require`. An unmatched pattern is named as for `--require`" },
    doc = "Drop a block if its full (unculled) stack has a frame matching one of these patterns (the opposite of require, semantics §11).",
    normalize = function(v, out) out.exclude = pattern_texts("exclude", v):texts() end },
  { name = "suppressions", type = "string | list", default = "none",
    doc = "LeakSanitizer patterns (the text after `leak:`; `hq.suppressions.file` / `.shipped` read a file of them): drop a block if a frame's function or module name matches one (semantics §11). A list may hold such lists: `{ hq.suppressions.shipped \"heaptrack-builtin\", hq.suppressions.file \"mine.txt\" }`.",
    normalize = function(v, out) out.suppressions = flat_strings("suppressions", v) end },
  -- Files named on the command line, read by the engine. A recipe reads its
  -- own (inside its sandbox) with hq.suppressions.file / hq.cull.file.
  { name = "suppression_files", type = "list", default = "none", command_line_only = true,
    flag = { "--suppressions", "FILE", repeatable = true,
             help = "drop blocks matching a leak:PATTERN line of an LSan suppressions file (repeatable)",
             doc = "§11. Repeatable. LeakSanitizer's format (`leak:PATTERN` lines): drops blocks with a frame whose function or module name matches. A NAME with no such file reads the shipped `queries/suppressions/NAME.txt` (`heaptrack-builtin`: heaptrack's default list)" },
    doc = "Files of LeakSanitizer suppressions (the command line's `--suppressions`).",
    normalize = function(v, out) out.suppression_files = plain_strings("suppression_files", v) end },
  { name = "embedded_suppressions", type = "boolean", default = "false",
    flag = { "--embedded-suppressions", help = "also apply the suppressions a heaptrack file carries",
             doc = "§11. Also applies the suppressions a heaptrack file carries (`S` records)" },
    doc = "Also apply the suppressions a heaptrack file carries (its `S` records, semantics §11).",
    normalize = function(v, out)
      if type(v) ~= "boolean" then fail("embedded_suppressions", "expected true or false", v) end
      out.embedded_suppressions = v
    end },
  { name = "cull", type = "patterns", default = "hq.cull.defaults",
    flag = { "--cull", "PAT", repeatable = true, help = "cull frames matching PAT from stack tops (repeatable)",
             doc = "§5, §6. Repeatable; added to the built-in list. A pattern that matches no frame is named too" },
    doc = "Frames to cull from stack tops. A pattern set (`hq.cull.defaults + {...}`) is the whole list; a string or list is added to the default list.",
    normalize = function(v, out, q)
      local set = pattern_texts("cull", v)
      out.cull = set:texts()
      if patterns.is_set(v) then
        -- Reports name the lists the set was made of, not its dozens of patterns.
        out.cull_origin = patterns.origin(v)
        if q.default_cull ~= nil then
          fail("default_cull", "not needed when cull is a pattern set, which says itself whether it holds hq.cull.defaults", q.default_cull)
        end
        out.default_cull = false
      end
    end },
  { name = "cull_files", type = "list", default = "none", command_line_only = true,
    flag = { "--cull-list", "FILE", repeatable = true, help = "a file of cull patterns (repeatable)",
             doc = "§5, §6. Repeatable. A file of cull patterns, one a line (blank lines and `#` comments skipped); its patterns are not checked against the trace (a list names many allocators a program may not use). A NAME with no such file reads the shipped `queries/cull/NAME.txt` (`stl`, `libc-linux`, `crt-windows`)" },
    doc = "Files of cull patterns (the command line's `--cull-list`).",
    normalize = function(v, out) out.cull_files = plain_strings("cull_files", v) end },
  { name = "default_cull", type = "boolean", default = "true",
    flag = { "--no-default-cull", set = false, help = "do not apply the built-in allocator cull list",
             doc = "§6. Switch the built-in allocator list off" },
    doc = "Whether the built-in allocator cull list applies (when `cull` is not a pattern set).",
    normalize = function(v, out)
      if type(v) ~= "boolean" then fail("default_cull", "expected true or false", v) end
      if out.default_cull == nil then out.default_cull = v end
    end },
  { name = "by", type = "string | function | list", default = '"stack"', choices = LEVEL_NAMES,
    flag = { "--by", "K[,K...]", help = LEVEL_WORDS .. " (nested)",
             doc = "§6. `stack` (default), `frame`, `image`, `process`, `heap`, `kind`, `thread`, `impacting`; commas nest, outermost first" },
    doc = "Grouping, outer level first: stack, frame, image, process, heap, kind, thread, impacting (a list, or commas: `\"process,stack\"`), or a function(frames) returning a key (called once per unique culled stack).",
    normalize = function(v, out)
      local levels, fn = {}, nil
      local function add(level)
        if type(level) == "function" then
          if fn then fail("by", "at most one function level", level) end
          fn = level
          levels[#levels + 1] = "custom"
        elseif type(level) == "string" and LEVELS[level] then
          levels[#levels + 1] = level
        else
          fail("by", "level " .. #levels + 1 .. ": expected one of " .. LEVEL_WORDS .. " or a function"
            .. near_key(LEVELS, level), level)
        end
      end
      for _, item in ipairs(type(v) == "table" and v or { v }) do
        -- "process,stack" nests as a list does (the command line's --by).
        local parts = type(item) == "string" and item:find(",", 1, true) and grammar.list(item)
        for _, level in ipairs(parts or { item }) do add(level) end
      end
      out.by, out.by_function = levels, fn
    end },
  { name = "sort", type = "string", default = '"so"', choices = SORT_NAMES,
    flag = { "--sort", "M", help = SORT_WORDS .. " (default so)",
             doc = "§3. `so` (default), `soc`, `st`, `stc` or `src`; `impacting` (with impacting types, §7): the biggest change either way first" },
    doc = "What rows are sorted by, descending: so, soc, st, stc or src; or impacting, the magnitude of the impacting size (a query with impacting types only).",
    normalize = function(v, out)
      if type(v) ~= "string" or not SORT_KEYS[v] then
        fail("sort", "expected one of " .. SORT_WORDS .. " (outstanding size, outstanding count, total size, total count, "
          .. "realloc count, impacting size)" .. near_key(SORT_KEYS, v), v)
      end
      out.sort = v
    end },
  { name = "top", type = "integer", default = "10000",
    flag = { "--top", "N", help = "rows to list (at least 1), the rest is [other] (default 10000)",
             doc = "§6. Default 10000, at least 1; the rest is summed into `other`" },
    doc = "Rows to list; the rest are summed as [other].",
    normalize = function(v, out)
      local n = math.tointeger(v)
      if not n or n < 1 then fail("top", "expected a whole number of at least 1", v) end
      out.top = n
    end },
  { name = "totals", type = "boolean", default = "false",
    flag = { "--totals", help = "totals only", doc = "§6. Totals only" },
    doc = "Totals only, no rows.",
    normalize = function(v, out)
      if type(v) ~= "boolean" then fail("totals", "expected true or false", v) end
      out.totals = v
    end },
  { name = "series", type = "integer", default = "0",
    flag = { "--series", "N", help = "outstanding size over time in at most N buckets (json, html; 0 = none)",
             doc = "§8. Outstanding size over time, at most N buckets (JSON, HTML); 0 to 100000, 0 = none" },
    doc = "Outstanding size over time in at most this many buckets (each the maximum over its span); 0 = none.",
    normalize = function(v, out)
      local n = math.tointeger(v)
      if not n or n < 0 or n > 100000 then fail("series", "expected a bucket count from 0 to 100000", v) end
      out.series = n
    end },
  { name = "detail", type = "integer", default = "none",
    flag = { "--detail", "N", help = "also describe row N (1-based): its full stacks, size and lifetime bins (json, table)",
             doc = "§12. The drill-down: besides the rows, row N (1-based, as listed) by its blocks' full stacks, power-of-two sizes and decade lifetimes (JSON `detail`, a table's last lines). At least 1; N beyond the rows is an error" },
    doc = "Row N (1-based, as listed) described by its blocks' full stacks, size bins and lifetime bins (result's detail); nil = none.",
    normalize = function(v, out)
      local n = math.tointeger(v)
      if not n or n < 1 then fail("detail", "expected a row number of at least 1", v) end
      out.detail = n
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

local function nearest(name)
  local best, best_score = nil, 3
  for _, f in ipairs(schema.recipe_fields()) do
    local score = distance(name, f.name)
    if score < best_score then best, best_score = f.name, score end
  end
  return best
end

-- How a door names a field in its messages: a recipe's query field, or the
-- command-line option that sets it.
local recipe_door = {
  unknown_fields = function(f) return f.command_line_only end,
  bad_value = function(where, field, message, given)
    return string.format("%s, query field '%s': %s; got %s", where, field, message, describe(given))
  end,
  at_peak = function(where)
    return where .. ", query field 'at_peak': cannot be combined with lifetime, temporary or impacting (nor grouped by impacting)"
  end,
  sort_impacting = function(where)
    return where .. ", query field 'sort': impacting needs impacting types (an impacting field, or by = \"impacting\")"
  end,
}

-- What an empty value of a repeatable option most likely meant.
local empty_value_hint = {
  cull = "an empty pattern culls nothing; --no-default-cull turns the built-in cull list off",
}

local command_line_door = {
  unknown_fields = function() return false end,
  bad_value = function(_, field, message, given)
    local option = schema.fields[by_name[field]].flag[1]
    -- A repeatable option's values come as a list: name the one at fault,
    -- not the list ("got a table").
    local item, rest = message:match("^item (%d+): (.*)$")
    if type(given) == "table" and item and type(given[tonumber(item)]) == "string" then
      local value = given[tonumber(item)]
      if value == "" and empty_value_hint[field] then return option .. " '': " .. empty_value_hint[field] end
      if rest:find("'" .. value .. "'", 1, true) then return option .. ": " .. rest end
      return string.format("%s '%s': %s", option, value, rest)
    end
    if type(given) == "string" then
      -- A small language's message quotes the text itself.
      if message:sub(1, #given + 2) == "'" .. given .. "'" then return option .. ": " .. message end
      return string.format("%s '%s': %s", option, given, message)
    end
    return string.format("%s: %s; got %s", option, message, describe(given))
  end,
  at_peak = function() return "--at-peak cannot be combined with --lifetime, --temporary, --impacting or --by impacting" end,
  sort_impacting = function() return "--sort impacting needs impacting types: add --impacting or --by impacting" end,
}

local function normalize_through(door, query, where)
  if type(query) ~= "table" then
    error(string.format("%s: query must return a table, got %s", where, type(query)), 0)
  end
  for key in pairs(query) do
    if type(key) ~= "string" or not by_name[key] or door.unknown_fields(schema.fields[by_name[key]]) then
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
        if type(err) == "table" and err.field then error(door.bad_value(where, err.field, err.message, err.given), 0) end
        error(err, 0)
      end
    end
  end
  -- Whether the query works on WPA's set of blocks (the engine's Query::uses_impacting).
  local uses_impacting = out.impacting ~= nil and #out.impacting > 0
  for _, level in ipairs(out.by) do uses_impacting = uses_impacting or level == "impacting" end
  if out.at_peak and (out.lifetime or out.temporary or uses_impacting) then
    error(door.at_peak(where) .. " (blocks alive at the peak have no lifetime yet)", 0)
  end
  if out.sort == "impacting" and not uses_impacting then error(door.sort_impacting(where), 0) end
  return out
end

-- Turns a recipe's query table into the engine's form. `where` names the
-- recipe for messages ("recipe queries/leaks.lua"). Raises a string error.
function schema.normalize(query, where)
  return normalize_through(recipe_door, query, where or "query")
end

-- The value an option is given when it is left out, as the command line
-- writes it: a default the docs show quoted ("stack") or a number (10000);
-- nil for a switch and where no value says it ("all" processes, "none").
local function command_line_default(f)
  if not f.flag[2] then return nil end
  return f.default:match('^"(.*)"$') or f.default:match("^%d+$")
end

-- The command-line options that set query fields, in the fields' order:
-- {option, value (nil for a switch), field, repeatable, set (a switch's
-- value), help, doc, choices (a copy, or nil), default (command_line_default)}.
function schema.flags()
  local flags = {}
  for _, f in ipairs(schema.fields) do
    if f.flag then
      local set = f.flag.set
      if set == nil then set = true end
      local choices = nil
      if f.choices then
        choices = {}
        for i, choice in ipairs(f.choices) do choices[i] = choice end
      end
      flags[#flags + 1] = { option = f.flag[1], value = f.flag[2], field = f.name,
                            repeatable = f.flag.repeatable or false, set = set, help = f.flag.help,
                            doc = f.flag.doc, choices = choices, default = command_line_default(f) }
    end
  end
  return flags
end

-- The query table `heapql query`'s options spell, as given, in order
-- ({{option, value}, ...}; no value for a switch), not yet checked: each
-- value as typed (a list for a repeatable option, true or false for a
-- switch). Raises a string for an unknown option.
function schema.flag_query(given, where)
  local by_option = {}
  for _, flag in ipairs(schema.flags()) do by_option[flag.option] = flag end
  local query = {}
  for _, pair in ipairs(given) do
    local flag = by_option[pair[1]]
    if not flag then error(string.format("%s: unknown query option '%s'", where, tostring(pair[1])), 0) end
    if flag.value == nil then
      query[flag.field] = flag.set
    elseif flag.repeatable then
      local list = query[flag.field] or {}
      list[#list + 1] = pair[2]
      query[flag.field] = list
    else
      query[flag.field] = pair[2]
    end
  end
  return query
end

-- `heapql query`'s options as given (as flag_query takes them), in the
-- engine's form: the query table they spell, checked as a recipe's is.
-- Raises a string naming the option.
function schema.from_flags(given, where)
  return normalize_through(command_line_door, schema.flag_query(given, where), where)
end

local function option_words(flag)
  return flag.value and (flag.option .. " " .. flag.value) or flag.option
end

-- The query options of `heapql help`, a line each.
function schema.usage()
  local lines = {}
  for _, flag in ipairs(schema.flags()) do
    local words = option_words(flag)
    local help = schema.fields[by_name[flag.field]].flag.help
    lines[#lines + 1] = #words < 21 and string.format("  %-20s %s", words, help) or ("  " .. words .. "  " .. help)
  end
  return table.concat(lines, "\n") .. "\n"
end

-- docs/cli.md's table of query options (lua/tools/gen_cli_doc.lua).
function schema.options_markdown()
  local rows = { "| option | meaning (docs/semantics.md) |", "|---|---|" }
  for _, flag in ipairs(schema.flags()) do
    local words = option_words(flag):gsub("|", "\\|")
    local doc = schema.fields[by_name[flag.field]].flag.doc:gsub("|", "\\|")
    rows[#rows + 1] = string.format("| `%s` | %s |", words, doc)
  end
  return table.concat(rows, "\n") .. "\n"
end

-- The fields a recipe may set (all but those only the command line sets).
function schema.recipe_fields()
  local fields = {}
  for _, f in ipairs(schema.fields) do
    if not f.command_line_only then fields[#fields + 1] = f end
  end
  return fields
end

-- The names of the fields a recipe may set, separated by commas.
function schema.field_list()
  local names = {}
  for _, f in ipairs(schema.recipe_fields()) do names[#names + 1] = f.name end
  return table.concat(names, ", ")
end

return schema
