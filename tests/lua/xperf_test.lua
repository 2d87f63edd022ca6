-- heapql.xperf: parsing xperf heap-action flags, the query they mean, and
-- the recipe text (loaded back and run: the round trip).
local testlib = require "testlib"
local require_in_sandbox = testlib.sandbox()
local xperf = require_in_sandbox "heapql.xperf"
local patterns = require_in_sandbox "heapql.patterns"
local t = testlib.new("xperf_test")

local DEFAULTS = { "ntdll.dll!RtlAllocateHeap", "malloc", "operator new(*" }

-- A stand-in for the heapql module: recipe() returns its argument, and each
-- cull list file is a set whose one pattern spells out the path in hex.
local function file_set(path)
  return patterns.set("f" .. path:gsub(".", function(c) return ("%02x"):format(c:byte()) end) .. "!")
end
local hq = {
  recipe = function(r) return r end,
  cull = { defaults = patterns.defaults(DEFAULTS), file = file_set },
}

local function parse(argv)
  local spec, err = xperf.parse(argv)
  if not spec then error("parse failed: " .. err, 2) end
  return spec
end

local function parse_error(argv)
  local spec, err = xperf.parse(argv)
  return spec and "no error" or err
end

-- The spec with its defaults, overridden by `fields`.
local function spec_with(words, fields)
  local spec = { by = "stack", sort = "so", cull_frames = {}, cull_lists = {}, require_frames = {}, totals = false,
    words = words }
  for k, v in pairs(fields) do spec[k] = v end
  return spec
end

t:case("no flags: xperf's defaults", function()
  t:eq(parse {}, spec_with({}, {}))
  t:eq(xperf.to_query(parse {}, hq), {}, "every field keeps its default")
end)

t:case("every flag", function()
  local argv = { "-i", "t.etl", "-a", "heap", "-symbols", "verbose", "dbghelplog", "-pid", "1234", "-frames", "st",
    "-range", "2000000", "8000000", "-lifetime", "1500", "2000000", "-size", "4096", "1048576",
    "-cullFrames", "a!b", "c", "-cullLists", "crt.txt", "more.txt", "-requireFrames", "app.exe!*", "lib!f",
    "-top", "10", "-totals" }
  t:eq(parse(argv), spec_with(argv, {
    by = "frame", sort = "st", pid = { 1234 }, range_us = { 2000000, 8000000 }, lifetime_us = { 1500, 2000000 },
    size = { 4096, 1048576 }, cull_frames = { "a!b", "c" }, cull_lists = { "crt.txt", "more.txt" },
    require_frames = { "app.exe!*", "lib!f" }, top = 10, totals = true,
  }))
  local q = xperf.to_query(parse(argv), hq)
  t:eq(q.cull:texts(), { DEFAULTS[1], DEFAULTS[2], DEFAULTS[3], file_set("crt.txt"):texts()[1],
    file_set("more.txt"):texts()[1], "a!b", "c" }, "cull: defaults, then the files, then the frames")
  t:eq(q.cull.includes_defaults, true)
  q.cull = nil
  t:eq(q, {
    window = "2s..8s", lifetime = "1.5ms..2s", size = "4KiB..1MiB", process = { 1234 }, by = "frame", sort = "st",
    top = 10, totals = true, require = { "app.exe!*", "lib!f" },
  })
end)

t:case("grouping and sort keys", function()
  t:eq(parse { "-stacks" }.by, "stack")
  t:eq(parse { "-stacks" }.sort, "so")
  t:eq(parse { "-frames" }.by, "frame")
  t:eq(parse { "-images" }.by, "image")
  t:eq(parse { "-image" }.by, "image")
  t:eq(parse { "-image", "src" }.sort, "src")
  for _, key in ipairs { "so", "soc", "st", "stc", "src" } do
    t:eq(parse { "-stacks", key }.sort, key, key)
    t:eq(parse { "-frames", key:upper() }.sort, key, key:upper())
  end
  t:eq(xperf.to_query(parse { "-stacks", "so" }, hq), {}, "-stacks so is the default")
  t:eq(xperf.to_query(parse { "-images", "soc" }, hq), { by = "image", sort = "soc" })
  t:eq(xperf.to_query(parse { "-stacks", "stc" }, hq), { sort = "stc" })
end)

