-- heapql's catalog for programs (docs/json.md): `heapql help COMMAND
-- --format json` against heapql.commands and heapql.schema (every command,
-- every query option, each choice the schema declares accepted by the
-- schema's own check), and `heapql list --format json [--recipes DIR]`
-- against `heapql help RECIPE` and `heapql run NAME`, through the binary.
local testlib = require "testlib"
local json = require "json"
local heapql = require "run_heapql"
local t = testlib.new("catalog_test")
local hq = require "heapql"
local commands = require "heapql.commands"
local schema = hq.schema

local function json_of(words, label)
  local r = heapql.run(words)
  t:eq(r.code, 0, label .. ": exit 0 (stderr: " .. r.err .. ")")
  local ok, value = pcall(json.decode, r.out)
  t:ok(ok, label .. ": JSON (" .. tostring(value) .. ")")
  return ok and value or {}
end

local function nil_if_null(v)
  if v == json.null then return nil end
  return v
end

t:case("help COMMAND --format json: every command's options, as heapql.commands describes them", function()
  for _, command in ipairs(commands.list) do
    local doc = json_of({ "help", command.name, "--format", "json" }, command.name)
    t:eq(doc.heapql, 1, command.name .. ": version")
    t:eq(doc.command, command.name, command.name .. ": command")
    local described = commands.describe(command.name)
    t:eq(#doc.options, #described, command.name .. ": as many options")
    for i, want in ipairs(described) do
      local got = doc.options[i] or {}
      local label = command.name .. " " .. want.option
      t:eq(got.option, want.option, label)
      t:eq(got.aliases, want.aliases, label .. ": aliases")
      t:eq(nil_if_null(got.field), want.field, label .. ": field")
      t:eq(nil_if_null(got.value), want.value, label .. ": value")
      t:eq(got.repeatable, want.repeatable, label .. ": repeatable")
      t:eq(got.flag, want.value == nil, label .. ": flag")
      t:eq(got.help, want.help, label .. ": help")
      t:eq(got.doc, want.doc, label .. ": doc")
      t:eq(got.choices, want.choices, label .. ": choices")
      t:eq(nil_if_null(got.default), want.default, label .. ": default")
      t:eq(got.group, want.group, label .. ": group")
    end
    t:eq(doc.cull_lists, heapql.file_stems("queries/cull", "txt"), command.name .. ": the shipped cull lists")
    t:eq(doc.suppression_lists, heapql.file_stems("queries/suppressions", "txt"),
      command.name .. ": the shipped suppression lists")
  end
end)

-- Choices a query takes only with another option: sorting by impacting size
-- needs impacting types.
local needs_another = { ["--sort impacting"] = { "--impacting", "AIFO" } }

t:case("help query --format json: every query option of the schema, its choices accepted", function()
  local doc = json_of({ "help", "query", "--format", "json" }, "query")
  local by_option = {}
  for _, o in ipairs(doc.options) do by_option[o.option] = o end
  local with_choices = 0
  for _, flag in ipairs(schema.flags()) do
    local o = by_option[flag.option]
    if t:ok(o, flag.option .. " is listed") then
      t:eq(o.group, "query", flag.option .. ": group")
      t:eq(o.field, flag.field, flag.option .. ": field")
      for _, choice in ipairs(o.choices or {}) do
        with_choices = with_choices + 1
        local flags = { { flag.option, choice } }
        -- A choice that means something only beside another option.
        local companion = needs_another[flag.option .. " " .. choice]
        if companion then flags[2] = companion end
        local ok, err = pcall(schema.from_flags, flags, "test")
        t:ok(ok, flag.option .. " " .. choice .. " is accepted: " .. tostring(err))
      end
      if o.choices then
        local ok = pcall(schema.from_flags, { { flag.option, "no-such-choice" } }, "test")
        t:ok(not ok, flag.option .. ": a value not among the choices is refused")
      end
      local default = nil_if_null(o.default)
      if default then
        local ok, err = pcall(schema.from_flags, { { flag.option, default } }, "test")
        t:ok(ok, flag.option .. " " .. default .. ": the default is a value the option takes: " .. tostring(err))
      end
    end
  end
  t:ok(with_choices >= #{ "by", "sort", "kind", "impacting" }, "the schema declares choices")
  t:eq(by_option["--by"].choices, { "stack", "frame", "image", "process", "heap", "kind", "thread", "impacting" })
  t:eq(by_option["--sort"].default, "so")
  t:eq(by_option["--format"].group, "output")
  t:eq(by_option["--no-progress"].group, "reading")
end)

t:case("help --format json needs a command; a bad format is named", function()
  local r = heapql.run { "help", "--format", "json" }
  t:eq(r.code, 3, "no command: exit 3")
  t:ok(r.err:find("help COMMAND --format json", 1, true), "says how", r.err)
  r = heapql.run { "help", "query", "--format", "yaml" }
  t:eq(r.code, 3, "bad format: exit 3")
  t:ok(r.err:find("--format 'yaml': expected text|json", 1, true), "names the value", r.err)
  r = heapql.run { "help", "query" }
  t:ok(r.code == 0 and r.out:find("query options", 1, true), "text help unchanged")
end)

-- The params `heapql help NAME` prints: name -> {type, default text, doc}.
local function help_params(text)
  local params = {}
  for name, kind, default, doc in text:gmatch("\n  (%S+)%s+(%S+)%s+default (%S+)%s+([^\n]*)") do
    params[name] = { type = kind, default = default, doc = doc }
  end
  return params
end

local function check_listed(recipe, label)
  local help = heapql.run { "help", recipe.file }
  t:eq(help.code, 0, label .. ": help runs")
  t:ok(help.out:find(" — " .. recipe.doc .. "\n", 1, true), label .. ": the doc help prints", help.out)
  local printed = help_params(help.out)
  local count = 0
  for _, p in ipairs(recipe.params) do
    count = count + 1
    local want = printed[p.name] or {}
    t:eq(p.type, want.type, label .. " param " .. p.name .. ": type")
    t:eq(nil_if_null(p.default) or "(none)", want.default, label .. " param " .. p.name .. ": default")
    t:eq(p.doc, want.doc, label .. " param " .. p.name .. ": doc")
  end
  local printed_count = 0
  for _ in pairs(printed) do printed_count = printed_count + 1 end
  t:eq(count, printed_count, label .. ": every param")
end

t:case("list --format json: every shipped recipe, with the facts help prints", function()
  local doc = json_of({ "list", "--format", "json" }, "list")
  t:eq(doc.heapql, 1)
  local names = {}
  for _, recipe in ipairs(doc.recipes) do
    names[#names + 1] = recipe.name
    check_listed(recipe, recipe.name)
  end
  t:eq(names, heapql.file_stems("queries", "lua"), "every queries/*.lua, by name")
end)

t:case("--recipes DIR: list, help and run find recipes there first; a broken one is an entry with its error", function()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir " .. heapql.quote(dir)))
  local function write(name, text)
    local file = assert(io.open(dir .. "/" .. name, "wb"))
    file:write(text)
    file:close()
  end
  write("leaks.lua", [[
local hq = require "heapql"
return hq.recipe { name = "my-leaks", doc = "mine, \"quoted\"", params = { depth = { type = "integer", default = 3, doc = "how deep" } },
  query = function(p) return { top = p.depth } end }
]])
  write("broken.lua", "return 42\n")
  local doc = json_of({ "list", "--format", "json", "--recipes", dir }, "list --recipes")
  local by_name = {}
  for _, recipe in ipairs(doc.recipes) do by_name[recipe.name] = recipe end
  t:eq(by_name.leaks.file, dir .. "/leaks.lua", "DIR's leaks hides the shipped one")
  t:eq(by_name.leaks.doc, 'mine, "quoted"')
  t:eq(by_name.leaks.params, { { name = "depth", type = "integer", default = "3", doc = "how deep" } })
  t:ok(by_name.broken and by_name.broken.error:find("a recipe must return hq.recipe", 1, true), "broken: its error")
  t:ok(by_name.peak and by_name.peak.file:find("queries/peak.lua", 1, true), "the shipped ones too")
  local text = heapql.run { "list", "--recipes", dir }
  t:eq(text.code, 3, "text list: a broken recipe is exit 3")
  t:ok(text.out:find("recipes in " .. dir, 1, true), "text list names DIR")
  t:ok(text.out:find("\n  leaks%s+mine"), "text list: DIR's recipe under DIR", text.out)
  local slash = heapql.run { "list", "--recipes", dir .. "/" }
  t:ok(slash.out:find("\n  leaks%s+mine"), "text list: DIR/ with its slash lists the same", slash.out)
  local one = json_of({ "help", "leaks", "--recipes", dir, "--format", "json" }, "help RECIPE --format json")
  t:eq(one.recipes[1].doc, 'mine, "quoted"', "help finds DIR's recipe")
  local run = heapql.run { "run", "leaks", "tests/data/worked_example.txt", "--recipes", dir, "--format", "json" }
  t:eq(run.code, 0, "run finds DIR's recipe: " .. run.err)
  t:ok(run.out:find('"top":3', 1, true), "and runs it (top = its default depth)", run.out)
  local missing = heapql.run { "list", "--recipes", dir .. "/nope" }
  t:eq(missing.code, 3, "--recipes of no folder: exit 3")
  t:ok(missing.err:find("not a folder", 1, true), missing.err)
  os.execute("rm -r " .. heapql.quote(dir))
end)

t:done()
