-- heapql: the Lua API recipes and scripts use (`local hq = require "heapql"`).
-- Declarations (hq.recipe), pattern sets (hq.cull), the imperative API
-- (hq.open, trace:query, result:rows ...), reports (hq.output) and gates
-- (hq.fail_if). The C side is heapql.core; docs/recipes.md lists it all.
-- heapql.core, the C side, comes from this module's loader (it is not
-- requireable in a recipe's sandbox).
local core = select(2, ...)
local grammar = require "heapql.grammar"
local patterns = require "heapql.patterns"
local recipe = require "heapql.recipe"
local schema = require "heapql.schema"

local hq = { version = core.version }  -- CMakeLists.txt's project version

-- Resolves a file name the way recipes mean it: relative to the recipe.
local function beside_recipe(path)
  local dir = core.recipe_dir()
  if dir and dir ~= "" and dir ~= "." and not core.is_absolute(path) then return dir .. "/" .. path end
  return path
end

-- The text of a file heapql ships in queries/FOLDER/NAME.txt, and how errors
-- name it, from wherever the recipe is. Errors blame the caller's caller.
local function read_shipped(api, folder, what, example, name)
  if type(name) ~= "string" or not name:match("^[%w_%-]+$") then
    error(("%s: expected the name of a shipped %s, such as \"%s\""):format(api, what, example), 3)
  end
  local label = folder .. "/" .. name .. ".txt"
  local ok, text = pcall(core.read_text, core.queries_dir() .. "/" .. label)
  if not ok then error(("%s: no shipped %s '%s' (%s)"):format(api, what, name, tostring(text)), 3) end
  return text, label
end

hq.cull = {
  defaults = patterns.defaults(core.default_cull()),
  none = patterns.set({}),
  set = patterns.set,
  file = function(path)
    if type(path) ~= "string" then error("hq.cull.file: expected a path string", 2) end
    local resolved = beside_recipe(path)
    local text = core.read_text(resolved)
    return patterns.from_file(text, resolved, "file " .. path)
  end,
  -- A cull list heapql ships (queries/cull/NAME.txt), from wherever the recipe is.
  shipped = function(name)
    local text, label = read_shipped("hq.cull.shipped", "cull", "cull list", "libc-linux", name)
    return patterns.from_file(text, label, "shipped " .. name)
  end,
}

-- Leak suppressions (semantics §11): the patterns of an LSan file, for a
-- query's `suppressions` field.
hq.suppressions = {
  file = function(path)
    if type(path) ~= "string" then error("hq.suppressions.file: expected a path string", 2) end
    local resolved = beside_recipe(path)
    return core.suppression_patterns(core.read_text(resolved), resolved)
  end,
  -- A suppressions file heapql ships (queries/suppressions/NAME.txt).
  shipped = function(name)
    return core.suppression_patterns(read_shipped("hq.suppressions.shipped", "suppressions", "suppressions file",
      "heaptrack-builtin", name))
  end,
}

hq.recipe = recipe.declare

-- Runs a Lua file beside the recipe (text only, the recipe's environment) and returns its value.
function hq.include(path)
  if type(path) ~= "string" then error("hq.include: expected a path string", 2) end
  local resolved = beside_recipe(path)
  local chunk, err = load(core.read_text(resolved), "@" .. resolved, "t")
  if not chunk then error(err, 2) end
  return chunk()
end

-- The little languages, for recipes that take their own inputs.
hq.parse = {
  duration = grammar.duration, size = grammar.size, duration_range = grammar.duration_range,
  size_range = grammar.size_range, frame_pattern = grammar.frame_pattern,
}
-- Two results of the same query, rows matched by key (semantics §10).
hq.diff = core.diff
-- A frame as tables show it: template arguments collapsed, parameters dropped.
hq.short_name = core.short_name
hq.format_bytes = core.format_bytes
hq.format_duration = core.format_duration

-- An exact integer with thousands separators: 20,000.
function hq.format_count(n)
  local text, replaced = tostring(math.tointeger(n) or n), 0
  repeat text, replaced = text:gsub("^(-?%d+)(%d%d%d)", "%1,%2") until replaced == 0
  return text
end

-- Imperative API ---------------------------------------------------------
local trace_methods = core.trace_methods()
-- trace:query{...}: the same fields as a recipe's query (docs/recipes.md).
function trace_methods.query(trace, q)
  return trace:query_normalized(schema.normalize(q, "trace:query"))
end

function hq.open(path, options) return core.open(path, options) end

-- Gates: hq.fail_if(condition, message) marks the run failed (exit 1) but
-- lets the report finish.
function hq.fail_if(condition, message)
  if condition then
    core.fail_gate(tostring(message or "a gate failed"))
    return true
  end
  return false
end
function hq.gate_failed() return core.gate_count() > 0 end

-- Derived columns: `columns` is a list of {name, function(row) ... end} (or a
-- map name -> function, in name order); each function runs once per shown row.
function hq.with_columns(result, columns)
  local list = {}
  if #columns > 0 then
    for _, c in ipairs(columns) do list[#list + 1] = { c[1] or c.name, c[2] or c.value } end
  else
    local names = {}
    for name in pairs(columns) do names[#names + 1] = name end
    table.sort(names)
    for _, name in ipairs(names) do list[#list + 1] = { name, columns[name] } end
  end
  local names, values = {}, {}
  for i, c in ipairs(list) do
    if type(c[1]) ~= "string" or type(c[2]) ~= "function" then
      error("columns: entry " .. i .. " must be {name, function(row)}", 2)
    end
    names[i] = c[1]
  end
  for r, row in ipairs(result:rows()) do
    local cells = {}
    for i, c in ipairs(list) do
      local v = c[2](row)
      if math.type(v) == "float" then v = string.format("%.2f", v) end
      cells[i] = v == nil and "" or tostring(v)
    end
    values[r] = cells
  end
  return result:with_columns(names, values)
end

-- Reports ----------------------------------------------------------------
local Output = {}
Output.__index = Output
Output.__metatable = "heapql.Output"  -- shared by every output: recipes may not change it

-- An output in `format` (table|json|csv|html) writing to the run's destination.
function hq.output(format)
  return setmetatable({ format = format or "table" }, Output)
end

function Output:write(...)
  for i = 1, select("#", ...) do core.write(tostring((select(i, ...)))) end
end
function Output:line(fmt, ...) core.write(string.format(fmt, ...) .. "\n") end
function Output:result(result)
  if self.format == "json" then core.write(result:json())
  elseif self.format == "csv" then core.write(result:csv())
  elseif self.format == "html" then core.write(result:html())
  else core.write(result:table()) end
end
function Output:table(result, opts)
  if opts and opts.columns then result = hq.with_columns(result, opts.columns) end
  core.write(result:table())
end
function Output:json(result) core.write(result:json()) end
function Output:csv(result) core.write(result:csv()) end
function Output:html(result) core.write(result:html()) end
function Output:tree(result, opts)
  local merged = {}
  for k, v in pairs(self.tree_defaults or {}) do merged[k] = v end
  for k, v in pairs(opts or {}) do merged[k] = v end
  core.write(result:tree_text(merged))
end

-- The schema, for tools (docs generation, editors).
hq.schema = schema

return hq