t:case("flags ignore case", function()
  local spec = parse { "-CULLFRAMES", "x", "-cullframes", "y", "-RequireFrames", "z", "-Range", "1", "2", "-TOP", "3",
    "-Totals", "-PID", "7", "-CullLists", "l.txt", "-I", "t.etl", "-A", "Heap", "-SYMBOLS", "VERBOSE", "-Images",
    "-LifeTime", "0", "5", "-SIZE", "1", "9" }
  t:eq(spec.cull_frames, { "x", "y" }, "repeated -cullFrames add up")
  t:eq(spec.require_frames, { "z" })
  t:eq(spec.range_us, { 1, 2 })
  t:eq(spec.top, 3)
  t:eq(spec.totals, true)
  t:eq(spec.pid, { 7 })
  t:eq(spec.cull_lists, { "l.txt" })
  t:eq(spec.by, "image")
  t:eq(spec.lifetime_us, { 0, 5 })
  t:eq(spec.size, { 1, 9 })
end)

t:case("multi-value flags stop at the next known flag", function()
  local spec = parse { "-cullFrames", "a", "-b", "-x!y", "-top", "5" }
  t:eq(spec.cull_frames, { "a", "-b", "-x!y" }, "a word starting with '-' that is no flag is a value")
  t:eq(spec.top, 5)
  t:eq(parse { "-pid", "1", "2", "3", "-totals" }.pid, { 1, 2, 3 })
  t:eq(parse { "-pid", "1", "-pid", "2" }.pid, { 1, 2 }, "repeated -pid adds up")
  t:eq(parse { "-cullLists", "a.txt", "-b.txt", "-i", "x" }.cull_lists, { "a.txt", "-b.txt" })
  t:eq(parse_error { "-requireFrames", "-STACKS" },
    "xperf flag 1 ('-requireFrames'): expected one or more frame patterns, got none", "a flag name is never a value")
end)

t:case("ignored flags", function()
  t:eq(parse { "-i", "trace.etl", "-a", "heap", "-symbols" }, spec_with({ "-i", "trace.etl", "-a", "heap", "-symbols" }, {}))
  t:eq(parse { "-symbols", "dbghelplog", "verbose", "-totals" }.totals, true)
  t:eq(parse { "-i", "-weird.etl" }.by, "stack", "-i takes any word that is not a flag")
end)

t:case("numbers", function()
  t:eq(parse { "-range", "0", "0" }.range_us, { 0, 0 }, "an empty range is valid")
  t:eq(parse { "-range", "007", "9223372036854775" }.range_us, { 7, 9223372036854775 })
  t:eq(parse { "-size", "0", "9223372036854775807" }.size, { 0, math.maxinteger })
  t:eq(parse { "-top", "1" }.top, 1)
  t:eq(parse_error { "-top", "00" }, "xperf flag 1 ('-top'): expected a number of rows (at least 1), got '00' (word 2)")
  t:eq(parse { "-pid", "4294967295" }.pid, { 4294967295 })
  t:eq(xperf.to_query(parse { "-range", "0", "1500" }, hq).window, "0s..1.5ms")
  t:eq(xperf.to_query(parse { "-range", "1", "1000001" }, hq).window, "1us..1.000001s")
  t:eq(xperf.to_query(parse { "-lifetime", "0", "9223372036854775" }, hq).lifetime, "0s..9223372036.854775s")
  t:eq(xperf.to_query(parse { "-size", "1000", "1500" }, hq).size, "1KB..1500")
end)

t:case("the words are copied", function()
  local argv = { "-top", "3" }
  local spec = parse(argv)
  argv[2] = "4"
  t:eq(spec.words, { "-top", "3" })
end)

