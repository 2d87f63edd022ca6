-- heapql.grammar: the little languages users write, for the Lua side.
-- Durations, sizes, their ranges, frame patterns and cull list files have
-- one implementation, the engine's (engine/units.cpp,
-- engine/query/frame_pattern.cpp, engine/query/cull_list.cpp), reached
-- through heapql.core, so a recipe and the command line accept the same
-- texts with the same values and messages. Comma lists, the exact
-- formatters and the quoting helpers are Lua's own (the engine has no use
-- for them); the xperf translator's grammar is LPeg (xperf.lua).
--
-- API (parsers return the value, or nil and a message; they never raise on
-- bad input):
--   duration(text) -> ns                 size(text) -> bytes
--   duration_range(text) -> {first = ns, last = ns or nil (open)}
--   size_range(text) -> {first = bytes, last = bytes or nil (open)}
--   frame_pattern(text) -> text          cull_list(text, name) -> {texts}
--   list(text) -> {items}
--   format_duration_ns(ns), format_size(bytes) -> exact text that parses back
--   quote(text) -> a one-line Lua string literal;  printable(text) -> text
--     with control bytes as \xNN (how messages quote input);
--   ci(word) -> an LPeg pattern for word in any ASCII case
local lpeg = require "lpeg"

local P, R, S = lpeg.P, lpeg.R, lpeg.S
local C, Ct, Cs, Cmt = lpeg.C, lpeg.Ct, lpeg.Cs, lpeg.Cmt

local M = {}

-- Lua integers are signed 64-bit, so the largest size a recipe holds is
-- 9223372036854775807 bytes, where the engine (uint64) goes up to
-- 18446744073709551615: the binding asks for that limit.

local KI = 1024

---------------------------------------------------------------------------
-- Failures: a grammar that finds an error stops the whole match at once by
-- raising a Failure; the public functions catch it and return nil, message.

local Failure = {}

local function fail(pos, message)
  error(setmetatable({ pos = pos, message = message }, Failure), 0)
end

-- A pattern that stops the match where it is tried, with `message`.
local function expect(message)
  return Cmt(P(0), function(_, pos) fail(pos, message) end)
end

-- Calls f(...) and returns its first result, or nil and the Failure it
-- raised as `describe(failure)`. Any other error is a bug and propagates.
local function catching(describe, f, ...)
  local ok, result = pcall(f, ...)
  if ok then return result end
  if getmetatable(result) == Failure then return nil, describe(result) end
  error(result, 0)
end

-- A case-insensitive (ASCII) literal.
local function ci(word)
  local p = P(true)
  for i = 1, #word do
    local ch = word:sub(i, i)
    local lower, upper = ch:lower(), ch:upper()
    p = p * (lower == upper and P(ch) or S(lower .. upper))
  end
  return p
end
M.ci = ci

local control = R("\0\31", "\127\127")
local printable_patt = Cs((control / function(c) return ("\\x%02x"):format(c:byte()) end + P(1)) ^ 0)

function M.printable(text)
  return printable_patt:match(text)
end

local quote_escapes = { ["\\"] = "\\\\", ['"'] = '\\"', ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
local quote_patt = Cs((S'\\"\n\r\t' / quote_escapes
  + control / function(c) return ("\\%03d"):format(c:byte()) end
  + P(1)) ^ 0)

-- A double-quoted Lua string literal on one line; every control byte is
-- escaped, so no text can end the literal or the line it is on.
function M.quote(text)
  return '"' .. quote_patt:match(text) .. '"'
end

local function not_string(what, value)
  return ("%s: expected a string, got %s"):format(what, type(value))
end

---------------------------------------------------------------------------
-- The engine's parsers (grammar_binding.cpp). Like every module of the
-- library, this one is loaded with heapql.core as its second argument.

local core = select(2, ...)
local parsers = type(core) == "table" and core.grammar or nil

local function engine(name, what)
  return function(text, ...)
    if type(text) ~= "string" then return nil, not_string(what, text) end
    if not parsers then error("heapql.grammar: loaded without heapql.core's parsers", 2) end
    return parsers[name](text, ...)
  end
end

M.duration = engine("duration", "duration")
M.size = engine("size", "size")
M.duration_range = engine("duration_range", "duration range")
M.size_range = engine("size_range", "size range")
M.frame_pattern = engine("frame_pattern", "frame pattern")
M.cull_list = engine("cull_list", "cull list")

---------------------------------------------------------------------------
-- Comma lists: `a, b,c` -> {"a", "b", "c"}; spaces and tabs around items are
-- trimmed; an empty item is an error at the point where it was expected.

local space = S" \t"
local item = space ^ 0 * (#(P"," + -1) * expect"empty item"
  + C((space ^ 0 * (1 - space - ",") ^ 1) ^ 0)) * space ^ 0
local list_patt = Ct(item * ("," * item) ^ 0) * -1

local function describe_in(whole)
  return function(failure)
    return ("'%s' at column %d: %s"):format(whole, failure.pos, failure.message)
  end
end

function M.list(text)
  if type(text) ~= "string" then return nil, not_string("list", text) end
  return catching(describe_in(text), lpeg.match, list_patt, text)
end

---------------------------------------------------------------------------
-- Exact formatting: the shortest text that parses back to the same value.

-- n / 10^places in decimal, exactly, without trailing zeros.
local function decimal(n, places)
  if places == 0 then return tostring(n) end
  local divisor = 1
  for _ = 1, places do divisor = divisor * 10 end
  local whole, part = n // divisor, n % divisor
  if part == 0 then return tostring(whole) end
  return ("%d.%s"):format(whole, (("%0" .. places .. "d"):format(part):match("^(.-)0*$")))
end

local FORMAT_DURATION_UNITS = { { "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 } }

-- The shortest exact form in ns, us, ms or s (ties go to the larger unit):
-- 2000000000 -> "2s", 1500000 -> "1.5ms", 90000000000 -> "90s". Minutes and
-- hours are never used: they are rarely exact and seconds read as xperf's.
function M.format_duration_ns(ns)
  if math.type(ns) ~= "integer" or ns < 0 then
    return nil, ("format_duration_ns: expected a non-negative integer, got %s"):format(tostring(ns))
  end
  local best
  for _, unit in ipairs(FORMAT_DURATION_UNITS) do
    local text = decimal(ns, unit[2]) .. unit[1]
    if not best or #text <= #best then best = text end
  end
  return best
end

local FORMAT_SIZE_UNITS = {
  { "KB", 1000 }, { "KiB", KI }, { "MB", 1000000 }, { "MiB", KI * KI },
  { "GB", 1000000000 }, { "GiB", KI * KI * KI }, { "TB", 1000000000000 }, { "TiB", KI * KI * KI * KI },
}

-- Bare bytes, or a whole number of the unit that gives the shortest text
-- (ties go to the unit): 4096 -> "4KiB", 4000 -> "4KB", 1500 -> "1500".
function M.format_size(bytes)
  if math.type(bytes) ~= "integer" or bytes < 0 then
    return nil, ("format_size: expected a non-negative integer, got %s"):format(tostring(bytes))
  end
  local best = tostring(bytes)
  for _, unit in ipairs(FORMAT_SIZE_UNITS) do
    if bytes % unit[2] == 0 then
      local text = tostring(bytes // unit[2]) .. unit[1]
      if #text <= #best then best = text end
    end
  end
  return best
end

return M
