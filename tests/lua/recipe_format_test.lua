-- `heapql query TRACE OPTIONS --format recipe` through the binary: for every
-- query option of the schema (schema.flags(), each choice it declares and a
-- value for each option: a sample below, or one made from the field's type),
-- the recipe written, run by `heapql run FILE TRACE --format json`, prints
-- the JSON `heapql query TRACE OPTIONS --format json` prints, byte for byte;
-- hostile strings stay exactly themselves; the trace is not read.
local testlib = require "testlib"
local heapql = require "run_heapql"
local t = testlib.new("recipe_format_test")
local hq = require "heapql"
local schema = hq.schema

local TRACES = { "tests/data/worked_example.txt", "tests/data/csv/example.csv" }

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir " .. heapql.quote(dir)))
local function write(name, text)
  local path = dir .. "/" .. name
  local file = assert(io.open(path, "wb"))
  file:write(text)
  file:close()
  return path
end
local CULL_FILE = write("my cull's \"list\".txt", "# mine\ndemo!make_buf\n")
local SUPPRESSIONS_FILE = write("my-suppressions.txt", "leak:make_node\n")

-- Values worth trying beyond the field's choices; an option without one is
-- given a value made from its field's type (by_type).
local SAMPLES = {
  ["--window"] = { "0s..400ms", "..1ms", "all" },
  ["--size"] = { "32..", "..100", "4KiB..1MiB" },
  ["--lifetime"] = { "100ms..", "..1s" },
  ["--process"] = { "demo", "4242", "DEMO,0" },
  ["--heap"] = { "VirtualAlloc", "0x10" },
  ["--kind"] = { "heap,virtual" },
  ["--thread"] = { "7", "8,7" },
  ["--impacting"] = { "aifo,AOFI" },
  ["--require"] = { "demo!*", "demo!main" },
  ["--exclude"] = { "demo!make_node*", "*!grow" },
  ["--suppressions"] = { "heaptrack-builtin", SUPPRESSIONS_FILE },
  ["--cull"] = { "demo!new_buf", "demo!*" },
  ["--cull-list"] = { "stl", "libc-linux", CULL_FILE },
  ["--by"] = { "process,stack", "thread,frame" },
  ["--top"] = { "1", "2" },
  ["--series"] = { "5" },
}

local FIELD_TYPES = {}
for _, f in ipairs(schema.fields) do FIELD_TYPES[f.name] = f.type end

local function by_type(flag)
  local kind = FIELD_TYPES[flag.field]
  if kind:find("integer") then return { "2" } end
  if kind:find("duration range") then return { "1ms.." } end
  if kind:find("size range") then return { "16.." } end
  if kind:find("patterns") then return { "demo!*" } end
  return {}
end

local recipe_count = 0

-- `options` (a list of words) through --format json and through a recipe
-- written with --format recipe and run: the same JSON. Returns the recipe's text.
local function round_trip(trace, options, label)
  local function with(...)
    local w = { "query", trace }
    for _, o in ipairs(options) do w[#w + 1] = o end
    for _, o in ipairs { ... } do w[#w + 1] = o end
    return w
  end
  local direct = heapql.run(with("--format", "json"))
  recipe_count = recipe_count + 1
  local file = dir .. "/recipe" .. recipe_count .. ".lua"
  local written = heapql.run(with("--format", "recipe", "-o", file))
  if direct.code ~= 0 then
    if written.code ~= 0 then
      -- Refused before the trace is read: refused as a recipe too, with the same message.
      t:eq(written.code, direct.code, label .. ": refused alike")
      t:eq(written.err, direct.err, label .. ": the same message")
    else
      -- Refused for what the trace holds: the recipe, which does not read it, fails when run.
      local run = heapql.run { "run", file, trace, "--format", "json" }
      t:eq(run.code, direct.code, label .. ": the recipe fails when run, as the query did (" .. direct.err .. ")")
    end
    return nil
  end
  if not t:eq(written.code, 0, label .. ": recipe written (" .. written.err .. ")") then return nil end
  local run = heapql.run { "run", file, trace, "--format", "json" }
  t:eq(run.code, 0, label .. ": the recipe runs (" .. run.err .. ")")
  t:ok(#direct.out > 0 and run.out == direct.out, label .. ": the same JSON",
    "query: " .. direct.out .. "\n      run:   " .. run.out)
  local f = assert(io.open(file, "rb"))
  local text = f:read("a")
  f:close()
  return text
end

t:case("every query option of the schema round-trips, on each trace", function()
  local options_seen = 0
  for _, flag in ipairs(schema.flags()) do
    options_seen = options_seen + 1
    local values = {}
    if flag.value then
      for _, c in ipairs(flag.choices or {}) do values[#values + 1] = c end
      for _, v in ipairs(SAMPLES[flag.option] or {}) do values[#values + 1] = v end
      if #values == 0 then values = by_type(flag) end
      t:ok(#values > 0, flag.option .. ": has a value to try (add one to SAMPLES)")
    end
    for _, trace in ipairs(TRACES) do
      if flag.value then
        for _, v in ipairs(values) do round_trip(trace, { flag.option, v }, trace .. " " .. flag.option .. " " .. v) end
        if flag.repeatable and #values >= 2 then
          round_trip(trace, { flag.option, values[1], flag.option, values[2] },
            trace .. " " .. flag.option .. " twice")
        end
      else
        round_trip(trace, { flag.option }, trace .. " " .. flag.option)
      end
    end
  end
  t:eq(options_seen, #schema.flags(), "every option tried")
end)

t:case("options together: lists with and without the defaults, files, filters, grouping", function()
  local combos = {
    { "--window", "0s..500ms", "--by", "frame,process", "--top", "3", "--cull-list", "stl", "--cull", "demo!new_buf",
      "--suppressions", "heaptrack-builtin", "--require", "demo!*", "--at-peak" },
    { "--no-default-cull", "--cull-list", CULL_FILE, "--cull-list", "libc-linux", "--sort", "st", "--series", "3" },
    { "--no-default-cull", "--cull", "demo!main" },
    { "--no-default-cull", "--cull-list", "stl" },
    { "--suppressions", SUPPRESSIONS_FILE, "--suppressions", "heaptrack-builtin", "--embedded-suppressions",
      "--exclude", "*!grow", "--size", "1..", "--lifetime", "..10s", "--temporary", "--by", "impacting,stack" },
    { "--process", "demo", "--process", "4242", "--thread", "7,8", "--kind", "heap", "--impacting", "AIFO",
      "--impacting", "aifi", "--totals", "--window", "1ms.." },
    { "--top", "5", "--top", "1", "--sort", "so", "--sort", "stc" },
  }
  for i, options in ipairs(combos) do
    for _, trace in ipairs(TRACES) do round_trip(trace, options, trace .. " combination " .. i) end
  end
end)

-- The recipe's query table, from its text loaded with a stub heapql (as
-- xperf_test does): what each string became.
local function query_of(text)
  local stub = setmetatable({}, { __index = hq })
  stub.recipe = function(decl) return decl end
  local chunk = assert(load(text, "=recipe", "t", { require = function() return stub end }))
  return chunk().query()
end

t:case("hostile strings stay exactly themselves", function()
  local nasty = {
    'q"uote', "single'quote", "a]]b", "]=]x", "line\nbreak", "cr\rlf", "back\\slash", "tab\tend", "--[[ c",
    "x\"); error('escaped') --", "é!ünïcødé", "ctl\1\127!", "\\\n", "\\",
  }
  for _, s in ipairs(nasty) do
    for _, option in ipairs { "--require", "--exclude", "--cull", "--process", "--heap" } do
      local text = round_trip(TRACES[1], { option, s }, option .. " " .. ("%q"):format(s))
      if text then
        local ok, query = pcall(query_of, text)
        if t:ok(ok, option .. ": the recipe loads: " .. tostring(query)) then
          local field = option:sub(3)
          t:eq(query[field], { s }, option .. " " .. ("%q"):format(s) .. ": the same string")
        end
        t:eq(select(2, text:gsub("\n%-%- ", "")) + (text:find("^%-%- ") and 1 or 0), 2, option .. ": two comment lines")
      end
    end
  end
  -- A trace whose name would end the comment line or a literal.
  local trace = write("tr'a\"ce]]\n-- x\r.txt", (io.open(TRACES[1], "rb"):read("a")))
  local text = round_trip(trace, { "--by", "frame" }, "hostile trace name")
  t:ok(text and text:match("^%-%- [^\n]*\n%-%- [^\n]*\nlocal hq"), "the name stays in the first comment line", text)
end)

t:case("the trace is not read; output options and bad queries", function()
  local r = heapql.run { "query", dir .. "/no-such-trace.zst", "--by", "frame", "--format", "recipe" }
  t:eq(r.code, 0, "a trace that is not there: still written (" .. r.err .. ")")
  t:ok(r.out:find('by = "frame",', 1, true), "the query", r.out)
  -- A shipped list named by its path (as heapql serve passes it) is read by name.
  local by_path = round_trip(TRACES[1], { "--cull-list", "queries/cull/stl.txt", "--suppressions",
    "queries/suppressions/heaptrack-builtin.txt" }, "shipped lists by their paths")
  t:ok(by_path and by_path:find('hq.cull.shipped "stl"', 1, true)
    and by_path:find('hq.suppressions.shipped "heaptrack-builtin"', 1, true), "named as shipped lists", by_path)
  local not_shipped = round_trip(TRACES[1], { "--cull-list", CULL_FILE }, "a list that is not shipped")
  t:ok(not_shipped and not_shipped:find("hq.cull.file ", 1, true), "read as a file", not_shipped)
  r = heapql.run { "query", TRACES[1], "--cull-list", "no-such-list", "--format", "recipe" }
  t:eq(r.code, 3, "an unreadable cull list: exit 3 as for an answer")
  r = heapql.run { "query", TRACES[1], "--sort", "nope", "--format", "recipe" }
  t:eq(r.code, 3, "a bad value: exit 3")
  t:ok(r.err:find("--sort 'nope'", 1, true), "named", r.err)
  r = heapql.run { "diff", TRACES[1], TRACES[1], "--format", "recipe" }
  t:eq(r.code, 3, "diff has no recipe format")
  r = heapql.run { "query", TRACES[1], "--format", "recipe", "-o", TRACES[1] }
  local as_json = heapql.run { "query", TRACES[1], "--format", "json", "-o", TRACES[1] }
  t:ok(r.code ~= 0 and r.code == as_json.code and r.err == as_json.err, "the output may not be the trace, as for JSON",
    r.err)
  local imported = heapql.run { "import", TRACES[2], "--top", "2", "--format", "recipe" }
  t:ok(imported.code == 0 and imported.out:find("^%-%- heapql import "), "import writes one too", imported.err)
end)

os.execute("rm -r " .. heapql.quote(dir))
t:done()
