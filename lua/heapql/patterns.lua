-- heapql.patterns: frame pattern sets as values (cull and require lists).
-- A set is an ordered list of validated pattern texts without duplicates
-- (compared case-insensitively, ASCII), plus `includes_defaults`: whether it
-- holds the built-in default cull list, and where its patterns came from
-- (origin). Sets are immutable.
--
-- API:
--   set(x) -> set           x: a set, a pattern string, or a list of strings
--                           and sets; raises on a bad pattern or type
--   defaults(texts) -> set  flagged includes_defaults (the host passes the
--                           engine's default list)
--   from_file(text, name, origin) -> set   cull list file text
--                           (grammar.cull_list); origin says it in reports
--                           ("shipped stl"; default "file NAME")
--   origin(set) -> string   how the set was made, as reports say it, not its
--                           patterns: "defaults + shipped stl + 2 patterns"
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

-- `origin`: the named lists the set was made of, in order, each { op = "+"
-- or "-", what = "defaults" | "shipped NAME" | "file PATH" | "N patterns" },
-- and `named`, the keys of the patterns that came from them (the others are
-- counted as loose patterns when the origin is said).
local function new(texts, includes_defaults, origin)
  origin = origin or { terms = {}, named = {} }
  local data = { texts = {}, keys = {}, includes_defaults = includes_defaults and true or false,
                 terms = origin.terms, named = {} }
  for _, text in ipairs(texts) do
    local key = fold(text)
    if not data.keys[key] then
      data.keys[key] = true
      data.texts[#data.texts + 1] = text
      if origin.named[key] then data.named[key] = true end
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

-- An empty origin, and x's terms and named keys added to `origin` (a term
-- once).
local function no_origin() return { terms = {}, named = {} } end

local function add_origin(origin, x)
  for _, term in ipairs(made[x].terms) do
    local seen = false
    for _, had in ipairs(origin.terms) do
      if had.op == term.op and had.what == term.what then seen = true end
    end
    if not seen then origin.terms[#origin.terms + 1] = term end
  end
  for key in pairs(made[x].named) do origin.named[key] = true end
end

-- Adds x's texts to `out` (an array) and its origin to `origin`; returns
-- whether x included the defaults. Errors are raised at `level` counted
-- from the caller of coerce's caller, so that they point at the user's code.
local function collect(x, out, origin, level, where)
  if is_set(x) then
    for _, text in ipairs(made[x].texts) do out[#out + 1] = text end
    add_origin(origin, x)
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
  local texts, defaults, origin = {}, false, no_origin()
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
      if collect(x[i], texts, origin, level, ("item %d: "):format(i)) then defaults = true end
    end
  else
    collect(x, texts, origin, level, "")
  end
  return new(texts, defaults, origin)
end

-- Every key of `texts` marks them as from the named list `what`.
local function named_origin(texts, what)
  local origin = { terms = { { op = "+", what = what } }, named = {} }
  for _, text in ipairs(texts) do origin.named[fold(text)] = true end
  return origin
end

function M.set(x)
  local set = coerce(x, 2) -- not a tail call: error levels count this frame
  return set
end

function M.defaults(texts)
  local set = coerce(texts, 2)
  return new(made[set].texts, true, named_origin(made[set].texts, "defaults"))
end

function M.from_file(text, name, origin)
  local texts, message = grammar.cull_list(text, name)
  if not texts then error(message, 2) end
  return new(texts, false, named_origin(texts, origin or ("file " .. tostring(name))))
end

local function count(n, what)
  return n == 1 and ("1 " .. what) or (("%d %ss"):format(n, what))
end

function M.origin(s)
  local words = {}
  for i, term in ipairs(made[s].terms) do
    words[#words + 1] = (i == 1 and term.op == "+") and term.what or (term.op .. " " .. term.what)
  end
  local loose = 0
  for _, text in ipairs(made[s].texts) do
    if not made[s].named[fold(text)] then loose = loose + 1 end
  end
  if loose > 0 then words[#words + 1] = (#words == 0 and "" or "+ ") .. count(loose, "pattern") end
  if #words == 0 then return "no patterns" end
  return table.concat(words, " ")
end

-- Union: a's patterns, then b's new ones; it includes the defaults if
-- either side does.
function PatternSet.__add(a, b)
  a, b = coerce(a, 2), coerce(b, 2)
  local texts, origin = {}, no_origin()
  for _, text in ipairs(made[a].texts) do texts[#texts + 1] = text end
  for _, text in ipairs(made[b].texts) do texts[#texts + 1] = text end
  add_origin(origin, a)
  add_origin(origin, b)
  return new(texts, made[a].includes_defaults or made[b].includes_defaults, origin)
end

-- Difference: a without the patterns equal to one of b's (compared after
-- trimming, case-insensitively). The result is always fully explicit
-- (includes_defaults is false), even if no default pattern was removed: it
-- is the list it holds, nothing more.
function PatternSet.__sub(a, b)
  a, b = coerce(a, 2), coerce(b, 2)
  local removed = {}
  for _, text in ipairs(made[b].texts) do removed[fold(trim(text))] = true end
  local texts, origin, named_removed = {}, no_origin(), 0
  add_origin(origin, a)
  for _, text in ipairs(made[a].texts) do
    if not removed[fold(trim(text))] then
      texts[#texts + 1] = text
    elseif made[a].named[fold(text)] then
      named_removed = named_removed + 1
    end
  end
  -- A loose pattern taken out is just not counted; one of a named list is said.
  if named_removed > 0 then origin.terms[#origin.terms + 1] = { op = "-", what = count(named_removed, "pattern") } end
  return new(texts, false, origin)
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
