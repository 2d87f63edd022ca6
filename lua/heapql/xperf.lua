-- heapql.xperf: the flags of `xperf -a heap` (formats/etw-heap.md §1.1), as
-- an LPeg grammar over the argv words, and their translation into a recipe
-- query table and into the text of a recipe a person can keep.
--
-- API:
--   parse(argv) -> spec, or nil and a message naming the word (and column)
--   to_query(spec, hq) -> recipe query table; hq.cull.defaults is a pattern
--     set and hq.cull.file(path) returns one
--   to_recipe(spec) -> Lua source of an equivalent recipe
--
-- spec = { by = "stack"|"frame"|"image", sort = "so"|"soc"|"st"|"stc"|"src",
--   pid = {integers} or nil, range_us = {t1, t2} or nil,
--   lifetime_us = {l1, l2} or nil, size = {s1, s2} or nil, cull_frames = {},
--   cull_lists = {}, require_frames = {}, top = N or nil, totals = boolean,
--   words = copy of argv }
local lpeg = require "lpeg"
local grammar = require "heapql.grammar"
local patterns = require "heapql.patterns"
local recipe_text = require "heapql.recipe_text"

local P, R, S, C, Cp, Ct, Cg, Cs, Cmt, Carg = lpeg.P, lpeg.R, lpeg.S, lpeg.C, lpeg.Cp, lpeg.Ct, lpeg.Cg, lpeg.Cs,
  lpeg.Cmt, lpeg.Carg
local ci = grammar.ci

local M = {}

local MAX = math.maxinteger
local MAX_US = MAX // 1000 -- the window and lifetimes are int64 nanoseconds
local MAX_PID = 0xFFFFFFFF
local SORT_KEYS = { so = true, soc = true, st = true, stc = true, src = true }

-- Every flag name the grammar knows; a word equal to one of them (ignoring
-- case) ends the values of the flag before it.
local FLAG_NAMES = {
  "-i", "-a", "-o", "-symbols", "-pid", "-stacks", "-frames", "-images", "-image", "-range", "-lifetime",
  "-size", "-cullFrames", "-cullLists", "-requireFrames", "-top", "-totals",
}
local KNOWN_FLAGS = "-pid -stacks -frames -images -image -range -lifetime -size -cullFrames -cullLists "
  .. "-requireFrames -top -totals (and -i FILE, -a heap, -symbols [verbose] [dbghelplog], which are ignored)"

---------------------------------------------------------------------------
-- Failures carry a finished message; parse() turns them into nil, message.

local Failure = {}

local function fail(message)
  error(setmetatable({ message = message }, Failure), 0)
end

-- State of one parse, passed to the grammar as its extra argument.
local State = {}
State.__index = State

-- The 1-based index of the word that starts at `pos` in the joined text.
function State:index(pos)
  local lo, hi = 1, #self.starts
  while lo < hi do
    local mid = (lo + hi + 1) // 2
    if self.starts[mid] <= pos then lo = mid else hi = mid - 1 end
  end
  return lo
end

function State:flag_fail(flag_pos, message)
  local i = self:index(flag_pos)
  fail(("xperf flag %d ('%s'): %s"):format(i, grammar.printable(self.words[i]), message))
end

function State:word_fail(pos, message)
  local i = self:index(pos)
  fail(("xperf word %d ('%s'): %s"):format(i, grammar.printable(self.words[i]), message))
end

---------------------------------------------------------------------------
-- The grammar. Words are joined, each ended by "\0" (which no command-line
-- word can hold), and matched in one pass. Each flag rule is a match-time
-- capture whose handler checks the values and fills in the spec, so the
-- first bad word in command-line order is the one reported.

local SEP = P"\0"
local word_char = P(1) - SEP

local function flag_word(name)
  return ci(name) * #SEP
end

local any_flag = P(false)
for _, name in ipairs(FLAG_NAMES) do any_flag = any_flag + flag_word(name) end

-- A value: any word that is not a flag name, as {pos =, text =}.
local value = -any_flag * Ct(Cg(Cp(), "pos") * Cg(C(word_char ^ 0), "text")) * SEP

-- `names` (one or a list of spellings), then `values`; calls
-- handler(state, flag_pos, values...) at match time.
local function rule(names, values, handler)
  if type(names) == "string" then names = { names } end
  local flag = P(false)
  for _, name in ipairs(names) do flag = flag + flag_word(name) end
  return Cmt(Carg(1) * Cp() * flag * SEP * (values or P(true)), function(_, pos, state, flag_pos, ...)
    handler(state, flag_pos, ...)
    state.last_flag = flag_pos
    return pos
  end)
end

