-- heapql.recipe: recipe declarations (name, doc, typed params, query,
-- report, run, columns), --param overrides typed by the declaration, the
-- text of `heapql help`, and running a recipe against a trace.
local grammar = require "heapql.grammar"
local schema = require "heapql.schema"

local recipe = {}

local MARK = {}  -- identifies tables made by hq.recipe

-- Each param type: how a --param text becomes a value, and how a default is checked.
local TYPES = {
  string = { parse = function(s) return s end, check = function(v) return type(v) == "string" end },
  integer = {
    parse = function(s) local n = math.tointeger(tonumber(s)); if n == nil then return nil, "expected a whole number" end; return n end,
    check = function(v) return math.type(v) == "integer" end },
  number = {
    parse = function(s) local n = tonumber(s); if n == nil then return nil, "expected a number" end; return n end,
    check = function(v) return type(v) == "number" end },
  boolean = {
    parse = function(s)
      local l = s:lower()
      if l == "true" or l == "yes" or l == "1" or l == "on" then return true end
      if l == "false" or l == "no" or l == "0" or l == "off" then return false end
      return nil, "expected true or false"
    end,
    check = function(v) return type(v) == "boolean" end },
  duration = { parse = function(s) local ok, err = grammar.duration(s); if not ok then return nil, err end; return s end },
  size = { parse = function(s) local ok, err = grammar.size(s); if not ok then return nil, err end; return s end },
  duration_range = { parse = function(s) local ok, err = grammar.duration_range(s); if not ok then return nil, err end; return s end },
  size_range = { parse = function(s) local ok, err = grammar.size_range(s); if not ok then return nil, err end; return s end },
  patterns = {
    parse = function(s)
      if s == "" then return {} end
      local items, err = grammar.list(s)
      if not items then return nil, err end
      for _, p in ipairs(items) do
        local ok, perr = grammar.frame_pattern(p)
        if not ok then return nil, perr end
      end
      return items
    end,
    check = function(v) return type(v) == "table" end },
  path = { parse = function(s) if s == "" then return nil, "expected a file path" end; return s end },
}
for _, t in pairs(TYPES) do
  if not t.check then
    local parse = t.parse
    t.check = function(v) return type(v) == "string" and parse(v) ~= nil end
  end
