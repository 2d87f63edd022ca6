-- Generates docs/recipes.md and lua/meta/heapql.lua (LuaLS definitions) from
-- heapql.api_doc (the API), heapql.schema (the query fields) and
-- heapql.recipe (the param types), as the built module holds them.
--
--   lua5.4 -e 'package.cpath="build-dev/?.so;"..package.cpath' \
--     lua/tools/gen_recipes_doc.lua docs/recipes.md lua/meta/heapql.lua
--
-- With no arguments it prints the Markdown. The Lua library is embedded in
-- heapql.so at build time: rebuild after editing it. Without heapql.so on the
-- C path, the script looks in $HEAPQL_BUILD_DIR, then in build-dev.
-- It refuses to generate while the API has a function that api_doc does not
-- describe, or api_doc describes one that is gone.
--
-- `require "tools.gen_recipes_doc"` (with lua/ on the path) returns the
-- generator without running it: doc(), meta(), live(), coverage_problems(),
-- examples and root, for tests/lua/recipes_doc_test.lua and surface_test.lua.

local MODULE_NAME = "tools.gen_recipes_doc"
local required = (...) == MODULE_NAME

-- The repository root: two folders above this file.
local function script_root()
  local source = debug.getinfo(1, "S").source
  local dir = source:sub(1, 1) == "@" and source:sub(2):match("^(.*)/[^/]*$") or "."
  return dir .. "/../.."
end
local root = script_root()

if not package.loaded.heapql then
  local build = os.getenv("HEAPQL_BUILD_DIR")
  if build and build ~= "" then
    package.cpath = build .. "/?.so;" .. package.cpath
  elseif not package.searchpath("heapql", package.cpath) then
    package.cpath = root .. "/build-dev/?.so;" .. package.cpath
  end
end

local hq = require "heapql"
local api = require "heapql.api_doc"
local recipe = require "heapql.recipe"
local core = require "heapql.core"
local schema = hq.schema

local M = { root = root }

---------------------------------------------------------------------------
-- Examples (tests/lua/recipes_doc_test.lua runs them with heapql run).

