-- heapql.grammar: the little languages users write (durations, sizes, their
-- ranges, frame patterns, cull list files, comma lists) as LPeg grammars. It
-- mirrors engine/units.cpp, engine/query/frame_pattern.cpp and
-- engine/query/cull_list.cpp: same language, same values, same messages.
-- Pure Lua (string, table, math, lpeg only): it runs inside the recipe sandbox.
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
local C, Cc, Cp, Ct, Cg, Cs, Cmt = lpeg.C, lpeg.Cc, lpeg.Cp, lpeg.Ct, lpeg.Cg, lpeg.Cs, lpeg.Cmt

local M = {}

-- Lua integers are signed 64-bit, so the largest size here is
-- 9223372036854775807 bytes, where the C++ side (uint64) goes up to
-- 18446744073709551615. Durations have the same limit on both sides.
local MAX = math.maxinteger

local DURATION_UNITS = {
  { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
  { "m", 60000000000 }, { "h", 3600000000000 },
}
local DURATION_UNIT_LIST = "ns us ms s m h"
local KI = 1024
local SIZE_UNITS = {
  { "b", 1 },
  { "k", 1000 }, { "kb", 1000 }, { "ki", KI }, { "kib", KI },
  { "m", 1000000 }, { "mb", 1000000 }, { "mi", KI * KI }, { "mib", KI * KI },
  { "g", 1000000000 }, { "gb", 1000000000 }, { "gi", KI * KI * KI }, { "gib", KI * KI * KI },
  { "t", 1000000000000 }, { "tb", 1000000000000 }, { "ti", KI * KI * KI * KI }, { "tib", KI * KI * KI * KI },
}
local SIZE_UNIT_LIST = "B KB KiB MB MiB GB GiB TB TiB"
local MAX_FRACTION_DIGITS = 18 -- 10^18 still fits in an int64

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
-- Exact arithmetic on non-negative integers; nil on overflow.

local function mul(a, b)
  if a ~= 0 and b > MAX // a then return nil end
  return a * b
end

local function add(a, b)
  if b > MAX - a then return nil end
  return a + b
end

local function gcd(a, b)
  while b ~= 0 do a, b = b, a % b end
  return a
end

---------------------------------------------------------------------------
-- Quantities: a decimal number and its unit, `1.5ms`. Positions are those of
-- the piece being matched; callers shift them into the whole text.

local digit = R"09"

-- Exactly integer.fraction * multiplier, checked as units.cpp does (and in
-- the same order, so the same input gets the same message).
local function scale(q, too_large, not_whole)
  local value = 0
  for i = 1, #q.integer do
    value = mul(value, 10)
    value = value and add(value, q.integer:byte(i) - 48)
    if not value then fail(q.begin, too_large) end
  end
  value = mul(value, q.multiplier)
  if not value then fail(q.begin, too_large) end

  local fraction = (q.fraction or ""):match("^(.-)0*$")
  if fraction == "" then return value end
  if #fraction > MAX_FRACTION_DIGITS then
    fail(q.fraction_begin, ("at most %d digits after the point"):format(MAX_FRACTION_DIGITS))
  end
  local digits, scale_down = 0, 1
  for i = 1, #fraction do
    digits = digits * 10 + (fraction:byte(i) - 48)
    scale_down = scale_down * 10
  end
  -- digits * multiplier / scale_down without overflow: cancel the common
  -- factor first; what is left of scale_down must divide digits.
  local common = gcd(q.multiplier, scale_down)
  local rest = scale_down // common
  if digits % rest ~= 0 then fail(q.fraction_begin, not_whole) end
  local part = mul(digits // rest, q.multiplier // common)
  value = part and add(value, part)
  if not value then fail(q.begin, too_large) end
  return value
end

local function unit_alternatives(units)
  local p = P(false)
  for _, unit in ipairs(units) do p = p + ci(unit[1]) * -1 * Cc(unit[2]) end
  return p
end

local function unknown_unit(list)
  return Cmt(Cp() * C(P(1) ^ 0), function(_, _, pos, unit)
    fail(pos, ("unknown unit '%s', expected one of %s"):format(unit, list))
  end)
end

local function quantity(unit)
  return Ct(Cg(Cp(), "begin") * Cg(C(digit ^ 1), "integer")
      * (P"." * Cg(Cp(), "fraction_begin") * Cg(C(digit ^ 1) + expect"expected a digit after '.'", "fraction")) ^ -1
      * Cg(unit, "multiplier"))
    + #P"-" * expect"expected a number; negative values are not allowed"
    + expect"expected a number"
end

local duration_patt = quantity(-P(1) * expect("needs a unit: " .. DURATION_UNIT_LIST)
    + unit_alternatives(DURATION_UNITS)
    + unknown_unit(DURATION_UNIT_LIST))
  / function(q)
    return scale(q, ("too large: the most is %dns (about 292 years)"):format(MAX), "finer than 1 ns")
  end

local size_patt = quantity(-P(1) * Cc(1)
    + unit_alternatives(SIZE_UNITS)
    + unknown_unit(SIZE_UNIT_LIST))
  / function(q)
    return scale(q, ("too large: the most is %d bytes"):format(MAX), "not a whole number of bytes")
  end

-- Matches `patt` against whole[first, last], reporting failures at their
-- position in `whole`.
local function match_piece(patt, whole, first, last)
  local ok, result = pcall(lpeg.match, patt, whole:sub(first, last))
  if ok then return result end
  if getmetatable(result) == Failure then fail(result.pos + first - 1, result.message) end
  error(result, 0)
end

local function describe_in(whole)
  return function(failure)
    return ("'%s' at column %d: %s"):format(whole, failure.pos, failure.message)
  end
end

function M.duration(text)
  if type(text) ~= "string" then return nil, not_string("duration", text) end
  return catching(describe_in(text), match_piece, duration_patt, text, 1, #text)
end

function M.size(text)
  if type(text) ~= "string" then return nil, not_string("size", text) end
  return catching(describe_in(text), match_piece, size_patt, text, 1, #text)
end

---------------------------------------------------------------------------
-- Ranges: `A..B`, `A..`, `..B`, `..`, `all`; durations also take `end` as the
-- open upper bound. The split comes first (as in units.cpp), then each side.

local dots = P".."
local range_split = ci"all" * -1 * Cc(false)
  + (1 - dots) ^ 0 * Cp() * (dots + expect"expected A..B (or A.., ..B, all)")
  * Cp() * (1 - dots) ^ 0 * (-1 + expect"expected A..B with a single '..'")

local end_word = ci"end" * -1

local function range(text, patt, open_word)
  local left_end, right_begin = range_split:match(text)
  if not left_end then return { first = 0 } end -- `all`
  local first = 0
  if left_end > 1 then first = match_piece(patt, text, 1, left_end - 1) end
  local right = text:sub(right_begin)
  if right == "" or (open_word and open_word:match(right)) then return { first = first } end
  local last = match_piece(patt, text, right_begin, #text)
  if last < first then
    fail(right_begin, ("the end '%s' is before the begin '%s'"):format(right, text:sub(1, left_end - 1)))
  end
  return { first = first, last = last }
end

function M.duration_range(text)
  if type(text) ~= "string" then return nil, not_string("duration range", text) end
  return catching(describe_in(text), range, text, duration_patt, end_word)
end

function M.size_range(text)
  if type(text) ~= "string" then return nil, not_string("size range", text) end
  return catching(describe_in(text), range, text, size_patt, nil)
end

---------------------------------------------------------------------------
-- Frame patterns (frame_pattern.h): validated only; matching is the engine's.

local BACKSLASH = P"\\"
local nul_at = (P(1) - "\0") ^ 0 * Cp() * "\0"
local trailing_escape = Cmt(Cp() * BACKSLASH * -1, function(_, _, pos)
  fail(pos, "'\\' at the end escapes nothing (write '\\\\' for a backslash)")
end)
local pattern_char = BACKSLASH * P(1) + trailing_escape
-- The position of the first unescaped `!`, or false. Later `!`s belong to
-- the symbol; every escape in the text is checked before the module is.
local frame_patt = (pattern_char + (P(1) - BACKSLASH - "!")) ^ 0
  * (Cp() * "!" * (pattern_char + (P(1) - BACKSLASH)) ^ 0 + Cc(false)) * -1

local function check_frame_pattern(text)
  local nul = nul_at:match(text)
  if nul then fail(nul, "a NUL byte cannot be part of a pattern") end
  local bang = frame_patt:match(text)
  if bang == 1 then fail(1, "expected a module name before '!' (write 'symbol' for any module)") end
  return text
end

function M.frame_pattern(text)
  if type(text) ~= "string" then return nil, not_string("frame pattern", text) end
  if text == "" then return nil, "frame pattern '': empty pattern" end
  return catching(function(failure)
    return ("frame pattern '%s': at column %d: %s"):format(M.printable(text), failure.pos, failure.message)
  end, check_frame_pattern, text)
end

---------------------------------------------------------------------------
-- Cull list files (cull_list.h): one pattern per line, trimmed; blank and
-- `#` lines ignored; a UTF-8 byte order mark skipped; CRLF is fine because
-- `\r` is trimmed. Errors are located as "name:line: " (no prefix without a
-- name), as heapql::format_location does.

local not_newline = P(1) - "\n"
local lines_patt = P"\239\187\191" ^ -1
  * Ct((C(not_newline ^ 0) * "\n" + C(not_newline ^ 1)) ^ 0) * -1
local blank = S" \t\r\v\f"
local trimmed = blank ^ 0 * C((blank ^ 0 * (1 - blank) ^ 1) ^ 0)

function M.cull_list(text, name)
  if type(text) ~= "string" then return nil, not_string("cull list", text) end
  if name ~= nil and type(name) ~= "string" then return nil, not_string("cull list name", name) end
  local result = {}
  for number, line in ipairs(lines_patt:match(text)) do
    line = trimmed:match(line)
    if line ~= "" and line:sub(1, 1) ~= "#" then
      local ok, message = M.frame_pattern(line)
      if not ok then
        if name and name ~= "" then message = ("%s:%d: %s"):format(name, number, message) end
        return nil, message
      end
      result[#result + 1] = line
    end
  end
  return result
end

---------------------------------------------------------------------------
-- Comma lists: `a, b,c` -> {"a", "b", "c"}; spaces and tabs around items are
-- trimmed; an empty item is an error at the point where it was expected.

local space = S" \t"
local item = space ^ 0 * (#(P"," + -1) * expect"empty item"
  + C((space ^ 0 * (1 - space - ",") ^ 1) ^ 0)) * space ^ 0
local list_patt = Ct(item * ("," * item) ^ 0) * -1

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