local function up_to(n)
  return Ct(value ^ -n)
end
-- An optional key (-stacks so): never a word that looks like a flag.
local optional_key = Ct((-P"-" * value) ^ -1)
local any_number_of = Ct(value ^ 0)

-- A whole number in a word: digits only, at most `max`.
local digits_then = R"09" ^ 0 * Cp()

local function whole_number(state, flag_pos, v, what, max)
  local stop = digits_then:match(v.text)
  if v.text == "" or stop <= #v.text then
    state:flag_fail(flag_pos, ("%s, got '%s' (word %d, column %d)"):format(what, grammar.printable(v.text),
      state:index(v.pos), stop))
  end
  local n = 0
  for i = 1, #v.text do
    if n > (max - (v.text:byte(i) - 48)) // 10 then
      state:flag_fail(flag_pos, ("%s, got '%s' (word %d): too large, the most is %d"):format(what, v.text,
        state:index(v.pos), max))
    end
    n = n * 10 + (v.text:byte(i) - 48)
  end
  return n
end

local function count_text(n)
  return n == 0 and "got none" or "got only one"
end

local function once(state, flag_pos, key)
  local first = state.seen[key]
  if first then
    state:flag_fail(flag_pos, ("given twice (first as flag %d)"):format(state:index(first)))
  end
  state.seen[key] = flag_pos
end

-- -range, -lifetime, -size: two numbers, the second not below the first.
local function pair(field, what, max, first_name, second_name)
  return function(state, flag_pos, values)
    once(state, flag_pos, field)
    if #values < 2 then state:flag_fail(flag_pos, what .. ", " .. count_text(#values)) end
    local a = whole_number(state, flag_pos, values[1], what, max)
    local b = whole_number(state, flag_pos, values[2], what, max)
    if b < a then
      state:flag_fail(flag_pos, ("%s (%d) is before %s (%d)"):format(second_name, b, first_name, a))
    end
    state.spec[field] = { a, b }
  end
end

local function grouping(by)
  return function(state, flag_pos, values)
    local first = state.seen.grouping
    if first then
      state:flag_fail(flag_pos, ("only one of -stacks, -frames, -images can be given (flag %d was '%s')")
        :format(state:index(first), grammar.printable(state.words[state:index(first)])))
    end
    state.seen.grouping = flag_pos
    state.spec.by = by
    local key = values[1]
    if key then
      local folded = key.text:lower()
      if not SORT_KEYS[folded] then
        state:flag_fail(flag_pos, ("expected a sort key so|soc|st|stc|src, got '%s' (word %d)")
          :format(grammar.printable(key.text), state:index(key.pos)))
      end
      state.spec.sort = folded
    end
  end
end

-- -cullFrames, -requireFrames: one or more valid frame patterns.
local function pattern_list(field)
  return function(state, flag_pos, values)
    if #values == 0 then state:flag_fail(flag_pos, "expected one or more frame patterns, got none") end
    for _, v in ipairs(values) do
      local ok, message = grammar.frame_pattern(v.text)
      if not ok then state:flag_fail(flag_pos, ("word %d: %s"):format(state:index(v.pos), message)) end
      table.insert(state.spec[field], v.text)
    end
  end
end

