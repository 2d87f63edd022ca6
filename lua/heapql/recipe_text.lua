-- heapql.recipe_text: writes recipe files a person can keep, read and run:
-- the text of `heapql xperf FLAGS` (heapql.xperf) and of `heapql query TRACE
-- OPTIONS --format recipe` (from_flags). Every string is written as a
-- one-line Lua literal (grammar.quote) and every comment line's words are
-- shell-quoted with control bytes escaped, so no input can end a literal or a
-- comment early.
--
-- API:
--   shell_word(word), command_line(words) -> text for a comment line
--   list_literal(list, render, indent) -> "{ a, b }" or one item a line
--   write(spec) -> the recipe file's text
--   from_flags(given, shipped, words) -> the recipe of `heapql query` options
local lpeg = require "lpeg"
local grammar = require "heapql.grammar"
local schema = require "heapql.schema"

local P, R, S, Cs = lpeg.P, lpeg.R, lpeg.S, lpeg.Cs

local M = {}

M.WIDTH = 100 -- longer fields are laid out one item per line

-- A word as a POSIX shell would need it: bare when safe, in '...' when it
-- has no control bytes, else in $'...' with escapes, so that a comment line
-- can never be ended by a word.
local shell_safe = (R("az", "AZ", "09") + S"-_./:=+,@%") ^ 1 * -1
local single_quoted = Cs((P"'" / "'\\''" + P(1)) ^ 0)
local ansi_escapes = { ["\\"] = "\\\\", ["'"] = "\\'", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
local ansi_quoted = Cs((S"\\'\n\r\t" / ansi_escapes
  + R("\0\31", "\127\127") / function(c) return ("\\x%02x"):format(c:byte()) end
  + P(1)) ^ 0)
local has_control = (P(1) - R("\0\31", "\127\127")) ^ 0 * R("\0\31", "\127\127")

function M.shell_word(word)
  if shell_safe:match(word) then return word end
  if has_control:match(word) then return "$'" .. ansi_quoted:match(word) .. "'" end
  return "'" .. single_quoted:match(word) .. "'"
end

-- The words, each as shell_word writes it, separated by spaces.
function M.command_line(words)
  local parts = {}
  for i, word in ipairs(words) do parts[i] = M.shell_word(word) end
  return table.concat(parts, " ")
end

-- `{ a, b }`, or one item per line under `indent` when it would be long.
function M.list_literal(list, render, indent)
  local items = {}
  for i, v in ipairs(list) do items[i] = render(v) end
  local flat = "{ " .. table.concat(items, ", ") .. " }"
  if #flat + #indent <= M.WIDTH - 20 then return flat end
  return "{\n" .. indent .. "  " .. table.concat(items, ",\n" .. indent .. "  ") .. ",\n" .. indent .. "}"
end

-- The recipe file: spec = { comments = {line, ...} (each one line, written
-- after "-- "), name, doc, params = nil (none written) or {line, ...} (each
-- a whole line, "    top = {...},"), query_args = "p" or nil, fields =
-- {text, ...} (each "window = p.window," and what follows it, written at the
-- query table's indent) }.
function M.write(spec)
  local out = {}
  local function line(text) out[#out + 1] = text end
  for _, comment in ipairs(spec.comments or {}) do line("-- " .. comment) end
  line('local hq = require "heapql"')
  line("")
  line("return hq.recipe {")
  line("  name = " .. grammar.quote(spec.name) .. ",")
  line("  doc = " .. grammar.quote(spec.doc) .. ",")
  if spec.params then
    if #spec.params == 0 then
      line("  params = {},")
    else
      line("  params = {")
      for _, p in ipairs(spec.params) do line(p) end
      line("  },")
    end
  end
  line("  query = function(" .. (spec.query_args or "") .. ")")
  line("    return {")
  for _, field in ipairs(spec.fields) do line(M.FIELD_INDENT .. field) end
  line("    }")
  line("  end,")
  line("}")
  return table.concat(out, "\n") .. "\n"
end
M.FIELD_INDENT = "      "

---------------------------------------------------------------------------
-- `heapql query TRACE OPTIONS --format recipe`.

-- A value as the command line gave it, as a literal of the field's type: a
-- whole number where the field takes one and the text is one exactly as
-- Lua writes it (so "007" stays a string, which the field reads as 7 either
-- way), else a string.
local function value_literal(field, text)
  local n = field.type:find("integer", 1, true) and text:match("^%-?%d+$") and math.tointeger(tonumber(text))
  if n and tostring(n) == text then return text end
  return grammar.quote(text)
end

local function render_value(field, value)
  if type(value) == "boolean" then return tostring(value) end
  if type(value) == "table" then
    return M.list_literal(value, function(text) return value_literal(field, text) end, M.FIELD_INDENT)
  end
  return value_literal(field, value)
end

-- A cull or suppressions file named on the command line, as the recipe reads
-- it: a shipped list by its name (from wherever the recipe is), else the
-- file by its path, which a recipe reads beside itself and as its sandbox
-- allows.
local function list_reader(api, names, value)
  local shipped = names and names[value]
  if shipped then return ("hq.%s.shipped %s"):format(api, grammar.quote(shipped)) end
  return ("hq.%s.file %s"):format(api, grammar.quote(value))
end

-- The fields that only the command line sets (files the engine reads) and
-- the fields they decide, as a recipe writes them: field -> function(query,
-- shipped) returning {name, text} pairs, or nothing.
local FORMS = {
  -- Cull list files make cull a pattern set that spells the whole list:
  -- the defaults (unless --no-default-cull), the lists, the --cull patterns.
  cull_files = function(q, shipped)
    local terms = {}
    if q.default_cull ~= false then terms[#terms + 1] = "hq.cull.defaults" end
    for _, value in ipairs(q.cull_files) do terms[#terms + 1] = list_reader("cull", shipped.cull, value) end
    if q.cull and #q.cull > 0 then terms[#terms + 1] = M.list_literal(q.cull, grammar.quote, M.FIELD_INDENT .. "  ") end
    return { { "cull", table.concat(terms, "\n" .. M.FIELD_INDENT .. "  + ") } }
  end,
  cull = function(q) if q.cull_files then return {} end end,
  default_cull = function(q) if q.cull_files then return {} end end,
  suppression_files = function(q, shipped)
    local readers = {}
    for i, value in ipairs(q.suppression_files) do readers[i] = list_reader("suppressions", shipped.suppressions, value) end
    return { { "suppressions", M.list_literal(readers, function(text) return text end, M.FIELD_INDENT) } }
  end,
}

-- The recipe of `heapql query` options as given ({{option, value}, ...}, as
-- schema.flag_query takes them): its query table spells the same query.
-- `shipped` = {cull = {[value] = name}, suppressions = {...}}: the
-- --cull-list and --suppressions values that name shipped lists. `words`:
-- the command line after "heapql" ({"query", TRACE, options...}), for the
-- comment and the doc. Raises for a field only the
-- command line sets that has no form here.
function M.from_flags(given, shipped, words)
  local query = schema.flag_query(given, "heapql query")
  shipped = shipped or {}
  local fields = {}
  for _, field in ipairs(schema.fields) do
    local value = query[field.name]
    if value ~= nil then
      local form = FORMS[field.name]
      local pairs_written = form and form(query, shipped)
      if not pairs_written then
        if field.command_line_only then
          error("heapql.recipe_text: no recipe form for the command-line field '" .. field.name .. "'", 0)
        end
        pairs_written = { { field.name, render_value(field, value) } }
      end
      for _, pair in ipairs(pairs_written) do fields[#fields + 1] = pair[1] .. " = " .. pair[2] .. "," end
    end
  end
  local command = { "heapql", words[1] or "query", "TRACE" }
  for i = 3, #words do command[#command + 1] = words[i] end
  return M.write {
    comments = {
      "heapql " .. M.command_line(words),
      "The query of these options, written by --format recipe: heapql run FILE TRACE answers it.",
    },
    name = "saved-query",
    doc = "The query of " .. M.command_line(command),
    fields = fields,
  }
end

return M
