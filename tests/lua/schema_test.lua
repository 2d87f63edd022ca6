-- heapql's query validation and recipe declarations, through the real module
-- (stock lua5.4 with build/heapql.so): every field's normal form, and the
-- messages for unknown fields, wrong types and bad values (recipe name, field,
-- what was given, what is allowed).
local testlib = require "testlib"
local t = testlib.new("schema_test")
local hq = require "heapql"
local schema = hq.schema

local function normalize(q) return schema.normalize(q, "recipe r.lua") end

local function fails_with(q, expected, label)
  local ok, err = pcall(normalize, q)
  t:ok(not ok, (label or expected) .. " (must fail)")
  if not ok then
    t:ok(tostring(err):find(expected, 1, true) ~= nil, label or expected, "got: " .. tostring(err))
  end
end

t:case("defaults: by stack, nothing else", function()
  t:eq(normalize({}), { by = { "stack" } })
end)

t:case("every field's normal form", function()
  local n = normalize {
    window = "1s..2s", size = "4KB..1MiB", lifetime = "100ms..", process = { "app", 42 }, heap = "0x10",
    kind = "heap", thread = { 7, "8" }, impacting = "aifo,AIFI", temporary = false, require = "app!*",
    cull = { "mylib!alloc" }, default_cull = false, by = { "process", "stack" }, sort = "stc", top = 5,
    totals = false, series = 20, detail = 3, tree = { direction = "bottom-up" },
  }
  t:eq(n.window, { first = 1000000000, last = 2000000000 })
  t:eq(n.size, { first = 4000, last = 1048576 })
  t:eq(n.lifetime, { first = 100000000 })
  t:eq(n.process, { "app", "42" })
  t:eq(n.heap, { "0x10" })
  t:eq(n.kind, { "heap" })
  t:eq(n.thread, { 7, 8 })
  t:eq(n.impacting, { "AIFO", "AIFI" })
  t:eq(n.require, { "app!*" })
  t:eq(n.cull, { "mylib!alloc" })
  t:eq(n.default_cull, false)
  t:eq(n.by, { "process", "stack" })
  t:eq(n.sort, "stc")
  t:eq(n.top, 5)
  t:eq(n.series, 20)
  t:eq(n.detail, 3)
  t:eq(n.tree, { direction = "bottom-up" })
  t:eq(normalize({ window = { first = 5, last = 9 } }).window, { first = 5, last = 9 })
  t:eq(normalize({ window = "all" }).window, { first = 0 })
end)