t:case("errors: unknown flags and stray words", function()
  local known = "-pid -stacks -frames -images -image -range -lifetime -size -cullFrames -cullLists -requireFrames "
    .. "-top -totals (and -i FILE, -a heap, -symbols [verbose] [dbghelplog], which are ignored)"
  t:eq(parse_error { "-stacks", "-foo" }, "xperf word 2 ('-foo'): unknown flag; the heap action's flags are " .. known)
  t:eq(parse_error { "-process", "x" }, "xperf word 1 ('-process'): unknown flag; the heap action's flags are " .. known)
  t:eq(parse_error { "stacks" }, "xperf word 1 ('stacks'): expected a flag, got a value")
  t:eq(parse_error { "-top", "1", "2" }, "xperf word 3 ('2'): expected a flag, got a value ('-top' before it takes no more)")
  t:eq(parse_error { "-totals", "yes" },
    "xperf word 2 ('yes'): expected a flag, got a value ('-totals' before it takes no more)")
  t:eq(parse_error { "-range", "1", "2", "3" },
    "xperf word 4 ('3'): expected a flag, got a value ('-range' before it takes no more)")
  t:eq(parse_error { "-symbols", "quiet" },
    "xperf word 2 ('quiet'): expected a flag, got a value ('-symbols' before it takes no more)")
  t:eq(parse_error { "-o", "out.txt" },
    "xperf flag 1 ('-o'): -o is not an xperf heap-action flag here; use heapql's own -o")
  t:eq(parse_error { "-a", "hardfaults" },
    "xperf flag 1 ('-a'): heapql translates only the heap action (-a heap), got 'hardfaults'")
  t:eq(parse_error { "-a" }, "xperf flag 1 ('-a'): expected an action name, got none")
  t:eq(parse_error { "-i", "-top", "1" }, "xperf flag 1 ('-i'): expected a trace file name, got none")
end)

t:case("errors: missing values", function()
  t:eq(parse_error { "-range" }, "xperf flag 1 ('-range'): expected two numbers of microseconds, got none")
  t:eq(parse_error { "-range", "5", "-top", "1" },
    "xperf flag 1 ('-range'): expected two numbers of microseconds, got only one")
  t:eq(parse_error { "-lifetime", "5" }, "xperf flag 1 ('-lifetime'): expected two numbers of microseconds, got only one")
  t:eq(parse_error { "-size" }, "xperf flag 1 ('-size'): expected two numbers of bytes, got none")
  t:eq(parse_error { "-top" }, "xperf flag 1 ('-top'): expected a number of rows, got none")
  t:eq(parse_error { "-pid", "-totals" }, "xperf flag 1 ('-pid'): expected one or more process ids, got none")
  t:eq(parse_error { "-cullFrames" }, "xperf flag 1 ('-cullFrames'): expected one or more frame patterns, got none")
  t:eq(parse_error { "-requireFrames", "-top", "3" },
    "xperf flag 1 ('-requireFrames'): expected one or more frame patterns, got none")
  t:eq(parse_error { "-cullLists" }, "xperf flag 1 ('-cullLists'): expected one or more cull list files, got none")
  t:eq(parse_error { "-cullLists", "" }, "xperf flag 1 ('-cullLists'): word 2: empty file name")
end)

t:case("errors: bad numbers name the word and column", function()
  t:eq(parse_error { "-stacks", "so", "-range", "2s", "3s" },
    "xperf flag 3 ('-range'): expected two numbers of microseconds, got '2s' (word 4, column 2)")
  t:eq(parse_error { "-range", "1", "2.5" },
    "xperf flag 1 ('-range'): expected two numbers of microseconds, got '2.5' (word 3, column 2)")
  t:eq(parse_error { "-range", "-5", "3" },
    "xperf flag 1 ('-range'): expected two numbers of microseconds, got '-5' (word 2, column 1)")
  t:eq(parse_error { "-range", "", "3" },
    "xperf flag 1 ('-range'): expected two numbers of microseconds, got '' (word 2, column 1)")
  t:eq(parse_error { "-size", "4KB", "8KB" },
    "xperf flag 1 ('-size'): expected two numbers of bytes, got '4KB' (word 2, column 2)")
  t:eq(parse_error { "-top", "ten" }, "xperf flag 1 ('-top'): expected a number of rows, got 'ten' (word 2, column 1)")
  t:eq(parse_error { "-pid", "12", "0x10" },
    "xperf flag 1 ('-pid'): expected one or more process ids, got '0x10' (word 3, column 2)")
  t:eq(parse_error { "-range", "9223372036854776", "9223372036854777" },
    "xperf flag 1 ('-range'): expected two numbers of microseconds, got '9223372036854776' (word 2): "
    .. "too large, the most is 9223372036854775")
  t:eq(parse_error { "-size", "0", "9223372036854775808" },
    "xperf flag 1 ('-size'): expected two numbers of bytes, got '9223372036854775808' (word 3): "
    .. "too large, the most is 9223372036854775807")
  t:eq(parse_error { "-pid", "4294967296" },
    "xperf flag 1 ('-pid'): expected one or more process ids, got '4294967296' (word 2): too large, the most is 4294967295")
  t:eq(parse_error { "-top", "1\n" },
    "xperf flag 1 ('-top'): expected a number of rows, got '1\\x0a' (word 2, column 2)")
end)

