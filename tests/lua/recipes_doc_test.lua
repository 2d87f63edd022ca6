-- docs/recipes.md and lua/meta/heapql.lua are what lua/tools/gen_recipes_doc.lua
-- makes of the module as built; heapql.api_doc describes every function of
-- the module and nothing that is gone, the declaration fields and param types
-- of heapql.recipe, and the fields of the tables the API returns; the
-- examples in the docs run.
local testlib = require "testlib"
local root, build = testlib.root, testlib.build_dir
local t = testlib.new("recipes_doc_test")
local hq = require "heapql"
local api = require "heapql.api_doc"
local gen = require "tools.gen_recipes_doc"
local gen_cli = require "tools.gen_cli_doc"

local TRACE = root .. "/tests/data/worked_example.txt"
local REGENERATE = "cmake --build build-dev --target heapql heapql_lua_module && "
  .. "lua5.4 -e 'package.cpath=\"build-dev/?.so;\"..package.cpath' "
  .. "lua/tools/gen_recipes_doc.lua docs/recipes.md lua/meta/heapql.lua"

local function read(path)
  local file = io.open(path, "rb")
  if not file then return nil end
  local text = file:read("a")
  file:close()
  return text
end

local function write(path, text)
  local file = assert(io.open(path, "wb"))
  file:write(text)
  file:close()
end

