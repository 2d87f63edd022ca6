-- heapql.patterns: frame pattern sets as values (cull and require lists).
-- A set is an ordered list of validated pattern texts without duplicates
-- (compared case-insensitively, ASCII), plus `includes_defaults`: whether it
-- holds the built-in default cull list. Sets are immutable.
--
-- API:
--   set(x) -> set           x: a set, a pattern string, or a list of strings
--                           and sets; raises on a bad pattern or type
--   defaults(texts) -> set  flagged includes_defaults (the host passes the
--                           engine's default list)
--   from_file(text, name) -> set   cull list file text (grammar.cull_list)
--   is_set(x) -> boolean
--   a + b (union), a - b (difference), #s, tostring(s), a == b,
--   s:texts() -> {texts}, s:contains(text) -> boolean, s.includes_defaults
local grammar = require "heapql.grammar"

local M = {}

local PatternSet = {}
local methods = {}
-- The sets this module made, each to its contents: the metatable is locked
-- against recipes (getmetatable gives its name), so identity is kept here;
-- and the contents live here, not in the set, so that no rawset, rawget or
-- write to a field reaches them (a set is an empty table to a recipe).
local made = setmetatable({}, { __mode = "k" })

local function fold(text)
  return (text:gsub("[A-Z]", function(c) return string.char(c:byte() + 32) end))
end

local function trim(text)
  return text:match("^[ \t\r\v\f]*(.-)[ \t\r\v\f]*$")
end

local function new(texts, includes_defaults)
  local data = { texts = {}, keys = {}, includes_defaults = includes_defaults and true or false }
  for _, text in ipairs(texts) do
    local key = fold(text)
    if not data.keys[key] then
      data.keys[key] = true
      data.texts[#data.texts + 1] = text
    end
  end
  local set = setmetatable({}, PatternSet)
  made[set] = data
  return set
end

local function is_set(x)
  return made[x] ~= nil
end
M.is_set = is_set

-- Adds x's texts to `out` (an array); returns whether x included the
-- defaults. Errors are raised at `level` counted from the caller of coerce's
-- caller, so that they point at the user's code.
local function collect(x, out, level, where)
  if is_set(x) then
    for _, text in ipairs(made[x].texts) do out[#out + 1] = text end
    return made[x].includes_defaults
  end
  if type(x) == "string" then
    local ok, message = grammar.frame_pattern(x)
    if not ok then error(where .. message, level + 1) end
    out[#out + 1] = x
    return false
  end
  error(("%sexpected a frame pattern string, a list of them or a pattern set, got %s"):format(where, type(x)),
    level + 1)
end

-- x as a set; `level` as for error().
local function coerce(x, level)
  level = level + 1
  if is_set(x) then return x end
  local texts, defaults = {}, false
  if type(x) == "table" and getmetatable(x) == nil then
    local n = #x
    for key in pairs(x) do
      if math.type(key) ~= "integer" or key < 1 or key > n then
        error(("expected a list of frame patterns, found the key %s"):format(tostring(key)), level)
      end
    end
    for i = 1, n do
      if type(x[i]) == "table" and not is_set(x[i]) then
        error(("item %d: expected a frame pattern string or a pattern set, got a table"):format(i), level)
      end
      if collect(x[i], texts, level, ("item %d: "):format(i)) then defaults = true end
    end
  else
    collect(x, texts, level, "")
  end
  return new(texts, defaults)
end

function M.set(x)
  local set = coerce(x, 2) -- not a tail call: error levels count this frame
  return set
end

function M.defaults(texts)
  local set = coerce(texts, 2)
  return new(made[set].texts, true)
end

function M.from_file(text, name)
  local texts, message = grammar.cull_list(text, name)
  if not texts then error(message, 2) end
  return new(texts, false)
end

-- Union: a's patterns, then b's new ones; it includes the defaults if
-- either side does.
function PatternSet.__add(a, b)
  a, b = coerce(a, 2), coerce(b, 2)
  local texts = {}
  for _, text in ipairs(made[a].texts) do texts[#texts + 1] = text end
  for _, text in ipairs(made[b].texts) do texts[#texts + 1] = text end
  return new(texts, made[a].includes_defaults or made[b].includes_defaults)
end

-- Difference: a without the patterns equal to one of b's (compared after
-- trimming, case-insensitively). The result is always fully explicit
-- (includes_defaults is false), even if no default pattern was removed: it
-- is the list it holds, nothing more.
function PatternSet.__sub(a, b)
  a, b = coerce(a, 2), coerce(b, 2)
  local removed = {}
  for _, text in ipairs(made[b].texts) do removed[fold(trim(text))] = true end
  local texts = {}
  for _, text in ipairs(made[a].texts) do
    if not removed[fold(trim(text))] then texts[#texts + 1] = text end
  end
  return new(texts, false)
end

function PatternSet.__len(s)
  return #made[s].texts
end

-- Equal when both hold the same patterns (in any order, compared as for
-- de-duplication) and agree on includes_defaults. A plain table is never
-- equal to a set.
function PatternSet.__eq(a, b)
  if not (is_set(a) and is_set(b)) then return false end
  if #made[a].texts ~= #made[b].texts or made[a].includes_defaults ~= made[b].includes_defaults then return false end
  for key in pairs(made[a].keys) do
    if not made[b].keys[key] then return false end
  end
  return true
end

function PatternSet.__tostring(s)
  local quoted = {}
  for i, text in ipairs(made[s].texts) do quoted[i] = grammar.quote(text) end
  local head = made[s].includes_defaults and ("PatternSet(%d, includes defaults"):format(#quoted)
    or ("PatternSet(%d"):format(#quoted)
  if #quoted == 0 then return head .. ")" end
  return head .. ": " .. table.concat(quoted, ", ") .. ")"
end

function PatternSet.__index(s, key)
  if key == "includes_defaults" then return made[s].includes_defaults end
  return methods[key]
end

function PatternSet.__newindex()
  error("a pattern set cannot be changed; build a new one with + or -", 2)
end

PatternSet.__name = "heapql.PatternSet"
PatternSet.__metatable = "heapql.PatternSet"

function methods.texts(s)
  local copy = {}
  for i, text in ipairs(made[s].texts) do copy[i] = text end
  return copy
end

-- Whether s holds `text` (case-insensitively, as de-duplication compares).
function methods.contains(s, text)
  return type(text) == "string" and made[s].keys[fold(text)] == true
end

return M