t:case("errors: inverted ranges", function()
  t:eq(parse_error { "-range", "8000000", "2000000" }, "xperf flag 1 ('-range'): T2 (2000000) is before T1 (8000000)")
  t:eq(parse_error { "-totals", "-lifetime", "10", "9" }, "xperf flag 2 ('-lifetime'): L2 (9) is before L1 (10)")
  t:eq(parse_error { "-size", "100", "99" }, "xperf flag 1 ('-size'): S2 (99) is before S1 (100)")
end)

t:case("errors: flags given twice or in conflict", function()
  t:eq(parse_error { "-range", "1", "2", "-top", "5", "-range", "3", "4" },
    "xperf flag 6 ('-range'): given twice (first as flag 1)")
  t:eq(parse_error { "-top", "1", "-TOP", "2" }, "xperf flag 3 ('-TOP'): given twice (first as flag 1)")
  t:eq(parse_error { "-stacks", "so", "-frames" },
    "xperf flag 3 ('-frames'): only one of -stacks, -frames, -images can be given (flag 1 was '-stacks')")
  t:eq(parse_error { "-image", "-images" },
    "xperf flag 2 ('-images'): only one of -stacks, -frames, -images can be given (flag 1 was '-image')")
  t:eq(parse_error { "-stacks", "size" }, "xperf flag 1 ('-stacks'): expected a sort key so|soc|st|stc|src, got 'size' (word 2)")
end)

t:case("errors: bad patterns give the word and the pattern's column", function()
  t:eq(parse_error { "-cullFrames", "ok", "a!b\\" },
    "xperf flag 1 ('-cullFrames'): word 3: frame pattern 'a!b\\': at column 4: '\\' at the end escapes nothing "
    .. "(write '\\\\' for a backslash)")
  t:eq(parse_error { "-top", "1", "-requireFrames", "!main" },
    "xperf flag 3 ('-requireFrames'): word 4: frame pattern '!main': at column 1: expected a module name before '!' "
    .. "(write 'symbol' for any module)")
  t:eq(parse_error { "-cullFrames", "" }, "xperf flag 1 ('-cullFrames'): word 2: frame pattern '': empty pattern")
end)

t:case("errors: what is not a list of words", function()
  t:eq(parse_error("-top 1"), "xperf: expected a list of command-line words, got string")
  t:eq(parse_error { "-top", 1 }, "xperf word 2: expected a string, got number")
  t:eq(parse_error { "-cullFrames", "a\0b" }, "xperf word 2 ('a\\x00b'): a NUL byte cannot be part of a word")
end)

-- The recipe text, loaded in an environment that holds nothing but a
-- require giving the stub, must be valid Lua whose query, run with the
-- declared defaults, equals to_query.
local function round_trip(argv, label)
  local spec = parse(argv)
  local text = xperf.to_recipe(spec)
  local env = {
    require = function(name)
      assert(name == "heapql", "the recipe requires only heapql")
      return hq
    end,
  }
  local chunk, err = load(text, "=recipe", "t", env)
  if not t:ok(chunk, label .. ": loads: " .. tostring(err)) then return text end
  local ok, recipe = pcall(chunk)
  if not t:ok(ok, label .. ": runs: " .. tostring(recipe)) then return text end
  t:eq(recipe.name, "xperf-heap", label .. ": name")
  t:eq(type(recipe.doc), "string", label .. ": doc")
  local p = {}
  for name, decl in pairs(recipe.params) do
    t:ok(decl.type == "duration_range" or decl.type == "integer", label .. ": typed param " .. name)
    t:eq(type(decl.doc), "string", label .. ": param doc")
    p[name] = decl.default
  end
  local query = recipe.query(p)
  local expected = xperf.to_query(spec, hq)
  t:eq(query, expected, label .. ": query(defaults) == to_query")
  if expected.cull then
    t:eq(query.cull:texts(), expected.cull:texts(), label .. ": cull in the same order")
  end
  -- Nothing but the two comment lines may come before the code.
  local first, second, third = text:match("^([^\n]*)\n([^\n]*)\n([^\n]*)\n")
  t:ok(first and first:find("^%-%- heapql xperf") and second:find("^%-%- ") and third == 'local hq = require "heapql"',
    label .. ": header")
  return text, recipe