M.examples = {
  query = [[
-- leak-budget.lua: blocks never freed, by stack, and a gate on their total.
local hq = require "heapql"

return hq.recipe {
  name = "leak-budget",
  doc = "Blocks never freed, by stack, against a budget",
  params = {
    min_size = { type = "size", default = "0", doc = "smallest block counted" },
    budget = { type = "size", default = "1MiB", doc = "fail (exit 1) when more leaked" },
    top = 20, -- a bare default: an integer param
  },
  query = function(p)
    return {
      size = p.min_size .. "..",
      cull = hq.cull.defaults + { "libmyalloc.so!" },
      by = "stack",
      sort = "so",
      top = p.top,
    }
  end,
  columns = {
    { "avg", function(row) return row.soc > 0 and hq.format_bytes(row.so // row.soc) or "" end },
  },
  report = function(result, out, p)
    out:table(result)
    local totals = result:totals()
    out:line("leaked %s in %d blocks", hq.format_bytes(totals.so), totals.soc)
    hq.fail_if(totals.so > hq.parse.size(p.budget), "leaked more than " .. p.budget)
  end,
}
]],
  run = [[
-- halves.lua: what each half of the trace allocated and kept, by image.
local hq = require "heapql"

return hq.recipe {
  name = "halves",
  doc = "Outstanding size by image, for each half of the trace",
  run = function(trace, _, out)
    local half = trace:summary().duration_ns // 2
    for _, window in ipairs { { first = 0, last = half }, { first = half } } do
      local result = trace:query { window = window, by = "image", top = 5 }
      if out.format == "table" then
        out:line("allocated from %s to %s:", hq.format_duration(window.first),
          window.last and hq.format_duration(window.last) or "the end")
      end
      out:result(result)
    end
  end,
}
]],
  script = [[
-- top_frames.lua: run by stock lua5.4, not heapql run.
local hq = require "heapql"

local trace = hq.open(arg[1])
local result = trace:query { by = "frame", sort = "stc", top = 5 }
for _, row in ipairs(result:rows()) do
  print(row.stc, row.frame)
end
]],
}

---------------------------------------------------------------------------
-- The real API, found by walking the module.

-- Metatables are locked against recipes (__metatable), so the walk reads
-- them with debug.getmetatable.
-- The pattern sets' method table is an upvalue of their __index function.
local function pattern_set_methods(set)
  local index = debug.getmetatable(set).__index
  if type(index) == "table" then return index end
  for i = 1, 255 do
    local name, value = debug.getupvalue(index, i)
    if name == nil then break end
    if name == "methods" and type(value) == "table" then return value end
  end
  error("cannot find the pattern set methods (an upvalue `methods` of PatternSet.__index in heapql/patterns.lua)")
end

-- Metatable entries that are plumbing, not part of the API.
local PLUMBING = { __index = true, __newindex = true, __name = true, __gc = true, __metatable = true, __mode = true,
                   __close = true, __method_docs = true }

local function operators_of(mt)
  local ops = {}
  for key, value in pairs(mt or {}) do
    if type(key) == "string" and key:sub(1, 2) == "__" and not PLUMBING[key] then ops[key] = value end
  end
  return ops
end

local cached_live
-- For each api_doc group's probe: members (name -> value; `fields` says which
-- are data rather than functions) and operators (metamethod -> value).
function M.live()
  if cached_live then return cached_live end
  local trace = hq.open(root .. "/tests/data/worked_example.txt")
  local result = trace:query {}
  local out = hq.output()
  local set = hq.cull.none
  local live = {}
  local function plain(t)
    local members = {}
    for k, v in pairs(t) do members[k] = v end
    return members
  end
  live.hq = { members = plain(hq) }
  live["hq.cull"] = { members = plain(hq.cull) }
  live["hq.suppressions"] = { members = plain(hq.suppressions) }
  live["hq.parse"] = { members = plain(hq.parse) }
  live["hq.schema"] = { members = plain(hq.schema) }
  live.core = { members = plain(core) }
  live.trace = { members = plain(core.trace_methods()), operators = operators_of(debug.getmetatable(trace)),
                 docs = debug.getmetatable(trace).__method_docs }
  live.result = { members = plain(debug.getmetatable(result).__index), operators = operators_of(debug.getmetatable(result)),
                  docs = debug.getmetatable(result).__method_docs }
  local diff = hq.diff(result, result)
  live.diff = { members = plain(debug.getmetatable(diff).__index), operators = operators_of(debug.getmetatable(diff)),
                docs = debug.getmetatable(diff).__method_docs }
  local out_members = {}
  for k, v in pairs(debug.getmetatable(out).__index) do
    if type(k) ~= "string" or k:sub(1, 2) ~= "__" then out_members[k] = v end
  end
  for k, v in pairs(out) do out_members[k] = v end
  live.out = { members = out_members, operators = operators_of(debug.getmetatable(out)) }
  local set_members = plain(pattern_set_methods(set))
  set_members.includes_defaults = set.includes_defaults
  live.set = { members = set_members, operators = operators_of(debug.getmetatable(set)) }
  cached_live = live
  return live
end

-- The sandbox (core.sandbox: sandbox.cpp's one table of what a recipe gets
-- and is refused). What the sandbox's own version of each base function it
-- replaces does, as this page says it; the rules below the first describe
-- rawset (read-only tables) and require.
local SANDBOX_VERSIONS = {
  load = "`load` takes text only, never bytecode",
  collectgarbage = true, -- with its options, in sandbox_libraries_rule
  print = "`print` writes to stderr: stdout is the report's",
  rawset = false,
  require = false,
}

local function quoted(names, mark)
  local out = {}
  for i, name in ipairs(names) do out[i] = mark .. name .. mark end
  return out
end

-- "a, b and c".
local function spoken(names)
  if #names <= 1 then return names[1] or "" end
  return table.concat(names, ", ", 1, #names - 1) .. " and " .. names[#names]
end

-- The first rule of "The sandbox and its limits": what a recipe has and what it does not.
local function sandbox_libraries_rule()
  local sandbox = core.sandbox
  local granted = {}
  for _, name in ipairs(sandbox.libraries) do granted[#granted + 1] = name end
  for _, name in ipairs(sandbox.modules) do
    if not name:match("%.%*$") then granted[#granted + 1] = name end
  end
  local removed = quoted(sandbox.removed, "`")
  return "Libraries: " .. spoken(granted) .. ". " .. spoken(quoted(sandbox.left_out, "`"))
    .. " are not there (using one says so); " .. SANDBOX_VERSIONS.load .. ", and " .. spoken(removed)
    .. (#removed == 1 and " is" or " are") .. " gone; `collectgarbage` takes only "
    .. spoken(quoted(sandbox.collectgarbage, '"')) .. ", and a step of 0 to " .. sandbox.most_step_kib
    .. " KiB (a larger one would wrap in Lua and stop the collector). " .. SANDBOX_VERSIONS.print .. "."
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end

-- Differences between api_doc and the real module, as messages (empty when
-- they agree).
function M.coverage_problems()
  local problems = {}
  local function problem(fmt, ...) problems[#problems + 1] = string.format(fmt, ...) end
  local live = M.live()
  local documented_probes = {}
  for _, group in ipairs(api.groups) do
    documented_probes[group.probe] = true
    local real = live[group.probe]
    if not real then
      problem("api_doc group %s: unknown probe '%s'", group.name, tostring(group.probe))
    else
      local documented = {}
      for _, m in ipairs(group.members) do
        documented[m.name] = m
        -- A method of a C++ class (LuaClass) is described by its registration.
        local registered = real.docs and real.docs[m.name]
        if registered and m.doc and not m.doc_from_registration then
          problem("%s%s is described twice: in api_doc.lua and by its C++ registration (keep the registration's)",
            group.access, m.name)
        elseif not registered and not m.doc then
          problem("%s%s has no description in api_doc.lua nor a C++ registration", group.access, m.name)
        end
        local value = real.members[m.name]
        local access = m.kind == "field" and group.access:gsub(":$", ".") or group.access
        if value == nil then
          problem("%s%s is described in lua/heapql/api_doc.lua but is not in the module", access, m.name)
        elseif (m.kind == "field") ~= (type(value) ~= "function") then
          problem("%s%s is a %s in the module but api_doc describes it as a %s", access, m.name, type(value), m.kind)
        end
      end
      for _, name in ipairs(sorted_keys(real.members)) do
        if not documented[name] then
          problem("%s%s (a %s) is not described in lua/heapql/api_doc.lua", group.access, tostring(name),
            type(real.members[name]))
        end
      end
      local ops = {}
      for _, op in ipairs(group.operators or {}) do
        ops[op.metamethod] = true
        if not (real.operators or {})[op.metamethod] then
          problem("%s operator %s (%s) is described in api_doc but the metatable has none", group.name, op.name,
            op.metamethod)
        end
      end
      for _, name in ipairs(sorted_keys(real.operators or {})) do
        if not ops[name] then problem("%s has a metamethod %s that api_doc does not describe", group.name, name) end
      end
    end
  end
  for _, probe in ipairs(sorted_keys(live)) do
    if not documented_probes[probe] then problem("no api_doc group describes %s", probe) end
  end
  for _, name in ipairs(core.sandbox.replaced) do
    if SANDBOX_VERSIONS[name] == nil then
      problem("the sandbox replaces %s, which gen_recipes_doc.lua's SANDBOX_VERSIONS does not describe", name)
    end
  end
  local known_types = {}
  for _, name in ipairs(recipe.param_types) do
    known_types[name] = true
    if not api.param_types[name] then problem("param type '%s' has no entry in api_doc.param_types", name) end
  end
  for _, name in ipairs(sorted_keys(api.param_types)) do
    if not known_types[name] then problem("api_doc.param_types describes '%s', which is not a param type", name) end
  end
  local fields = {}
  for _, f in ipairs(schema.recipe_fields()) do
    fields[f.name] = true
    if not api.query_types[f.name] then problem("query field '%s' has no LuaLS type in api_doc.query_types", f.name) end
  end
  for _, name in ipairs(sorted_keys(api.query_types)) do
    if not fields[name] then problem("api_doc.query_types has '%s', which is not a query field", name) end
  end
  return problems
end

---------------------------------------------------------------------------
-- Text helpers.

-- Words that must not start a wrapped line (Markdown would read a list, a
-- heading, a quote or a table there).
local function risky_start(word)
  return word == "-" or word == "+" or word == "*" or word == ">" or word == "|" or word:match("^#") ~= nil
    or word:match("^%d+[.)]$") ~= nil
end

-- The words of `text`, a code span (`a b`) counting as one word.
local function words(text)
  local list, open = {}, nil
  for word in text:gmatch("%S+") do
    local odd = select(2, word:gsub("`", "")) % 2 == 1
    if open then
      open = open .. " " .. word
      if odd then list[#list + 1], open = open, nil end
    elseif odd then
      open = word
    else
      list[#list + 1] = word
    end
  end
  if open then list[#list + 1] = open end
  return list
end

local function wrap(text, width, first_prefix, next_prefix)
  first_prefix, next_prefix = first_prefix or "", next_prefix or ""
  local lines, line, empty = {}, first_prefix, true
  for _, word in ipairs(words(text)) do
    if not empty and #line + 1 + #word > width and not risky_start(word) then
      lines[#lines + 1] = line
      line = next_prefix .. word
    else
      line = line .. (empty and "" or " ") .. word
    end
    empty = false
  end
  lines[#lines + 1] = line
  return table.concat(lines, "\n")
end

local function short(type_text) return (type_text:gsub("heapql%.", "")) end

local function cell(text) return (text:gsub("\n", " "):gsub("|", "\\|")) end

local function code(text)
  if text:find("`", 1, true) then return "`` " .. text .. " ``" end
  return "`" .. text .. "`"
end

local function signature(group, m, shorten)
  local t = shorten and short or function(s) return s end
  if m.kind == "field" then return group.access:gsub(":$", ".") .. m.name .. ": " .. t(m.type) end
  local params = {}
  for _, p in ipairs(m.params or {}) do
    params[#params + 1] = p.name == "..." and "..." or (p.name .. (p.optional and "?" or "") .. ": " .. t(p.type))
  end
  local text = group.access .. m.name .. "(" .. table.concat(params, ", ") .. ")"
  if m.returns and #m.returns > 0 then
    local returns = {}
    for _, r in ipairs(m.returns) do returns[#returns + 1] = (r.name and (r.name .. ": ") or "") .. t(r.type) end
    text = text .. " -> " .. table.concat(returns, ", ")
  end
  return text
end

---------------------------------------------------------------------------
-- docs/recipes.md

-- Both generated files describe the module as api_doc says it is: refuse
-- to write either while the two disagree.
local function require_coverage()
  local problems = M.coverage_problems()
  if #problems > 0 then
    error("lua/heapql/api_doc.lua does not match the module:\n  " .. table.concat(problems, "\n  "), 0)
  end
  -- Methods of the C++ classes take their description from the registration.
  local live = M.live()
  for _, group in ipairs(api.groups) do
    local docs = live[group.probe] and live[group.probe].docs
    for _, m in ipairs(group.members) do
      if not m.doc and docs and docs[m.name] then m.doc, m.doc_from_registration = docs[m.name], true end
    end
  end
end

function M.doc()
  require_coverage()
  local out = {}
  local function put(text) out[#out + 1] = text end
  local function para(text) put(wrap(text, 78)); put("") end
  local function block(lang, text) put("```" .. lang); put((text:gsub("\n$", ""))); put("```"); put("") end

  put("<!-- Generated by lua/tools/gen_recipes_doc.lua from lua/heapql/api_doc.lua,")
  put("     lua/heapql/schema.lua and lua/heapql/recipe.lua: do not edit, regenerate")
  put("     (see \"Keeping this page current\" at the end). -->")
  put("")
  put("# Recipes")
  put("")
  para("A recipe is a Lua 5.4 file that returns `hq.recipe{...}`: a named query with typed params, or a small "
    .. "program that runs several queries, writes its own report and fails a gate when a number is too large. "
    .. "`heapql run RECIPE TRACE` runs it in a sandbox. RECIPE is a file, or the name of a recipe in "
    .. "`--recipes DIR` or in the shipped `queries/` folder, looked for in that order (`heapql list` lists them, "
    .. "docs/recipes-canned.md says what the shipped ones find); `heapql help RECIPE` shows a recipe's params. "
    .. "Copying a shipped recipe is a good way to start one, and `heapql query TRACE OPTIONS --format recipe` "
    .. "writes the recipe of a query you have (below).")

  put("## A recipe")
  put("")
  block("lua", M.examples.query)
  block("sh", table.concat({
    "heapql run leak-budget.lua prog.zst                        # the report; exit 1 if over budget",
    "heapql run leak-budget.lua prog.zst --param min_size=4KB --param budget=10MB",
    "heapql run leak-budget.lua prog.zst --format json -o l.json  # the result as JSON",
    "heapql help leak-budget.lua                                # its params and defaults",
  }, "\n"))
  para("`query` gets the params (defaults overridden by `--param`, typed) and returns the query: the fields "
    .. "listed below. heapql answers it; `columns` adds derived columns; `report` writes the table report "
    .. "(without `report`, the result table is printed). With `--format json` or `csv` the result is printed "
    .. "in that format instead. `hq.fail_if` is a gate: the report is still written, and the run exits with 1.")
  para("A recipe with `run` instead of `query` composes queries itself:")
  block("lua", M.examples.run)

  put("## A query saved as a recipe: `--format recipe`")
  put("")
  para("`heapql query TRACE OPTIONS --format recipe` (and `heapql import`) prints the query the options spell "
    .. "as a recipe file, without reading the trace: `heapql run FILE TRACE --format json` then prints the same "
    .. "JSON as `heapql query TRACE OPTIONS --format json`. heapql serve's \"Save as recipe\" is this. Every "
    .. "query option has its field: each value is written as the command line gave it (a one-line Lua string, "
    .. "or a whole number where the field takes one). `--cull-list` makes `cull` a pattern set that spells the "
    .. "whole list: `hq.cull.defaults` (unless `--no-default-cull`), each list (`hq.cull.shipped \"stl\"` for a "
    .. "shipped name, `hq.cull.file \"PATH\"` for a file, which the recipe reads beside itself and as its sandbox "
    .. "allows), then the `--cull` patterns. `--suppressions` becomes a list of `hq.suppressions.shipped` / "
    .. "`.file` readers. The first comment line is the command line, shell-quoted.")
  block("lua", table.concat({
    "-- heapql query prog.zst --by frame --window 1s..2s --cull-list stl",
    "-- The query of these options, written by --format recipe: heapql run FILE TRACE answers it.",
    "local hq = require \"heapql\"",
    "",
    "return hq.recipe {",
    "  name = \"saved-query\",",
    "  doc = \"The query of heapql query TRACE --by frame --window 1s..2s --cull-list stl\",",
    "  query = function()",
    "    return {",
    "      window = \"1s..2s\",",
    "      cull = hq.cull.defaults",
    "        + hq.cull.shipped \"stl\",",
    "      by = \"frame\",",
    "    }",
    "  end,",
    "}",
  }, "\n"))

  put("## The declaration: `hq.recipe{...}`")
  put("")
  put("| field | type | meaning |")
  put("|---|---|---|")
  for _, f in ipairs(api.recipe_fields) do
    put(("| `%s`%s | %s | %s |"):format(f.name, f.required and " (required)" or "", cell(code(short(f.type))),
      cell(f.doc)))
  end
  put("")
  put("### Params")
  put("")
  para("Each entry of `params` is NAME = {type = ..., default = ..., doc = ...} or NAME = default. "
    .. "`--param NAME=VALUE` sets one; an unknown name or a value its type refuses is an error (exit 3). "
    .. "`heapql help RECIPE` lists them.")
  put("| field | type | meaning |")
  put("|---|---|---|")
  for _, f in ipairs(api.param_fields) do
    put(("| `%s` | %s | %s |"):format(f.name, cell(code(short(f.type))), cell(f.doc)))
  end
  put("")
  put("| param type | the recipe gets | `--param` text |")
  put("|---|---|---|")
  for _, name in ipairs(recipe.param_types) do
    local t = api.param_types[name]
    put(("| `%s` | %s | %s |"):format(name, cell(code(t.value)), cell(t.doc)))
  end
  put("")

  put("## Query fields")
  put("")
  para("What a recipe's `query` returns and `trace:query{...}` takes; every field is optional. An unknown "
    .. "field, or a value a field refuses, is an error naming the recipe, the field, what it expects and what "
    .. "it got (exit 3). Sizes, durations and their ranges are written as on the command line (docs/cli.md); "
    .. "what each field means is in docs/semantics.md.")
  put("| field | type | default | meaning |")
  put("|---|---|---|---|")
  for _, f in ipairs(schema.recipe_fields()) do
    put(("| `%s` | %s | %s | %s |"):format(f.name, cell(f.type), cell(code(f.default)), cell(f.doc)))
  end
  put("")

  put("## Pattern sets")
  put("")
  para("`cull` and `require` take frame patterns (`module!symbol`, `module!`, `symbol`, with `*` and `?`, "
    .. "case-insensitive: docs/semantics.md §5): one pattern, a list, or a pattern set. A pattern or a plain "
    .. "list given to `cull` is added to the built-in allocator cull list (unless `default_cull = false`). "
    .. "A pattern set is the whole list:")
  block("lua", table.concat({
    'cull = "libmyalloc.so!"                                   -- the defaults and one pattern',
    'cull = hq.cull.defaults + { "libmyalloc.so!", "Pool::*" } -- the defaults and two, as a set',
    'cull = hq.cull.defaults - { "operator new(*" }            -- the defaults but one',
    'cull = hq.cull.file "mycull.txt"                          -- only the file\'s patterns',
    'cull = hq.cull.defaults + hq.cull.file "mycull.txt"       -- the defaults and the file\'s',
    'cull = hq.cull.set { "malloc", "free" }                   -- exactly these two',
    'cull = hq.cull.none                                       -- no culling at all',
  }, "\n"))
  para("`a + b` is the union: a's patterns, then those of b that a lacks. `a - b` is a without b's patterns "
    .. "(compared trimmed). Either side may be a pattern or a list. Patterns are compared case-insensitively, "
    .. "and a set keeps the first spelling of each. A set also says whether it holds the defaults "
    .. "(`set.includes_defaults`): hq.cull.defaults does, a union does if either side does, and a difference "
    .. "never does, even when it removed nothing; the engine always uses a set's patterns as they are. "
    .. "`default_cull` may not be given with a set. Sets never change; `#set`, `set:texts()`, "
    .. "`set:contains(p)`, `==` and `tostring` read them. `require` takes the same values: a block is kept "
    .. "when a frame of its full stack matches one of them.")

  put("## The Lua API")
  put("")
  para("Types are LuaLS types (lua/meta/heapql.lua); `T?` means T or nil, `T[]` a list of T. The tables the "
    .. "API returns are described after the functions.")
  for _, group in ipairs(api.groups) do
    if not group.internal then
      put("### " .. (group.name == "hq" and "`hq`" or code(group.name)))
      put("")
      para(group.doc)
      for _, m in ipairs(group.members) do
        put(wrap(code(signature(group, m, true)) .. ": " .. m.doc, 78, "- ", "  "))
      end
      for _, op in ipairs(group.operators or {}) do
        put(wrap(code(op.name) .. ": " .. op.doc, 78, "- ", "  "))
      end
      put("")
    end
  end
  put("### Tables the API returns")
  put("")
  for _, d in ipairs(api.data) do
    put("#### " .. short(d.class))
    put("")
    para(d.doc .. (d.parent and (" It also has the fields of " .. short(d.parent) .. ".") or ""))
    put("| field | type | meaning |")
    put("|---|---|---|")
    for _, f in ipairs(d.fields) do
      put(("| `%s`%s | %s | %s |"):format(f.name, f.optional and " (may be absent)" or "", cell(code(short(f.type))),
        cell(f.doc)))
    end
    put("")
  end
  for _, group in ipairs(api.groups) do
    if group.internal then
      put("### " .. code(group.name) .. " (internal)")
      put("")
      para(group.doc)
      for _, m in ipairs(group.members) do
        put(wrap(code(signature(group, m, true)) .. ": " .. m.doc, 78, "- ", "  "))
      end
      put("")
    end
  end

  put("## What runs per block")
  put("")
  para("Nothing in the API runs Lua per block or per event: reading the trace, the filters, culling, grouping "
    .. "and the measures are the engine's (C++), one pass over the blocks per query. Lua runs only where a "
    .. "recipe asks for it: a `by` function runs once per unique culled stack (of the blocks the filters kept), "
    .. "and derived columns (`columns`, hq.with_columns, out:table with `columns`) run once per shown row.")
  para("A recipe therefore costs about what its queries cost. In `heapql run`, the first query streams the "
    .. "trace file; a later query, or trace:summary, loads the trace into the store once (reading the file "
    .. "again) and replays it from there. The result methods build their tables and text on each call, in "
    .. "proportion to the rows shown.")

  put("## The sandbox and its limits")
  put("")
  para("Recipes are shared, so `heapql run` treats them as untrusted code. Each run has a fresh Lua 5.4 state:")
  local rules = {
    sandbox_libraries_rule(),
    "Read-only: the globals, the library tables, heapql's modules with every table in them, and a "
      .. "recipe's own modules at their top. `rawset` on them fails, and on any table whose metatable is "
      .. "protected (heapql's pattern sets and outputs); `pairs` over them iterates without handing the real "
      .. "table out. A pattern set keeps its patterns out of the recipe's reach: to a recipe it is an empty "
      .. "table with methods. The metatables of strings, LPeg patterns, pattern sets, outputs, error objects, "
      .. "traces and results are locked: getmetatable gives a name, setmetatable fails.",
    "`require` finds " .. table.concat(quoted(core.sandbox.modules, "`"), ", ") .. ", and `.lua` modules "
      .. "beside the recipe or in the shipped `queries/` folder (the HEAPQL_QUERIES environment variable says "
      .. "where that is). " .. spoken(quoted(core.sandbox.private, "`")) .. " is heapql's own: a recipe cannot "
      .. "require it.",
    "Files: every path a recipe can make heapql read goes through one check: `require`, hq.include, "
      .. "hq.cull.file, hq.suppressions.file, hq.open (and the files it reads beside a trace) and its "
      .. "`symbols` folders. A path is readable when it is the trace named on the command line, or the value "
      .. "given with `--param` to a path-typed param, exactly as named (the user chose it, links and all; a "
      .. "path param allows nothing but itself); or when, walked component by component beneath the recipe's "
      .. "folder or `queries/` (as `openat2` with `RESOLVE_BENEATH` walks it), it stays there. A link there is "
      .. "followed while it stays beneath (a relative one, or an absolute one into the folder as named); `..` "
      .. "may not climb above the folder; a link out, a chain of more than 40 links, a FIFO, a device or a "
      .. "socket refuses the whole path. The folder's own path may hold links (the user chose it). The check "
      .. "never looks outside the folder, so a refusal reads the same whether or not the target exists: a link "
      .. "beside the recipe to a file elsewhere (or to nothing) is refused, and so is a link in the middle of "
      .. "a path. On Windows the same check holds against Windows' own ways around it (device names, "
      .. "streams, `\\\\?\\`, `\\\\.\\` and UNC prefixes, drive-relative paths, short names, junctions): "
      .. "docs/windows.md, \"Recipes and the sandbox\".",
    "Files beside a trace (a heaptrack file's raw or interpreted twin, its block-identity file NAME.hqid, "
      .. "its store NAME.hqdb, the live journal NAME.hqlive of a recording in progress) are read only as themselves: a link there is refused whatever it points at, and "
      .. "never opened. Only the trace named on the command line brings them; beside a trace in the recipe's "
      .. "folder they are under that folder's check (hq.open refuses the trace, exit 3); beside a path param "
      .. "nothing is read or looked at (a heaptrack file given as a path param is read without its raw twin "
      .. "and store; a raw file so given is refused). For the trace named on the command line, such a link is "
      .. "input heapql refuses to read (exit 2). PDBs in a `--symbols` or `symbols` folder are opened the same "
      .. "way: walked beneath the folder, a link out counting as no PDB.",
    "A store file a recipe opens, or names as the trace, answers as it is: its header records the paths "
      .. "of the trace it was ingested from, which may be anywhere, and a recipe's run does not look at them "
      .. "(a note on stderr says so; `heapql query` and `heapql info` still check them). A store found beside "
      .. "a trace is fresh only while the files it records beside the trace match, each looked at without "
      .. "following a link; a recorded file that is not beside the trace makes it stale. No freshness check, "
      .. "in a recipe's run or not, opens anything but a regular file: a FIFO or a device there is never "
      .. "opened, so the check never blocks.",
    "Traces and results are objects a recipe cannot break: their metatables are locked, every method "
      .. "checks its receiver and arguments, and an object that a finalizer resurrected after its collection, "
      .. "or that a `<close>` variable closed, raises an error when used.",
    "What heapql reads back from a recipe (the declaration it returns, what `params`, `describe` and the "
      .. "library's functions return, error values, query tables and their options) is read raw, so that no "
      .. "metamethod of the recipe's runs in heapql's code, then type-checked, inside a protected call and "
      .. "under the limits. A wrong type is a recipe error (exit 3). A query is checked whole before the "
      .. "engine sees it (a `custom` level needs its `by` function, and there is one at most): what the engine "
      .. "then raises is the trace's.",
    "`--timeout 60s` (the default) is wall time, from the start of the run to its end: engine calls "
      .. "(reading traces, answering queries), `by` functions, finalizers (those lua_close runs too), "
      .. "`__close` handlers and error handlers all count. A count hook ends the run with the recipe's "
      .. "traceback when Lua code runs past the deadline; a watchdog thread ends it 50 ms later wherever it is "
      .. "(inside string matching, an LPeg match, table.sort, a finalizer at close).",
    "`--memory 4GiB` (the default) caps every byte allocated during the run, net of what is freed: Lua's "
      .. "allocator and the engine's (results and their copies, traces the recipe opens, the trace named on "
      .. "the command line as it is read, the report buffer, tree texts), through finalizers and lua_close. "
      .. "When the run passes half its cap, heapql collects Lua's garbage first (a dropped trace or result "
      .. "holds engine memory Lua cannot weigh). Every zstd and zlib decoder (of traces, raw twins and "
      .. "block-identity files) allocates through the engine's counted allocator. Not counted: the C stack.",
    "Recipe code runs on a thread with a 1 GiB stack (HEAPQL_RECIPE_STACK=BYTES sets another size): some "
      .. "of Lua's and LPeg's C code recurses as deep as a recipe's text or patterns make it. An overflow "
      .. "there ends the run with exit 3.",
    "What a run writes to stderr (`print`, and heapql's warnings during the run) is bounded at 16 MiB: "
      .. "past it the run ends with exit 3 (\"the recipe printed more than 16 MiB to stderr\"). It is a recipe's "
      .. "notes, not a stream to fill a CI log or a disk with.",
    "`heapql help RECIPE` runs the recipe's top level (to read its declaration) under the same sandbox "
      .. "and limits: it takes `--timeout`, `--memory`, `--trusted` and `--verbose` as `heapql run` does.",
    "Going over the time or the memory limit, the stderr bound, or out of stack, ends the process at once "
      .. "with exit 3 and a message naming the limit: nothing unwinds through recipe code, so no `pcall`, "
      .. "error handler or finalizer can hold it off, and no report is written. `--timeout 0` and `--memory 0` "
      .. "turn a limit off.",
    "`--trusted` lifts the sandbox: the full standard library, the usual `require` (with the recipe's and "
      .. "`queries/` folders on package.path) and any file. The limits still apply.",
    "An error gives the recipe's file and line and the message, also when heapql's library raised it for "
      .. "the recipe; `--verbose` adds a Lua traceback (through heapql's library too). A bad query field names "
      .. "the recipe and the line where its `query` function starts.",
    "The report is kept until the recipe finishes, then written to stdout (or `-o FILE`) when the exit "
      .. "code is 0 or 1; a run that fails writes none of it.",
  }
  for _, rule in ipairs(rules) do put(wrap(rule, 78, "- ", "  ")) end
  put("")

  put("## Exit codes")
  put("")
  put("| code | `heapql run` |")
  put("|---|---|")
  put("| 0 | the recipe finished and no gate failed |")
  put("| 1 | a gate failed (hq.fail_if): the report is written, and each failed gate is printed on stderr |")
  put("| 2 | a trace could not be read: the one named on the command line, or one the recipe opened |")
  put("| 3 | the recipe is wrong: it does not load, does not return `hq.recipe{...}`, raises an error, has a bad "
    .. "query field or `--param`, or went over `--timeout`, `--memory` or the stderr bound, or out of stack; also a bad command line |")
  put("")

  put("## Scripts outside `heapql run`")
  put("")
  para("The module also loads in a stock lua5.4, from the build folder: "
    .. "`lua5.4 -e 'package.cpath=\"build/?.so;\"..package.cpath' top_frames.lua prog.zst`.")
  block("lua", M.examples.script)
  para("There is no sandbox and there are no limits: hq.open opens any file, relative paths (hq.cull.file, "
    .. "hq.include) are relative to the current folder, hq.output and `out` write to stdout at once, and "
    .. "hq.fail_if only records a gate: the script chooses its exit code, e.g. "
    .. "`os.exit(hq.gate_failed() and 1 or 0)`.")

  put("## Editors")
  put("")
  para("lua/meta/heapql.lua declares the module for LuaLS (lua-language-server), generated with this page: "
    .. "hq, the declaration (heapql.Recipe), the query (heapql.Query, every field above), traces, results, "
    .. "rows, measures, outputs and pattern sets. Add its folder to the workspace library, for example in a "
    .. "`.luarc.json` beside your recipes:")
  block("json", '{ "workspace.library": ["/path/to/heapql/lua/meta"] }')

  put("## Keeping this page current")
  put("")
  para("This page and lua/meta/heapql.lua are generated by lua/tools/gen_recipes_doc.lua from "
    .. "lua/heapql/api_doc.lua (the functions and tables), lua/heapql/schema.lua (the query fields) and "
    .. "lua/heapql/recipe.lua (the param types). tests/lua/recipes_doc_test.lua fails when either file is out "
    .. "of date, or when the module has a function api_doc does not describe (or the other way round). "
    .. "After a change, rebuild (the Lua library is embedded in heapql.so) and regenerate:")
  block("sh", table.concat({
    "cmake --build build-dev --target heapql heapql_lua_module",
    "lua5.4 -e 'package.cpath=\"build-dev/?.so;\"..package.cpath' \\",
    "  lua/tools/gen_recipes_doc.lua docs/recipes.md lua/meta/heapql.lua",
  }, "\n"))
  local text = table.concat(out, "\n")
  return (text:gsub("\n+$", "\n"))
end

---------------------------------------------------------------------------
-- lua/meta/heapql.lua

function M.meta()
  require_coverage()
  local out = {}
  local function put(text) out[#out + 1] = text end
  local function doc(text)
    if text and text ~= "" then put(wrap(text, 100, "---", "---")) end
  end
  local function one_line(text) return (text:gsub("%s+", " ")) end
  local function class_fields(fields)
    for _, f in ipairs(fields) do
      put(("---@field %s%s %s %s"):format(f.name, f.optional and "?" or "", f.type, one_line(f.doc)))
    end
  end

  put("---@meta")
  put("-- LuaLS (lua-language-server) definitions of heapql's Lua module, for editors:")
  put("-- add this folder to Lua.workspace.library (see docs/recipes.md, \"Editors\").")
  put("-- Generated by lua/tools/gen_recipes_doc.lua from lua/heapql/api_doc.lua,")
  put("-- lua/heapql/schema.lua and lua/heapql/recipe.lua: do not edit, regenerate.")
  put("")
  for _, a in ipairs(api.aliases) do
    doc(a.doc)
    put(("---@alias %s %s"):format(a.name, a.type))
    put("")
  end
  local types = {}
  for i, name in ipairs(recipe.param_types) do types[i] = ("%q"):format(name) end
  doc("A param type (docs/recipes.md, \"Params\").")
  put("---@alias heapql.ParamType " .. table.concat(types, "|"))
  put("")

  for _, d in ipairs(api.data) do
    doc(d.doc)
    put("---@class " .. d.class .. (d.parent and (": " .. d.parent) or ""))
    class_fields(d.fields)
    put("")
  end

  doc("A param of a recipe: hq.recipe{params = {NAME = {...}}}.")
  put("---@class heapql.Param")
  class_fields(api.param_fields)
  put("")
  doc("A recipe declaration: the table given to hq.recipe.")
  put("---@class heapql.Recipe")
  for _, f in ipairs(api.recipe_fields) do
    put(("---@field %s%s %s %s"):format(f.name, f.required and "" or "?", f.type, one_line(f.doc)))
  end
  put("")
  doc("A query: what a recipe's `query` returns and trace:query takes. Every field is optional.")
  put("---@class heapql.Query")
  for _, f in ipairs(schema.recipe_fields()) do
    put(("---@field %s? %s %s (default: %s)"):format(f.name, api.query_types[f.name], one_line(f.doc), f.default))
  end
  put("")

  local function local_name(group)
    if group.probe == "hq" then return "hq" end
    return group.class:match("([%w_]+)$")
  end
  local order = {}
  for _, group in ipairs(api.groups) do
    if not group.internal and group.probe ~= "hq" then order[#order + 1] = group end
  end
  for _, group in ipairs(api.groups) do
    if group.probe == "hq" then order[#order + 1] = group end
  end
  for _, group in ipairs(order) do
    local name = local_name(group)
    doc(group.doc)
    put("---@class " .. group.class)
    for _, op in ipairs(group.operators or {}) do
      if op.luals then put("---@operator " .. op.luals) end
    end
    for _, m in ipairs(group.members) do
      if m.kind == "field" then put(("---@field %s %s %s"):format(m.name, m.type, one_line(m.doc))) end
    end
    put(("local %s = {}"):format(name))
    put("")
    for _, m in ipairs(group.members) do
      if m.kind ~= "field" then
        doc(m.doc)
        local names = {}
        for _, p in ipairs(m.params or {}) do
          put(("---@param %s%s %s"):format(p.name, p.optional and "?" or "", p.type))
          names[#names + 1] = p.name
        end
        for _, r in ipairs(m.returns or {}) do
          put(("---@return %s%s"):format(r.type, r.name and (" " .. r.name) or ""))
        end
        put(("function %s%s%s(%s) end"):format(name, m.kind == "method" and ":" or ".", m.name,
          table.concat(names, ", ")))
        put("")
      end
    end
  end
  put("return hq")
  return table.concat(out, "\n") .. "\n"
end

---------------------------------------------------------------------------

local function write_file(path, text)
  local file = assert(io.open(path, "wb"))
  assert(file:write(text))
  assert(file:close())
end

function M.main(args)
  if args[1] == "-h" or args[1] == "--help" then
    io.write("usage: lua5.4 lua/tools/gen_recipes_doc.lua [DOC.md [META.lua]]\n",
      "  writes docs/recipes.md (to stdout without arguments) and the LuaLS definitions\n")
    return 0
  end
  local ok, err = pcall(function()
    local doc_text = M.doc()
    if args[1] == nil or args[1] == "-" then
      io.write(doc_text)
    else
      write_file(args[1], doc_text)
    end
    if args[2] then write_file(args[2], M.meta()) end
  end)
  if not ok then
    io.stderr:write("gen_recipes_doc: ", tostring(err), "\n")
    return 1
  end
  return 0
end

if required then return M end
os.exit(M.main(arg or {}))