end
recipe.param_types = {}
for name in pairs(TYPES) do recipe.param_types[#recipe.param_types + 1] = name end
table.sort(recipe.param_types)

local DECLARATION = { name = "string", doc = "string", params = "table", query = "function",
                      report = "function", run = "function", columns = "table" }

local function infer_type(value)
  if math.type(value) == "integer" then return "integer" end
  if type(value) == "number" then return "number" end
  if type(value) == "boolean" then return "boolean" end
  return "string"
end

-- hq.recipe{...}: checks the declaration's shape; returns it marked.
function recipe.declare(decl)
  if type(decl) ~= "table" then error("hq.recipe: expected a table", 2) end
  for key, value in pairs(decl) do
    local want = DECLARATION[key]
    if not want then
      error(string.format("hq.recipe: unknown field '%s' (fields: name, doc, params, query, report, run, columns)", tostring(key)), 2)
    end
    if type(value) ~= want then
      error(string.format("hq.recipe: field '%s' must be a %s, got %s", key, want, type(value)), 2)
    end
  end
  if not decl.name then error("hq.recipe: 'name' is required", 2) end
  if not decl.doc then error("hq.recipe: 'doc' is required (one line for heapql list)", 2) end
  if not decl.query and not decl.run then error("hq.recipe: needs a 'query' (or a 'run') function", 2) end
  if decl.query and decl.run then error("hq.recipe: give 'query' (with an optional 'report') or 'run', not both", 2) end
  local params = {}
  for name, spec in pairs(decl.params or {}) do
    if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
      error(string.format("hq.recipe: param name %q must be an identifier", tostring(name)), 2)
    end
    if type(spec) ~= "table" then spec = { default = spec, type = infer_type(spec) } end
    local kind = spec.type or infer_type(spec.default)
    local t = TYPES[kind]
    if not t then
      error(string.format("hq.recipe: param '%s': unknown type '%s' (types: %s)", name, tostring(kind),
        table.concat(recipe.param_types, ", ")), 2)
    end
    if spec.default ~= nil and not t.check(spec.default) then
      error(string.format("hq.recipe: param '%s': default %s is not a valid %s", name, tostring(spec.default), kind), 2)
    end
    if spec.doc ~= nil and type(spec.doc) ~= "string" then
      error(string.format("hq.recipe: param '%s': doc must be a string, got %s", name, type(spec.doc)), 2)
    end
    params[name] = { type = kind, default = spec.default, doc = spec.doc or "" }
  end
  local out = {}
  for k, v in pairs(decl) do out[k] = v end
  out.params = params
  out[MARK] = true
  return out
end

function recipe.is_recipe(value) return type(value) == "table" and rawget(value, MARK) == true end

-- The declaration a recipe file returned, as the host reads it: a fresh table
-- of the fields hq.recipe accepts, read raw and checked again, since the
-- recipe may have changed the table, or given it a metatable, after
-- hq.recipe made it. `path` names the file in the error.
function recipe.snapshot(value, path)
  if not recipe.is_recipe(value) then
    error(string.format("%s: a recipe must return hq.recipe{...} (got a %s)", path, type(value)), 0)
  end
  local fields = {}
  for key in pairs(DECLARATION) do fields[key] = rawget(value, key) end
  local ok, declared = pcall(recipe.declare, fields)
  if not ok then error(string.format("%s: %s", path, tostring(declared)), 0) end
  return declared
end

local function sorted_names(params)
  local names = {}
  for name in pairs(params) do names[#names + 1] = name end
  table.sort(names)
  return names
end

-- The params a run sees: defaults, overridden by --param texts (typed).
function recipe.params(decl, overrides, where)
  local values = {}
  for name, spec in pairs(decl.params) do values[name] = spec.default end
  for name, text in pairs(overrides or {}) do
    local spec = decl.params[name]
    if not spec then
      local known = sorted_names(decl.params)
      error(string.format("%s: unknown param '%s' (params: %s)", where, name,
        #known > 0 and table.concat(known, ", ") or "none"), 0)
    end
    local value, err = TYPES[spec.type].parse(text)
    if value == nil then
      error(string.format("%s: --param %s=%s: %s (type %s)", where, name, text, err, spec.type), 0)
    end
    values[name] = value
  end
  return values
end

local function show(value)
  if value == nil then return "(none)" end
  if type(value) == "table" then return table.concat(value, ",") end
  return tostring(value)
end

-- A declaration's params as `heapql help NAME` shows them and `heapql list
-- --format json` lists them: {name, type, default (as --param writes it; nil
-- when none), doc}, sorted by name.
function recipe.param_list(decl)
  local list = {}
  for _, name in ipairs(sorted_names(decl.params)) do
    local p = decl.params[name]
    list[#list + 1] = { name = name, type = p.type, default = p.default ~= nil and show(p.default) or nil, doc = p.doc }
  end
  return list
end

-- The text of `heapql help NAME`.
function recipe.describe(decl, path)
  local lines = { decl.name .. " — " .. decl.doc, "", "file: " .. path, "" }
  local params = recipe.param_list(decl)
  if #params == 0 then
    lines[#lines + 1] = "params: none"
  else
    lines[#lines + 1] = "params (override with --param NAME=VALUE):"
    for _, p in ipairs(params) do
      lines[#lines + 1] = string.format("  %-14s %-15s default %-12s %s", p.name, p.type, p.default or show(nil), p.doc)
    end
  end
  lines[#lines + 1] = ""
  if decl.run then
    lines[#lines + 1] = "reports: what its run function writes (it composes several queries)"
  elseif decl.report then
    lines[#lines + 1] = "reports: its own report (table format); --format json|csv|html prints the query result"
  else
    lines[#lines + 1] = "reports: the result table (or --format json|csv|html)"
  end
  return table.concat(lines, "\n") .. "\n"
end

-- Runs a declaration on an open trace. `format` is table|json|csv|html.
function recipe.run(hq, decl, params, trace, format, where)
  local out = hq.output(format)
  if decl.run then
    decl.run(trace, params, out)
    return
  end
  local q = decl.query(params)
  local normalized = schema.normalize(q, where)
  -- The HTML page charts outstanding size over time: ask for a series when
  -- the recipe did not (kHtmlSeriesBuckets, engine/report/html_report.h).
  if format == "html" and (normalized.series or 0) == 0 then normalized.series = 1000 end
  local result = trace:query_normalized(normalized)
  if decl.columns then result = hq.with_columns(result, decl.columns) end
  out.tree_defaults = normalized.tree
  if format ~= "table" or not decl.report then
    out:result(result)
  else
    decl.report(result, out, params)
  end
end

return recipe