end

t:case("round trip: the example command line", function()
  local text, recipe = round_trip({ "-stacks", "so", "-range", "2000000", "8000000", "-cullLists", "crt.txt",
    "-requireFrames", "app.exe!*", "-top", "10" }, "example")
  t:eq(recipe.params, {
    window = { type = "duration_range", default = "2s..8s", doc = "time window (xperf -range 2000000 8000000, microseconds)" },
    top = { type = "integer", default = 10, doc = "rows to show (xperf -top)" },
  })
  t:ok(text:find("-- heapql xperf -stacks so -range 2000000 8000000 -cullLists crt.txt -requireFrames 'app.exe!*' -top 10\n",
    1, true), "the command line is in the first comment")
  t:ok(text:find('cull = hq.cull.defaults + hq.cull.file "crt.txt",', 1, true), "the cull expression reads well")
  t:ok(text:find("window = p.window,", 1, true) and text:find("top = p.top,", 1, true), "params are used")
  local changed = recipe.query { window = "1s..2s", top = 3 }
  t:eq({ changed.window, changed.top }, { "1s..2s", 3 }, "the params drive the query")
end)

t:case("round trip: several command lines", function()
  round_trip({}, "no flags")
  round_trip({ "-totals" }, "totals")
  round_trip({ "-frames", "stc", "-pid", "4", "8", "-lifetime", "1500", "2000000", "-size", "0", "4096" }, "filters")
  round_trip({ "-images", "-range", "0", "1", "-top", "1" }, "tiny window")
  round_trip({ "-cullFrames", "a!b", "c", "-cullLists", "x.txt", "y.txt", "-cullFrames", "A!B" }, "cull mix")
  round_trip({ "-i", "t.etl", "-a", "heap", "-symbols", "verbose", "-range", "1", "9223372036854775" }, "ignored + max")
end)

t:case("round trip: hostile strings stay strings", function()
  local nasty = {
    'q"uote', "single'quote", "a]]b", "]=]x!", "line\nbreak", "cr\rlf", "back\\\\slash", "tab\tend", "\\*\\?",
    "x!\"); error('escaped') --", "--[[ comment", "é!ünïcødé", "ctl\1\2\127!", "\\\n",
  }
  local argv = { "-cullFrames" }
  for _, s in ipairs(nasty) do argv[#argv + 1] = s end
  argv[#argv + 1] = "-requireFrames"
  for _, s in ipairs(nasty) do argv[#argv + 1] = s end
  argv[#argv + 1] = "-cullLists"
  argv[#argv + 1] = "dir with space/it's \"here\"]].txt"
  argv[#argv + 1] = "new\nline.txt"
  argv[#argv + 1] = "c:\\lists\\crt.txt"
  local text = round_trip(argv, "hostile")
  local q = xperf.to_query(parse(argv), hq)
  t:eq(q.require, nasty, "patterns survive exactly")
  t:ok(not text:find("error%('escaped'%)\n"), "no text escapes its string")
  t:ok(not text:find("[\0-\9\11-\31\127]"), "no control byte but newlines in the text")
  t:ok(text:find("$'line\\nbreak'", 1, true), "control bytes are escaped in the comment")
end)

t:case("round trip: a hostile word in the comment cannot become code", function()
  local text = round_trip({ "-cullFrames", "x\nerror('pwned')\n--" }, "comment breakout")
  t:ok(text:find("^%-%- heapql xperf %-cullFrames %$'x\\nerror%(\\'pwned\\'%)\\n%-%-'\n"), "escaped in the comment")
end)

t:case("to_query needs hq only for culling", function()
  t:eq(xperf.to_query(parse { "-top", "5" }), { top = 5 })
  t:fails(function() xperf.to_query(parse { "-cullFrames", "x" }) end,
    "xperf.to_query: -cullFrames and -cullLists need hq.cull.defaults and hq.cull.file")
end)

t:done()