t:case("a pattern set is the whole cull list", function()
  local n = normalize { cull = hq.cull.set { "a!", "b" } }
  t:eq(n.cull, { "a!", "b" })
  t:eq(n.default_cull, false, "defaults off unless the set holds them")
  local with_defaults = normalize { cull = hq.cull.defaults + { "mine!" } }
  t:eq(with_defaults.default_cull, false)
  t:ok(#with_defaults.cull > 1 and with_defaults.cull[#with_defaults.cull] == "mine!", "the defaults are spelled out")
  fails_with({ cull = hq.cull.defaults, default_cull = true }, "query field 'default_cull': not needed when cull is a pattern set")
end)

t:case("a function level", function()
  local f = function() return "k" end
  local n = normalize { by = { "process", f } }
  t:eq(n.by, { "process", "custom" })
  t:ok(n.by_function == f, "the function is passed on")
  fails_with({ by = { f, f } }, "query field 'by': at most one function level")
end)

t:case("messages name the recipe, the field, the value and what is allowed", function()
  fails_with({ sortt = "so" }, "recipe r.lua, query field 'sortt': unknown field (did you mean 'sort'?)")
  fails_with({ [1] = "so" }, "query field '1': unknown field")
  fails_with({ sort = "big" }, "recipe r.lua, query field 'sort': expected one of so|soc|st|stc|src|impacting "
    .. "(outstanding size, outstanding count, total size, total count, realloc count, impacting size); got \"big\"")
  -- Ranking by impacting size needs a query that has one.
  fails_with({ sort = "impacting" }, "recipe r.lua, query field 'sort': impacting needs impacting types")
  -- A value near an allowed one is named (case aside).
  fails_with({ sort = "sco" }, "(did you mean 'so'?)")
  fails_with({ by = "Stack" }, "query field 'by': level 1: expected one of stack|frame|image|process|heap|kind|thread|"
    .. "impacting or a function (did you mean 'stack'?)")
  fails_with({ by = "stak" }, "(did you mean 'stack'?)")
  fails_with({ top = 0 }, "query field 'top': expected a whole number of at least 1; got 0 (number)")
  fails_with({ top = 1.5 }, "query field 'top': expected a whole number of at least 1")
  fails_with({ window = "2s..1s" }, "query field 'window': '2s..1s' at column")
  fails_with({ window = "1s..2x" }, "query field 'window': '1s..2x' at column 6")
  fails_with({ window = 5 }, "query field 'window': expected a range string")
  fails_with({ size = "4XB.." }, "query field 'size': '4XB..' at column 2: unknown unit 'XB'")
  fails_with({ kind = "stack" }, "query field 'kind': expected heap or virtual; got \"stack\"")
  fails_with({ impacting = "AIFX" }, "query field 'impacting': expected AIFI, AIFO, AOFI or AOFO; got \"AIFX\"")
  fails_with({ thread = "x" }, "query field 'thread': expected a thread id")
  fails_with({ by = "module" }, "query field 'by': level 1: expected one of stack|frame|image|process|heap|kind|thread|impacting or a function")
  fails_with({ require = { "!x" } }, "query field 'require'")
  fails_with({ temporary = "yes" }, "query field 'temporary': expected true or false")
  fails_with({ series = -1 }, "query field 'series': expected a bucket count from 0 to 100000")
  fails_with({ detail = 0 }, "query field 'detail': expected a row number of at least 1")
  fails_with({ detail = "first" }, "query field 'detail': expected a row number of at least 1")
  fails_with({ tree = { colour = 1 } }, "query field 'tree': unknown option 'colour'")
  fails_with({ at_peak = true, lifetime = "1s.." }, "query field 'at_peak': cannot be combined")
  local by_change = normalize { sort = "impacting", impacting = "AIFO,AOFI" }
  t:eq(by_change.sort, "impacting")
  t:eq(normalize({ sort = "impacting", by = "impacting,stack" }).sort, "impacting")
  local ok, err = pcall(schema.normalize, 42, "recipe r.lua")
  t:ok(not ok and err:find("recipe r.lua: query must return a table, got number", 1, true), "not a table")
end)

t:case("recipe declarations", function()
  local function declare_fails(decl, expected)
    local ok, err = pcall(hq.recipe, decl)
    t:ok(not ok and tostring(err):find(expected, 1, true) ~= nil, expected, tostring(err))
  end
  declare_fails({ name = "x", doc = "d" }, "needs a 'query' (or a 'run') function")
  declare_fails({ doc = "d", query = print }, "'name' is required")
  declare_fails({ name = "x", query = print }, "'doc' is required")
  declare_fails({ name = "x", doc = "d", query = print, colour = 1 }, "unknown field 'colour'")
  declare_fails({ name = "x", doc = "d", query = print, params = { top = { type = "integr" } } }, "param 'top': unknown type 'integr'")
  declare_fails({ name = "x", doc = "d", query = print, params = { top = { type = "integer", default = "ten" } } },
    "param 'top': default ten is not a valid integer")
  declare_fails({ name = "x", doc = "d", query = print, params = { w = { type = "duration_range", default = "1s..x" } } },
    "param 'w': default 1s..x is not a valid duration_range")
  local r = hq.recipe { name = "x", doc = "d", query = print, params = { top = 10, on = true, w = { type = "size", default = "4KiB" } } }
  t:eq(r.params.top.type, "integer", "a bare default's type is inferred")
  t:eq(r.params.on.type, "boolean")
  t:eq(r.params.w.default, "4KiB")
end)

t:done()