local function lines_of(text)
  local lines = {}
  for line in (text .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
  return lines
end

-- The checked-in file at `name` (relative to the root) must equal `generated`.
local function current(name, generated)
  local text = read(root .. "/" .. name)
  if text == generated then return t:record(true) end
  local detail
  if text == nil then
    detail = name .. " is missing"
  else
    local a, b = lines_of(text), lines_of(generated)
    local differing, first = 0, nil
    for i = 1, math.max(#a, #b) do
      if a[i] ~= b[i] then
        differing = differing + 1
        first = first or i
      end
    end
    detail = ("%d lines differ; the first is line %d:\n        checked in: %s\n        generated:  %s"):format(
      differing, first, testlib.show(a[first]), testlib.show(b[first]))
  end
  t:record(false, name .. " is out of date: regenerate it from the repository root with\n      " .. REGENERATE,
    detail)
end

t:case("docs/recipes.md is current", function()
  current("docs/recipes.md", gen.doc())
end)

t:case("docs/cli.md's synopsis and query options are the command line's and the schema's", function()
  local text = read(root .. "/docs/cli.md")
  t:ok(text ~= nil, "docs/cli.md exists")
  if text then
    local ok, generated = pcall(gen_cli.cli, text)
    t:ok(ok, "docs/cli.md has the generated block", tostring(generated))
    if ok and text ~= generated then
      t:record(false, "docs/cli.md's synopsis or query options are out of date: regenerate them from the repository root with\n      "
        .. "lua5.4 -e 'package.cpath=\"build/?.so;\"..package.cpath' lua/tools/gen_cli_doc.lua docs/cli.md")
    else
      t:record(ok)
    end
  end
end)

t:case("lua/meta/heapql.lua is current", function()
  current("lua/meta/heapql.lua", gen.meta())
end)

t:case("api_doc describes exactly the functions the module has", function()
  local problems = gen.coverage_problems()
  for _, problem in ipairs(problems) do t:record(false, problem) end
  t:eq(#problems, 0, "no differences between lua/heapql/api_doc.lua and the module")
end)

t:case("the LuaLS definitions load and declare every function of hq", function()
  local chunk, err = load(gen.meta(), "=lua/meta/heapql.lua", "t")
  t:ok(chunk, "compiles: " .. tostring(err))
  if not chunk then return end
  local declared = chunk()
  for name, value in pairs(hq) do
    if type(value) == "function" then t:eq(type(declared[name]), "function", "hq." .. name .. " is declared") end
  end
  local meta = gen.meta()
  for _, field in ipairs(hq.schema.recipe_fields()) do
    t:ok(meta:find("\n---@field " .. field.name .. "? ", 1, true), "query field " .. field.name .. " is declared")
  end
end)

t:case("declaration fields match hq.recipe", function()
  local ok, err = pcall(hq.recipe, { no_such_field = true })
  t:ok(not ok, "an unknown field is refused")
  local listed = {}
  for name in tostring(err):match("%(fields: (.-)%)"):gmatch("[%w_]+") do listed[#listed + 1] = name end
  local documented = {}
  for i, f in ipairs(api.recipe_fields) do documented[i] = f.name end
  t:eq(documented, listed, "api_doc.recipe_fields has the fields hq.recipe lists, in its order")
  for _, f in ipairs(api.recipe_fields) do
    local want = f.type:match("^fun%(") and "function" or (f.type == "string" and "string" or "table")
    local _, message = pcall(hq.recipe, { [f.name] = true })
    t:eq(tostring(message):match("field '" .. f.name .. "' must be a (%a+)"), want,
      "field " .. f.name .. " is a " .. want)
  end
  local required = {}
  for _, f in ipairs(api.recipe_fields) do
    if f.required then required[#required + 1] = f.name end
  end
  t:eq(required, { "name", "doc" }, "name and doc are the required fields")
end)

-- The Lua types a LuaLS type allows (roughly: enough to catch a wrong doc).
local lua_types
function lua_types(luals)
  local allowed, depth, part = {}, 0, ""
  local parts = {}
  for c in luals:gmatch(".") do
    if c == "(" or c == "{" or c == "<" then depth = depth + 1 end
    if c == ")" or c == "}" or c == ">" then depth = depth - 1 end
    if c == "|" and depth == 0 then
      parts[#parts + 1], part = part, ""
    else
      part = part .. c
    end
  end
  parts[#parts + 1] = part
  for _, p in ipairs(parts) do
    p = p:gsub("%?$", "")
    local alias
    for _, a in ipairs(api.aliases) do
      if a.name == p then alias = a end
    end
    if alias then
      for k in pairs(lua_types(alias.type)) do allowed[k] = true end
    elseif p:match("^fun%(") then allowed["function"] = true
    elseif p == "integer" or p == "number" then allowed.number = true
    elseif p == "string" or p:match('^".*"$') then allowed.string = true
    elseif p == "boolean" then allowed.boolean = true
    else allowed.table = true end
  end
  return allowed
end

local function data_class(name)
  for _, d in ipairs(api.data) do
    if d.class == name then return d end
  end
  error("no api_doc.data class " .. name)
end

local function class_fields(name)
  local fields, d = {}, data_class(name)
  if d.parent then
    for k, f in pairs(class_fields(d.parent)) do fields[k] = f end
  end
  for _, f in ipairs(d.fields) do fields[f.name] = f end
  return fields
end

local seen = {}

-- Every key of `sample` is a documented field of the right Lua type, and
-- every field that is not optional is there.
local function shape(class, sample, label)
  local fields = class_fields(class)
  t:eq(type(sample), "table", label .. " is a table")
  if type(sample) ~= "table" then return end
  seen[class] = seen[class] or {}
  for key, value in pairs(sample) do
    local f = fields[key]
    if t:ok(f, ("%s: field '%s' is described in api_doc.data (%s)"):format(label, tostring(key), class)) then
      seen[class][key] = true
      t:ok(lua_types(f.type)[type(value)],
        ("%s.%s is a %s, documented as %s"):format(label, key, type(value), f.type))
    end
  end
  for name, f in pairs(fields) do
    if not f.optional then t:ok(sample[name] ~= nil, ("%s has the field '%s'"):format(label, name)) end
  end
end

t:case("the tables the API returns have the documented fields", function()
  local trace = hq.open(TRACE)
  local plain = trace:query {}
  local impacting = trace:query { by = { "process", "stack" }, window = "0s..300ms",
                                  impacting = { "AIFI", "AIFO", "AOFI", "AOFO" }, series = 4, top = 1 }
  local custom = trace:query { by = { "frame", function(frames) return #frames end } }
  shape("heapql.Measures", plain:totals(), "result:totals()")
  shape("heapql.Measures", impacting:totals(), "result:totals() with impacting types")
  for _, level in ipairs { "stack", "frame", "image", "process", "heap", "kind", "thread", "impacting" } do
    shape("heapql.Row", trace:query({ by = level, top = 1 }):rows()[1], "row by " .. level)
  end
  shape("heapql.Row", impacting:rows()[1], "row with impacting types")
  shape("heapql.Row", custom:rows()[1], "row by a function")
  shape("heapql.Other", impacting:other(), "result:other()")
  shape("heapql.Peak", plain:peak(), "result:peak()")
  shape("heapql.Series", impacting:series(), "result:series()")
  shape("heapql.Info", plain:info(), "result:info()")
  shape("heapql.Info", impacting:info(), "result:info() with a closed window")
  local summary = trace:summary()
  shape("heapql.Summary", summary, "trace:summary()")
  local source = hq.open(TRACE):source()  -- without a query first
  shape("heapql.Source", source, "trace:source()")
  -- The same facts as the summary's.
  for key, value in pairs(source) do t:eq(value, summary[key], "trace:source()." .. key) end
  shape("heapql.Peak", summary.peak, "trace:summary().peak")
  local function walk(node, depth)
    shape("heapql.TreeNode", node, "tree node at depth " .. depth)
    shape("heapql.Measures", node.inclusive, "tree node inclusive")
    for _, child in ipairs(node.children or {}) do walk(child, depth + 1) end
  end
  walk(plain:tree { threshold = 0 }, 0)
  shape("heapql.Range", hq.parse.duration_range("1s..2s"), "hq.parse.duration_range")
  shape("heapql.SchemaField", hq.schema.fields[1], "hq.schema.fields[1]")
  for _, field in ipairs(hq.schema.fields) do
    if field.command_line_only then shape("heapql.SchemaField", field, "a command-line-only schema field") end
    if field.choices then shape("heapql.SchemaField", field, "a schema field with choices") end
  end
  for _, flag in ipairs(hq.schema.flags()) do shape("heapql.SchemaFlag", flag, "hq.schema.flags() " .. flag.option) end
  -- Documented fields that no sample had: gone, or not tested.
  local UNSEEN = { ["heapql.Measures"] = { src = "no test trace marks reallocs" },
                   ["heapql.TreeOptions"] = true }
  for _, d in ipairs(api.data) do
    if UNSEEN[d.class] ~= true then
      for _, f in ipairs(d.fields) do
        if not (UNSEEN[d.class] and UNSEEN[d.class][f.name]) then
          t:ok(seen[d.class] and seen[d.class][f.name], ("%s.%s appears in a sample"):format(d.class, f.name))
        end
      end
    end
  end
end)

local function shell_quote(text) return "'" .. text:gsub("'", "'\\''") .. "'" end

-- Runs a shell command; returns its exit code and its output (stdout and stderr).
local function run(command)
  local output = os.tmpname()
  local ok, how, code = os.execute(command .. " > " .. shell_quote(output) .. " 2>&1")
  local text = read(output) or ""
  os.remove(output)
  if how ~= "exit" then return -1, text end
  return ok and 0 or code, text
end

local function heapql_run(recipe_text, ...)
  local binary = os.getenv("HEAPQL_BINARY")
  if not binary or binary == "" then binary = build .. "/heapql" end
  local recipe = os.tmpname()
  write(recipe, recipe_text)
  local words = { shell_quote(binary), "run", shell_quote(recipe), shell_quote(TRACE) }
  for _, word in ipairs { ... } do words[#words + 1] = shell_quote(word) end
  local code, text = run(table.concat(words, " "))
  os.remove(recipe)
  return code, text
end

local function has(text, part, label)
  return t:record(text:find(part, 1, true) ~= nil, label, "no " .. testlib.show(part) .. " in\n" .. text)
end

t:case("the query example runs under heapql run", function()
  local code, text = heapql_run(gen.examples.query)
  t:eq(code, 0, "exit 0")
  has(text, "leaked 424 B in 4 blocks", "its own line")
  has(text, "avg", "the derived column")
  code, text = heapql_run(gen.examples.query, "--param", "budget=100")
  t:eq(code, 1, "exit 1 when its gate fails")
  has(text, "gate failed: leaked more than 100", "the failed gate")
  code, text = heapql_run(gen.examples.query, "--format", "json")
  t:eq(code, 0, "exit 0 with --format json")
  has(text, '"rows"', "the JSON result")
end)

t:case("the run example runs under heapql run", function()
  local code, text = heapql_run(gen.examples.run)
  t:eq(code, 0, "exit 0")
  has(text, "allocated from 0s to", "the first window")
  has(text, "to the end:", "the second window")
end)

t:case("the script example runs under stock lua", function()
  local lua = arg and arg[-1] or "lua5.4"
  local script = os.tmpname()
  write(script, gen.examples.script)
  local code, text = run(("%s -e %s %s %s"):format(shell_quote(lua),
    shell_quote("package.cpath=" .. ("%q"):format(build .. "/?.so;") .. "..package.cpath"),
    shell_quote(script), shell_quote(TRACE)))
  os.remove(script)
  t:eq(code, 0, "exit 0")
  has(text, "demo!", "frames of the worked example")
end)

t:done()