local rules = rule("-i", up_to(1), function(state, flag_pos, values)
  if #values == 0 then state:flag_fail(flag_pos, "expected a trace file name, got none") end
end)
  + rule("-a", up_to(1), function(state, flag_pos, values)
    local action = values[1]
    if not action then state:flag_fail(flag_pos, "expected an action name, got none") end
    if action.text:lower() ~= "heap" then
      state:flag_fail(flag_pos, ("heapql translates only the heap action (-a heap), got '%s'")
        :format(grammar.printable(action.text)))
    end
  end)
  + rule("-o", nil, function(state, flag_pos)
    state:flag_fail(flag_pos, "-o is not an xperf heap-action flag here; use heapql's own -o")
  end)
  + rule("-symbols", (ci"verbose" * #SEP * SEP + ci"dbghelplog" * #SEP * SEP) ^ 0, function() end)
  + rule("-pid", any_number_of, function(state, flag_pos, values)
    local what = "expected one or more process ids"
    if #values == 0 then state:flag_fail(flag_pos, what .. ", got none") end
    state.spec.pid = state.spec.pid or {}
    for _, v in ipairs(values) do
      table.insert(state.spec.pid, whole_number(state, flag_pos, v, what, MAX_PID))
    end
  end)
  + rule("-stacks", optional_key, grouping("stack"))
  + rule("-frames", optional_key, grouping("frame"))
  + rule({ "-images", "-image" }, optional_key, grouping("image"))
  + rule("-range", up_to(2), pair("range_us", "expected two numbers of microseconds", MAX_US, "T1", "T2"))
  + rule("-lifetime", up_to(2), pair("lifetime_us", "expected two numbers of microseconds", MAX_US, "L1", "L2"))
  + rule("-size", up_to(2), pair("size", "expected two numbers of bytes", MAX, "S1", "S2"))
  + rule("-cullFrames", any_number_of, pattern_list("cull_frames"))
  + rule("-requireFrames", any_number_of, pattern_list("require_frames"))
  + rule("-cullLists", any_number_of, function(state, flag_pos, values)
    if #values == 0 then state:flag_fail(flag_pos, "expected one or more cull list files, got none") end
    for _, v in ipairs(values) do
      if v.text == "" then state:flag_fail(flag_pos, ("word %d: empty file name"):format(state:index(v.pos))) end
      table.insert(state.spec.cull_lists, v.text)
    end
  end)
  + rule("-top", up_to(1), function(state, flag_pos, values)
    once(state, flag_pos, "top")
    local what = "expected a number of rows"
    if #values == 0 then state:flag_fail(flag_pos, what .. ", got none") end
    local top = whole_number(state, flag_pos, values[1], what, MAX)
    -- A recipe's top is at least 1 (schema.lua), so -top 0 is refused here.
    if top == 0 then
      state:flag_fail(flag_pos, ("%s (at least 1), got '%s' (word %d)"):format(what, values[1].text,
        state:index(values[1].pos)))
    end
    state.spec.top = top
  end)
  + rule("-totals", nil, function(state)
    state.spec.totals = true
  end)

-- Whatever stops the rules: an unknown flag, or a value where a flag belongs.
local stray = Cmt(Carg(1) * Cp(), function(subject, _, state, pos)
  if subject:sub(pos, pos) == "-" then
    state:word_fail(pos, "unknown flag; the heap action's flags are " .. KNOWN_FLAGS)
  end
  if state.last_flag then
    state:word_fail(pos, ("expected a flag, got a value ('%s' before it takes no more)")
      :format(grammar.printable(state.words[state:index(state.last_flag)])))
  end
  state:word_fail(pos, "expected a flag, got a value")
end)

local command_line = rules ^ 0 * (-1 + stray)

function M.parse(argv)
  if type(argv) ~= "table" then
    return nil, ("xperf: expected a list of command-line words, got %s"):format(type(argv))
  end
  local words, starts, pos = {}, {}, 1
  for i, word in ipairs(argv) do
    if type(word) ~= "string" then
      return nil, ("xperf word %d: expected a string, got %s"):format(i, type(word))
    end
    if word:find("\0", 1, true) then
      return nil, ("xperf word %d ('%s'): a NUL byte cannot be part of a word"):format(i, grammar.printable(word))
    end
    words[i], starts[i] = word, pos
    pos = pos + #word + 1
  end
  local spec = {
    by = "stack", sort = "so", cull_frames = {}, cull_lists = {}, require_frames = {}, totals = false,
    words = words,
  }
  local state = setmetatable({ spec = spec, words = words, starts = starts, seen = {} }, State)
  local joined = #words > 0 and table.concat(words, "\0") .. "\0" or ""
  local ok, result = pcall(lpeg.match, command_line, joined, 1, state)
  if not ok then
    if getmetatable(result) == Failure then return nil, result.message end
    error(result, 0)
  end
  return spec
end

---------------------------------------------------------------------------
-- Translation.

local function us_range(pair_us)
  return grammar.format_duration_ns(pair_us[1] * 1000) .. ".." .. grammar.format_duration_ns(pair_us[2] * 1000)
end

local function size_range(pair_bytes)
  return grammar.format_size(pair_bytes[1]) .. ".." .. grammar.format_size(pair_bytes[2])
end

local function copy(list)
  local result = {}
  for i, v in ipairs(list) do result[i] = v end
  return result
end

local function has_cull(spec)
  return #spec.cull_lists > 0 or #spec.cull_frames > 0
end

-- Fields that keep the recipe default are left out: by "stack", sort "so",
-- top (unless -top was given; the default is xperf's 10000 too), totals
-- false, and cull when it would be just the default list.
function M.to_query(spec, hq)
  local q = {}
  if spec.range_us then q.window = us_range(spec.range_us) end
  if spec.lifetime_us then q.lifetime = us_range(spec.lifetime_us) end
  if spec.size then q.size = size_range(spec.size) end
  if spec.pid then q.process = copy(spec.pid) end
  if spec.by ~= "stack" then q.by = spec.by end
  if spec.sort ~= "so" then q.sort = spec.sort end
  if spec.top then q.top = spec.top end
  if spec.totals then q.totals = true end
  if #spec.require_frames > 0 then q.require = copy(spec.require_frames) end
  if has_cull(spec) then
    if type(hq) ~= "table" or type(hq.cull) ~= "table" then
      error("xperf.to_query: -cullFrames and -cullLists need hq.cull.defaults and hq.cull.file", 2)
    end
    local cull = patterns.set(hq.cull.defaults)
    for _, path in ipairs(spec.cull_lists) do cull = cull + hq.cull.file(path) end
    if #spec.cull_frames > 0 then cull = cull + copy(spec.cull_frames) end
    q.cull = cull
  end
  return q
end

local function command_line_text(words)
  return "heapql xperf" .. (#words > 0 and (" " .. recipe_text.command_line(words)) or "")
end

local list_literal = recipe_text.list_literal
local WIDTH = recipe_text.WIDTH

local GROUPING = { stack = "culled stack", frame = "top frame of the culled stack", image = "image (module) of the top culled frame" }
local MEASURE = {
  so = "outstanding size", soc = "outstanding count", st = "total size", stc = "total count", src = "realloc count",
}

-- The recipe text. `cull_texts`, when given, maps each -cullLists path to
-- the file's text: its patterns are then written into the recipe, which so
-- needs no file beside it wherever it is saved; otherwise the recipe reads
-- the file with hq.cull.file, relative to its own folder.
function M.to_recipe(spec, cull_texts)
  local q = M.to_query(spec, {
    cull = { defaults = patterns.set {}, file = function() return patterns.set {} end },
  })
  local quote = grammar.quote
  local fields = {}
  local function field(text) fields[#fields + 1] = text end
  local doc = ("Heap allocations by %s, sorted by %s%s (translated from xperf -a heap)"):format(GROUPING[spec.by],
    MEASURE[spec.sort], spec.totals and ", totals only" or "")
  local params = {}
  if q.window then
    params[#params + 1] = ('    window = { type = "duration_range", default = %s,\n'
      .. '      doc = %s },'):format(quote(q.window),
      quote(("time window (xperf -range %d %d, microseconds)"):format(spec.range_us[1], spec.range_us[2])))
  end
  if q.top then
    params[#params + 1] = ('    top = { type = "integer", default = %d, doc = "rows to show (xperf -top)" },')
      :format(q.top)
  end
  local indent = recipe_text.FIELD_INDENT
  if q.window then field("window = p.window,") end
  if q.lifetime then
    field(("lifetime = %s, -- xperf -lifetime %d %d (microseconds)"):format(quote(q.lifetime),
      spec.lifetime_us[1], spec.lifetime_us[2]))
  end
  if q.size then
    field(("size = %s, -- xperf -size %d %d (bytes)"):format(quote(q.size), spec.size[1], spec.size[2]))
  end
  if q.process then field("process = " .. list_literal(q.process, tostring, indent) .. ",") end
  if q.by then field("by = " .. quote(q.by) .. ",") end
  if q.sort then field("sort = " .. quote(q.sort) .. ",") end
  if q.top then field("top = p.top,") end
  if q.totals then field("totals = true,") end
  if q.require then field("require = " .. list_literal(q.require, quote, indent) .. ",") end
  if q.cull then
    local terms = { "hq.cull.defaults" }
    for _, path in ipairs(spec.cull_lists) do
      local text = cull_texts and cull_texts[path]
      if text then
        local set = patterns.from_file(text, path)
        terms[#terms + 1] = "hq.cull.set " .. list_literal(set:texts(), quote, indent .. "  ")
      else
        terms[#terms + 1] = "hq.cull.file " .. quote(path)
      end
    end
    local flat = table.concat(terms, " + ")
    if #spec.cull_frames > 0 then
      flat = flat .. " + " .. list_literal(spec.cull_frames, quote, "")
    end
    if #indent + #flat + 8 <= WIDTH and not flat:find("\n") then
      field("cull = " .. flat .. ",")
    else
      if #spec.cull_frames > 0 then terms[#terms + 1] = list_literal(spec.cull_frames, quote, indent .. "  ") end
      field("cull = " .. table.concat(terms, "\n" .. indent .. "  + ") .. ",")
    end
  end
  -- The command line is one comment line: shell_word escapes every control
  -- byte, so no word can end the comment early.
  return recipe_text.write {
    comments = {
      command_line_text(spec.words or {}),
      "xperf's heap action (xperf -i trace.etl -a heap ...) with these flags, as a heapql recipe.",
    },
    name = "xperf-heap",
    doc = doc,
    params = params,
    query_args = "p",
    fields = fields,
  }
end

return M
