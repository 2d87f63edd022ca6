-- heapql.api_doc: the description of heapql's Lua API, as plain data. One
-- entry per function (its parameters, results and one paragraph), per field
-- of the tables the API returns, per recipe declaration field and per param
-- type. lua/tools/gen_recipes_doc.lua turns it (with heapql.schema) into
-- docs/recipes.md and the LuaLS definitions lua/meta/heapql.lua;
-- tests/lua/recipes_doc_test.lua checks it against the real module, both
-- ways: nothing undocumented, nothing documented that is gone. The methods of
-- the C++ classes (Trace, Result, Diff) are described by their LuaClass
-- registrations in lua/host/*_binding.cpp; here they have only their types.
--
-- Types are written as LuaLS types (string, integer, string[], fun(...),
-- heapql.Result, unions with |); the Markdown drops the `heapql.` prefix.
--
-- groups[i]: one table of the API.
--   name     how the docs name it (also the heading)
--   class    its LuaLS class
--   access   how a member is reached in examples: "hq." or "trace:"
--   probe    how the test finds the real table (see recipes_doc_test.lua)
--   members  { name, kind = "function"|"method"|"field", params, returns, type, doc }
--            params: { name, type, optional = true? }; name "..." is a vararg
--            returns: { type, name? }
--   operators (pattern sets) { name, metamethod, luals?, doc }
-- data[i]: the shape of a table the API returns: class, doc, parent?,
--   fields { name, type, optional = true?, doc }.
local api = {}

api.recipe_fields = {
  { name = "name", type = "string", required = true,
    doc = "Short name that `heapql list` and `heapql help` show." },
  { name = "doc", type = "string", required = true,
    doc = "One line saying what the recipe answers (the line `heapql list` shows)." },
  { name = "params", type = "table<string, heapql.Param|string|number|boolean>",
    doc = "Named inputs: NAME = {type = ..., default = ..., doc = ...}, or NAME = default (its type is then integer, number, boolean or string, from the value). `--param NAME=VALUE` overrides a default; the text is checked and converted by the param's type." },
  { name = "query", type = "fun(params: table<string, any>): heapql.Query",
    doc = "Returns the query (the query fields) for the given params. A recipe has `query` or `run`, never both." },
  { name = "report", type = "fun(result: heapql.Result, out: heapql.Output, params: table<string, any>)",
    doc = "With `query`: writes the report for the table format. Without it the result table is printed; with `--format json` or `csv` the result is printed in that format and `report` is not called." },
  { name = "run", type = "fun(trace: heapql.Trace, params: table<string, any>, out: heapql.Output)",
    doc = "Instead of `query`: answers any number of queries on `trace` (trace:query{...}) and writes what it likes with `out`, whose `format` is the run's `--format`." },
  { name = "columns", type = "heapql.Columns",
    doc = "With `query`: derived columns added after the measures in every format, a list of {name, function(row) ... end} or a map name = function(row) (then in name order). Each function runs once per shown row." },
}

api.param_fields = {
  { name = "type", type = "heapql.ParamType", optional = true,
    doc = "How `--param` text is read; without it, the type of `default` (integer, number, boolean or string)." },
  { name = "default", type = "any", optional = true,
    doc = "The value when no `--param` is given; checked against the type. Without a default the param is nil unless given." },
  { name = "doc", type = "string", optional = true, doc = "One line for `heapql help`." },
}

-- One entry per name in heapql.recipe.param_types: the value a run sees, and
-- what `--param` text it takes.
api.param_types = {
  boolean = { value = "boolean", doc = "`true`, `yes`, `on`, `1` or `false`, `no`, `off`, `0`, in any case." },
  duration = { value = "string",
    doc = "A duration such as `250ms` or `1.5s` (units ns us ms s m h), checked; the recipe gets the text (hq.parse.duration gives nanoseconds)." },
  duration_range = { value = "string",
    doc = "A time range such as `10s..20s`, `..5m`, `2s..end` or `all`, checked; the text goes straight into `window` or `lifetime`." },
  integer = { value = "integer", doc = "A whole number (`42`, `0x10`)." },
  number = { value = "number", doc = "Any number Lua reads (`0.5`, `1e3`)." },
  path = { value = "string",
    doc = "A non-empty file path. A path given with `--param` may be read by the recipe (hq.cull.file, hq.include, hq.open) even outside its folder." },
  patterns = { value = "string[]",
    doc = "Frame patterns separated by commas (`libfoo.so!*, Parse*`), each checked; the recipe gets the list (empty for an empty text), ready for `cull` or `require`. A default must be a list." },
  size = { value = "string",
    doc = "A size such as `4096`, `4KB` or `1.5MiB` (K = 1000, Ki = 1024), checked; the recipe gets the text (hq.parse.size gives bytes)." },
  size_range = { value = "string", doc = "A size range such as `4KB..1MiB`, `64..` or `all`, checked; the text goes straight into `size`." },
  string = { value = "string", doc = "Any text, as given." },
}

-- The LuaLS type of each query field (heapql.schema.fields shows its own
-- type text in the docs; this is what editors check).
api.query_types = {
  window = "heapql.DurationRange",
  at_peak = "boolean",
  size = "heapql.SizeRange",
  lifetime = "heapql.DurationRange",
  process = "string|integer|(string|integer)[]",
  heap = "string|integer|(string|integer)[]",
  kind = '"heap"|"virtual"|string|string[]',
  thread = "integer|string|(integer|string)[]",
  impacting = "heapql.ImpactingType|string|string[]",
  temporary = "boolean",
  require = "heapql.Patterns",
  exclude = "heapql.Patterns",
  suppressions = "string|string[]",
  embedded_suppressions = "boolean",
  cull = "heapql.Patterns",
  default_cull = "boolean",
  by = "heapql.Level|heapql.KeyFunction|(heapql.Level|heapql.KeyFunction)[]",
  sort = "heapql.SortKey",
  top = "integer",
  totals = "boolean",
  series = "integer",
  detail = "integer",
  tree = "heapql.TreeOptions",
}

api.aliases = {
  { name = "heapql.DurationRange", type = "string|heapql.Range",
    doc = "A time range: `10s..20s`, `..5m`, `2s..end`, `all`, or {first = ns, last = ns}." },
  { name = "heapql.SizeRange", type = "string|heapql.Range",
    doc = "A size range: `4KB..1MiB`, `64..`, `all`, or {first = bytes, last = bytes}." },
  { name = "heapql.Patterns", type = "string|heapql.PatternSet|(string|heapql.PatternSet)[]",
    doc = "Frame patterns: one pattern, a list of patterns and sets, or a pattern set." },
  { name = "heapql.Level", type = '"stack"|"frame"|"image"|"process"|"heap"|"kind"|"thread"|"impacting"',
    doc = "A grouping level." },
  { name = "heapql.KeyFunction", type = "fun(frames: string[]): string|number",
    doc = "A custom grouping level: gets a culled stack's frames (top first), returns its group's key." },
  { name = "heapql.Measure", type = '"so"|"soc"|"st"|"stc"|"src"',
    doc = "A measure: outstanding size and count, total size and count, realloc count." },
  { name = "heapql.SortKey", type = 'heapql.Measure|"impacting"',
    doc = "What rows are ranked by: a measure, or (in a query with impacting types) the magnitude of the impacting size." },
  { name = "heapql.ImpactingType", type = '"AIFI"|"AIFO"|"AOFI"|"AOFO"',
    doc = "WPA's impacting types (docs/semantics.md §7)." },
  { name = "heapql.Format", type = '"table"|"json"|"csv"|"html"', doc = "A report format." },
  { name = "heapql.Columns", type = "{[1]: string, [2]: fun(row: heapql.Row): any}[]|table<string, fun(row: heapql.Row): any>",
    doc = "Derived columns: a list of {name, function(row)}, or a map name = function(row)." },
}

local function method(name, params, returns, doc)
  return { name = name, kind = "method", params = params, returns = returns, doc = doc }
end
local function fn(name, params, returns, doc)
  return { name = name, kind = "function", params = params, returns = returns, doc = doc }
end
local function field(name, type, doc)
  return { name = name, kind = "field", type = type, doc = doc }
end

-- What trace:source() and trace:summary() both have.
local source_fields = {
  { name = "path", type = "string", doc = "The trace's path." },
  { name = "source", type = "string", doc = "The tracer (`heaptrack`)." },
  { name = "format", type = "string", doc = "What was read (`interpreted`, `raw+interpreted`)." },
  { name = "block_identity", type = "string", doc = "`exact` or `bucket-lifo`." },
  { name = "realloc_known", type = "boolean", doc = "Whether the source marks reallocs." },
  { name = "command", type = "string", doc = "The traced command line." },
  { name = "duration_ns", type = "integer", doc = "The trace's length." },
}

-- source_fields, then `more`.
local function with_source_fields(more)
  local fields = table.move(source_fields, 1, #source_fields, 1, {})
  return table.move(more, 1, #more, #fields + 1, fields)
end

local tree_options = { name = "opts", type = "heapql.TreeOptions", optional = true }
local parse_error = { type = "string?", name = "err" }

api.groups = {
  { name = "hq", class = "heapql", access = "hq.", probe = "hq",
    doc = 'The module: `local hq = require "heapql"`, in a recipe or in a script run by lua5.4.',
    members = {
      field("version", "string", "heapql's version, such as `0.1.0`."),
      fn("recipe", { { name = "declaration", type = "heapql.Recipe" } }, { { type = "heapql.Recipe" } },
        "Checks a recipe declaration and returns it marked as one; a recipe file returns its value. Raises on an unknown field, a field of the wrong type, a missing `name` or `doc`, neither or both of `query` and `run`, a param that is not an identifier, an unknown param type or a default that its type refuses."),
      fn("open", { { name = "path", type = "string" }, { name = "options", type = "{symbols: string|string[]}", optional = true } }, { { type = "heapql.Trace" } },
        "Opens a trace file (heaptrack, ETW .etl or event CSV) and reads it at once, so that a bad file fails here (exit 2 in a recipe). A recipe already gets the trace named on the command line; in the sandbox it may open only that file, files beside the recipe and in the shipped queries folder, and paths given as path-typed params. `options.symbols` names PDB folders or symbol stores for an ETW trace (docs/symbols.md), besides those given with --symbols, which every trace opened in a run uses."),
      fn("include", { { name = "path", type = "string" } }, { { type = "any" } },
        "Runs the Lua file `path` (relative to the recipe's folder) as text in the recipe's environment and returns what it returns. Every call runs the file again; `require` of a module beside the recipe loads it once."),
      fn("fail_if", { { name = "condition", type = "any" }, { name = "message", type = "string", optional = true } },
        { { type = "boolean" } },
        "A gate: when `condition` is true (not false or nil), records `message` as a failed gate and returns true; otherwise returns false. The run goes on and its report is written; `heapql run` then prints each failed gate and exits with 1."),
      fn("gate_failed", {}, { { type = "boolean" } }, "Whether a gate has failed so far in this run."),
      fn("diff", { { name = "a", type = "heapql.Result" }, { name = "b", type = "heapql.Result" }, { name = "options", type = "{top: integer?}", optional = true } },
        { { type = "heapql.Diff" } },
        "Two results of the same grouping and sort, rows matched by key (docs/semantics.md §10): B - A per row, biggest change first, cut at `top` (default: a's top). A side cut at top N is asked again whole, so every key is matched."),
      fn("with_columns", { { name = "result", type = "heapql.Result" }, { name = "columns", type = "heapql.Columns" } },
        { { type = "heapql.Result" } },
        "A copy of `result` with derived columns after the measures (in the table, JSON and CSV). Each function gets a row (as result:rows() gives it) and runs once per shown row; a float is shown with two decimals, nil as an empty cell, anything else with tostring."),
      fn("output", { { name = "format", type = "heapql.Format", optional = true } }, { { type = "heapql.Output" } },
        "A writer for the run's report in `format` (default `table`). Everything written goes to the report (stdout or `-o FILE`), which `heapql run` prints only if the recipe finishes; `print` goes to stderr. Outside `heapql run` it writes to stdout at once."),
      fn("short_name", { { name = "frame", type = "string" } }, { { type = "string" } },
        "A frame as tables and HTML show it unless `--full-names`: template arguments collapsed to `<…>` and the parameter list dropped (`std::vector<…>::push_back`); the module is kept."),
      fn("format_bytes", { { name = "bytes", type = "integer" } }, { { type = "string" } },
        "A size as the tables show it: decimal units with two decimals (`256 B`, `1.02 KB`, `10.49 MB`); a negative size (an impacting size can be) gets a `-` (`-1.02 KB`)."),
      fn("format_duration", { { name = "ns", type = "integer" } }, { { type = "string" } },
        "A duration in nanoseconds as the tables show it (`250us`, `443ms`, `1.5s`, `7200s`)."),
      fn("format_count", { { name = "n", type = "integer" } }, { { type = "string" } },
        "An exact integer with thousands separators (`20,000`, `-1,234`), for counts and exact byte figures in reports."),
      field("cull", "heapql.Cull", "Pattern sets for the `cull` and `require` query fields."),
      field("suppressions", "heapql.Suppressions", "LeakSanitizer suppression files, for the `suppressions` query field."),
      field("parse", "heapql.Parse", "The parsers of the little languages, for recipes that read their own inputs."),
      field("schema", "heapql.Schema", "The query fields and their validator, for tools (docs/recipes.md is generated from it)."),
    } },
  { name = "hq.cull", class = "heapql.Cull", access = "hq.cull.", probe = "hq.cull",
    doc = "Frame pattern sets. A set is an immutable, ordered list of distinct patterns (compared case-insensitively) that also says whether it holds the built-in default cull list. A set remembers the lists it was made of: reports (the HTML page's filters) name them rather than print its patterns, as `cull: defaults + shipped stl + 2 patterns` (the defaults alone are not shown, as on the command line).",
    members = {
      field("defaults", "heapql.PatternSet",
        "The built-in allocator cull list (docs/default-cull-list.md), flagged as holding the defaults."),
      field("none", "heapql.PatternSet", "The empty set: `cull = hq.cull.none` culls nothing at all."),
      fn("set", { { name = "patterns", type = "heapql.Patterns" } }, { { type = "heapql.PatternSet" } },
        "A set from a pattern, a list of patterns and sets, or a set (returned as it is). Every pattern is checked; the error names the bad item. The result holds the defaults if one of the sets in the list does."),
      fn("file", { { name = "path", type = "string" } }, { { type = "heapql.PatternSet" } },
        "The patterns of a cull list file, relative to the recipe's folder: one pattern per line, white space trimmed, blank lines and lines starting with `#` ignored. Errors name the file and line. The set does not hold the defaults."),
      fn("shipped", { { name = "name", type = "string" } }, { { type = "heapql.PatternSet" } },
        "The patterns of a cull list heapql ships, by name (`\"libc-linux\"`, `\"stl\"`, `\"crt-windows\"`: queries/cull/NAME.txt), the same from any folder a recipe is in."),
    } },
  { name = "hq.suppressions", class = "heapql.Suppressions", access = "hq.suppressions.", probe = "hq.suppressions",
    doc = "Leak suppressions in LeakSanitizer's format (semantics §11), as lists of patterns for the `suppressions` query field.",
    members = {
      fn("file", { { name = "path", type = "string" } }, { { type = "string[]" } },
        "The patterns of a suppressions file, relative to the recipe's folder: its `leak:PATTERN` lines, trimmed; `#` comments and blank lines skipped; other lines ignored with a warning. An empty pattern is an error naming the file and line."),
      fn("shipped", { { name = "name", type = "string" } }, { { type = "string[]" } },
        "The patterns of a suppressions file heapql ships, by name (`\"heaptrack-builtin\"`: queries/suppressions/NAME.txt, heaptrack 1.4.0's built-in list)."),
    } },
  { name = "hq.parse", class = "heapql.Parse", access = "hq.parse.", probe = "hq.parse",
    doc = "Parsers of the little languages that query fields and params use. Each returns the value, or nil and a message quoting the text and its column; none raises on bad text.",
    members = {
      fn("duration", { { name = "text", type = "string" } }, { { type = "integer?", name = "ns" }, parse_error },
        "A duration (`250ms`, `1.5s`; units ns us ms s m h, any case) in nanoseconds, exactly."),
      fn("size", { { name = "text", type = "string" } }, { { type = "integer?", name = "bytes" }, parse_error },
        "A size in bytes (`4096`, `4KB` = 4000, `4KiB` = 4096, `1.5MB`); a fraction must come out whole."),
      fn("duration_range", { { name = "text", type = "string" } }, { { type = "heapql.Range?" }, parse_error },
        "A time range (`10s..20s`, `..5m`, `2s..`, `2s..end`, `all`) as {first = ns, last = ns}, `last` nil when open."),
      fn("size_range", { { name = "text", type = "string" } }, { { type = "heapql.Range?" }, parse_error },
        "A size range (`4KB..1MiB`, `64..`, `..1KB`, `all`) as {first = bytes, last = bytes}, `last` nil when open."),
      fn("frame_pattern", { { name = "text", type = "string" } }, { { type = "string?", name = "pattern" }, parse_error },
        "Checks a frame pattern (`module!symbol`, `module!`, `symbol`, with `*` and `?`) and returns it unchanged."),
    } },
  { name = "hq.schema", class = "heapql.Schema", access = "hq.schema.", probe = "hq.schema",
    doc = "The query fields, for tools.",
    members = {
      field("fields", "heapql.SchemaField[]", "Every query field in order, with its name, type, default and doc as docs/recipes.md shows them."),
      fn("normalize", { { name = "query", type = "heapql.Query" }, { name = "where", type = "string", optional = true } },
        { { type = "table" } },
        "Checks a query table and returns the engine's form of it, which trace:query_normalized takes. Raises a message that starts with `where` (default `query`) and names the field, what it expects and what it got; an unknown field gets a list of the fields."),
      fn("field_list", {}, { { type = "string" } }, "The names of the fields a recipe may set, separated by commas."),
      fn("recipe_fields", {}, { { type = "heapql.SchemaField[]" } },
        "The fields a recipe may set: all but those only the command line sets (files it names for the engine to read)."),
      fn("flags", {}, { { type = "heapql.SchemaFlag[]" } },
        "The command-line options that set query fields, in the fields' order (`heapql query`, `import`, `diff`)."),
      fn("flag_query", { { name = "given", type = "string[][]" }, { name = "where", type = "string" } }, { { type = "table" } },
        "The query table command-line options spell, given as {option, value} pairs in order (no value for a switch), not yet checked: each value as typed, a list for a repeatable option, true or false for a switch (what `--format recipe` writes)."),
      fn("from_flags", { { name = "given", type = "string[][]" }, { name = "where", type = "string" } }, { { type = "table" } },
        "The engine's form of the query that command-line options spell, given as {option, value} pairs in order (no value for a switch): checked as normalize checks a recipe's table, with messages that name the option."),
      fn("usage", {}, { { type = "string" } }, "The query options of `heapql help`, a line each."),
      fn("options_markdown", {}, { { type = "string" } }, "docs/cli.md's table of query options."),
    } },
  { name = "trace", class = "heapql.Trace", access = "trace:", probe = "trace",
    doc = "An open trace: the one a `run` recipe gets, or one from hq.open.",
    members = {
      method("query", { { name = "query", type = "heapql.Query" } }, { { type = "heapql.Result" } },
        "Answers a query (the query fields, as a recipe's `query` returns them): one pass over the trace's blocks in the engine. A bad field raises an error naming it."),
      method("query_normalized", { { name = "query", type = "table" } }, { { type = "heapql.Result" } }),
      method("source", {}, { { type = "heapql.Source" } }),
      method("summary", {}, { { type = "heapql.Summary" } }),
      method("path", {}, { { type = "string" } }),
    } },
  { name = "result", class = "heapql.Result", access = "result:", probe = "result",
    doc = "The answer to a query. Its methods build new Lua tables or text each time they are called.",
    members = {
      method("rows", {}, { { type = "heapql.Row[]" } }),
      method("each", {}, { { type = "fun(): integer?, heapql.Row?" } }),
      method("totals", {}, { { type = "heapql.Measures" } }),
      method("other", {}, { { type = "heapql.Other?" } }),
      method("peak", {}, { { type = "heapql.Peak" } }),
      method("series", {}, { { type = "heapql.Series?" } }),
      method("info", {}, { { type = "heapql.Info" } }),
      method("table", {}, { { type = "string" } }),
      method("json", {}, { { type = "string" } }),
      method("csv", {}, { { type = "string" } }),
      method("html", {}, { { type = "string" } }),
      method("tree", { tree_options }, { { type = "heapql.TreeNode" } }),
      method("tree_text", { tree_options }, { { type = "string" } }),
      method("tree_json", { tree_options }, { { type = "string" } }),
      method("with_columns", { { name = "names", type = "string[]" }, { name = "values", type = "string[][]" } },
        { { type = "heapql.Result" } }),
      method("trace", {}, { { type = "heapql.Trace" } }),
    } },
  { name = "diff", class = "heapql.Diff", access = "diff:", probe = "diff",
    doc = "A diff of two results (hq.diff). Its methods build new Lua tables or text each time they are called.",
    members = {
      method("rows", {}, { { type = "table[]" } }),
      method("each", {}, { { type = "fun(): integer?, table?" } }),
      method("totals", {}, { { type = "table" } }),
      method("other", {}, { { type = "table?" } }),
      method("table", {}, { { type = "string" } }),
      method("json", {}, { { type = "string" } }),
      method("csv", {}, { { type = "string" } }),
      method("folded", {}, { { type = "string" } }),
      method("html", {}, { { type = "string" } }),
    } },
  { name = "out", class = "heapql.Output", access = "out:", probe = "out",
    doc = "A report writer (hq.output, or the `out` a recipe's `report` and `run` get). Everything goes to the run's report.",
    members = {
      field("format", "heapql.Format", "The output's format: for a recipe, the run's `--format`."),
      method("write", { { name = "...", type = "any" } }, {},
        "Writes each argument (through tostring), with nothing between them and no newline."),
      method("line", { { name = "fmt", type = "string" }, { name = "...", type = "any" } }, {},
        "Writes string.format(fmt, ...) and a newline."),
      method("result", { { name = "result", type = "heapql.Result" } }, {},
        "Writes the result in the output's format: the table, the JSON, the CSV or the HTML page."),
      method("table", { { name = "result", type = "heapql.Result" }, { name = "opts", type = "{columns: heapql.Columns?}", optional = true } }, {},
        "Writes the result's table whatever the format; `opts.columns` adds derived columns first (as hq.with_columns)."),
      method("json", { { name = "result", type = "heapql.Result" } }, {}, "Writes the result's JSON."),
      method("csv", { { name = "result", type = "heapql.Result" } }, {}, "Writes the result's CSV."),
      method("html", { { name = "result", type = "heapql.Result" } }, {},
        "Writes the result's HTML page (one page a run: the file holds nothing else)."),
      method("tree", { { name = "result", type = "heapql.Result" }, tree_options }, {},
        "Writes the stack tree as text. In a query recipe the query's `tree` field gives the defaults, which `opts` overrides."),
    } },
  { name = "set", class = "heapql.PatternSet", access = "set:", probe = "set",
    doc = "A pattern set (from `hq.cull`). Sets never change: `+` and `-` make new ones.",
    members = {
      field("includes_defaults", "boolean", "Whether the set holds the built-in default cull list."),
      method("texts", {}, { { type = "string[]" } }, "The patterns, in order (a copy)."),
      method("contains", { { name = "text", type = "string" } }, { { type = "boolean" } },
        "Whether the set holds this pattern text (compared case-insensitively, as duplicates are)."),
    },
    operators = {
      { name = "a + b", metamethod = "__add", luals = "add(heapql.Patterns): heapql.PatternSet",
        doc = "Union: a's patterns, then b's that a lacks; holds the defaults if either side does. Either side may be a pattern or a list." },
      { name = "a - b", metamethod = "__sub", luals = "sub(heapql.Patterns): heapql.PatternSet",
        doc = "Difference: a without b's patterns (compared trimmed and case-insensitively). The result is the explicit list it holds: it never counts as holding the defaults." },
      { name = "#set", metamethod = "__len", luals = "len: integer", doc = "The number of patterns." },
      { name = "a == b", metamethod = "__eq", doc = "The same patterns (in any order) and the same defaults flag; a plain list never equals a set." },
      { name = "tostring(set)", metamethod = "__tostring", doc = "`PatternSet(2: \"a\", \"b\")`, saying `includes defaults` when it does." },
    } },
  { name = "heapql.core", class = "heapql.core", access = "core.", probe = "core", internal = true,
    doc = 'The C side that the module is built on (`require "heapql.core"`). It is heapql\'s own: the heapql module gets it from its loader, and a recipe cannot require it. Recipes use hq instead.',
    members = {
      fn("open", { { name = "path", type = "string" }, { name = "options", type = "table", optional = true } }, { { type = "heapql.Trace" } }, "hq.open."),
      fn("read_text", { { name = "path", type = "string" } }, { { type = "string" } },
        "A whole file (at most 64 MiB), under the sandbox's read rules."),
      fn("default_cull", {}, { { type = "string[]" } }, "The built-in cull list's patterns."),
      field("sandbox", "table", "What a recipe's sandbox grants and refuses, as lists of names (libraries, modules, private, replaced, removed, left_out, collectgarbage) and most_step_kib: the table sandbox.cpp builds the environment and its messages from, which docs/recipes.md's sandbox section lists."),
      field("version", "string", "heapql's version (hq.version): the project version CMakeLists.txt declares, which `heapql --version` prints too."),
      field("grammar", "table", "The engine's parsers of durations, sizes, their ranges, frame patterns and cull list files (grammar_binding.cpp), which heapql.grammar parses with: each returns the value, or nil and the message."),
      fn("suppression_patterns", { { name = "text", type = "string" }, { name = "name", type = "string" } }, { { type = "string[]" } },
        "The patterns of a suppressions file's text (`name` locates errors and warnings)."),
      fn("write", { { name = "text", type = "string" } }, {}, "Appends text to the report."),
      fn("fail_gate", { { name = "message", type = "string" } }, {}, "Records a failed gate."),
      fn("gate_count", {}, { { type = "integer" } }, "How many gates have failed."),
      fn("diff", { { name = "a", type = "heapql.Result" }, { name = "b", type = "heapql.Result" }, { name = "options", type = "table", optional = true } }, { { type = "heapql.Diff" } }, "hq.diff."),
      fn("short_name", { { name = "frame", type = "string" } }, { { type = "string" } }, "hq.short_name."),
      fn("format_bytes", { { name = "bytes", type = "integer" } }, { { type = "string" } }, "hq.format_bytes."),
      fn("format_duration", { { name = "ns", type = "integer" } }, { { type = "string" } }, "hq.format_duration."),
      fn("recipe_dir", {}, { { type = "string?" } }, "The running recipe's folder (nil outside `heapql run`)."),
      fn("is_absolute", { { name = "path", type = "string" } }, { { type = "boolean" } },
        "Whether a path names its own place (`/x`; on Windows also `C:\\x`, `\\x`, `\\\\server\\x`, and the "
          .. "forms the sandbox refuses, such as `C:x`), so hq.cull.file, hq.suppressions.file and hq.include do not "
          .. "read it beside the recipe."),
      fn("queries_dir", {}, { { type = "string" } }, "The shipped queries/ folder (heapql list's)."),
      fn("trace_methods", {}, { { type = "table" } },
        "The method table every trace shares (the module adds `query` to it)."),
    } },
}

api.data = {
  { class = "heapql.Measures", doc = "The measures of a row, of other or of the totals (docs/semantics.md §3, §7).",
    fields = {
      { name = "so", type = "integer", doc = "Outstanding size: bytes of the blocks still allocated at the window's end." },
      { name = "soc", type = "integer", doc = "Outstanding count." },
      { name = "st", type = "integer", doc = "Total size: bytes of all the blocks." },
      { name = "stc", type = "integer", doc = "Total count." },
      { name = "src", type = "integer", optional = true, doc = "Realloc count; absent when the source does not mark reallocs (heaptrack)." },
      { name = "count", type = "integer", optional = true, doc = "With impacting types: blocks of the whole impacting set." },
      { name = "size", type = "integer", optional = true, doc = "With impacting types: their bytes." },
      { name = "impacting", type = "integer", optional = true, doc = "With impacting types: impacting size, AIFO size minus AOFI size (signed)." },
    } },
  { class = "heapql.Row", parent = "heapql.Measures", doc = "A row of result:rows(): its measures and its key.",
    fields = {
      { name = "key", type = "(string|string[])[]", doc = "One entry per `by` level, outermost first: text, or the frames of a stack (top first)." },
      { name = "stack", type = "string[]", optional = true, doc = "With `by` stack: the culled stack's frames, top first." },
      { name = "frame", type = "string", optional = true, doc = "With `by` frame: the top frame." },
      { name = "image", type = "string", optional = true, doc = "With `by` image: the top frame's module." },
      { name = "process", type = "string", optional = true, doc = "With `by` process: `name (pid)`." },
      { name = "heap", type = "string", optional = true, doc = "With `by` heap." },
      { name = "kind", type = "string", optional = true, doc = "With `by` kind: `heap` or `virtual`." },
      { name = "thread", type = "string", optional = true, doc = "With `by` thread: its id." },
      { name = "impacting_type", type = "string", optional = true, doc = "With `by` impacting: the row's impacting type (`AIFI`, `AIFO`, `AOFI` or `AOFO`); `impacting` stays the impacting-size measure." },
      { name = "custom", type = "string", optional = true, doc = "With a `by` function: the key it returned (as text)." },
    } },
  { class = "heapql.Other", parent = "heapql.Measures", doc = "result:other(): the rows beyond `top`, summed.",
    fields = {
      { name = "rows", type = "integer", doc = "How many rows were summed." },
    } },
  { class = "heapql.Peak", doc = "A peak of outstanding size.",
    fields = {
      { name = "bytes", type = "integer", doc = "Outstanding bytes at the peak." },
      { name = "blocks", type = "integer", doc = "Blocks alive at the peak." },
      { name = "time_ns", type = "integer", doc = "When: nanoseconds since the trace's start." },
    } },
  { class = "heapql.Series", doc = "result:series(): outstanding size over time.",
    fields = {
      { name = "start_ns", type = "integer", doc = "Start of the first bucket." },
      { name = "bucket_ns", type = "integer", doc = "Width of every bucket." },
      { name = "max_bytes", type = "integer[]", doc = "The largest outstanding size in each bucket." },
    } },
  { class = "heapql.Info", doc = "result:info(): the query as the engine read it, and the source.",
    fields = {
      { name = "by", type = "string[]", doc = "The grouping levels (`custom` for a `by` function)." },
      { name = "sort", type = "heapql.SortKey", doc = "What the rows are ranked by." },
      { name = "top", type = "integer", doc = "Rows asked for." },
      { name = "window_start_ns", type = "integer", doc = "The window's start." },
      { name = "window_end_ns", type = "integer", optional = true, doc = "The window's end; absent when open." },
      { name = "trace_end_ns", type = "integer", doc = "The trace's last timestamp." },
      { name = "realloc_known", type = "boolean", doc = "Whether `src` is known." },
      { name = "impacting_measures", type = "boolean", doc = "Whether rows carry count, size and impacting." },
      { name = "block_identity", type = "string", doc = "`exact` (addresses known) or `bucket-lifo` (frees attributed, semantics §1)." },
      { name = "trace", type = "string", doc = "The trace's path." },
      { name = "excluded_blocks", type = "integer", doc = "Blocks allocated in the window that the filters removed." },
      { name = "excluded_bytes", type = "integer", doc = "Their bytes." },
      { name = "temporary_blocks", type = "integer", doc = "Temporary blocks among those counted." },
    } },
  { class = "heapql.Source", doc = "trace:source(): the source's own facts, known without a query (trace:summary() has them too).",
    fields = source_fields },
  { class = "heapql.Summary", doc = "trace:summary(): the source's facts (as trace:source() gives them) and what the trace holds.",
    fields = with_source_fields {
      { name = "blocks", type = "integer", doc = "Allocations." },
      { name = "frees", type = "integer", doc = "Frees." },
      { name = "unique_stacks", type = "integer", doc = "Distinct stacks." },
      { name = "unique_frames", type = "integer", doc = "Distinct frames." },
      { name = "processes", type = "integer", doc = "Processes." },
      { name = "heaps", type = "integer", doc = "Heaps." },
      { name = "total_allocated_bytes", type = "integer", doc = "Bytes allocated in all." },
      { name = "leaked_bytes", type = "integer", doc = "Bytes never freed." },
      { name = "leaked_blocks", type = "integer", doc = "Blocks never freed." },
      { name = "temporary", type = "integer", doc = "Temporary blocks (semantics §8)." },
      { name = "peak", type = "heapql.Peak", doc = "The whole trace's peak." },
    } },
  { class = "heapql.TreeNode", doc = "A node of result:tree().",
    fields = {
      { name = "label", type = "string", doc = "A frame, an outer level's key, or a bracketed marker (`[total]`, `[other: N more rows]`)." },
      { name = "inclusive", type = "heapql.Measures", doc = "All rows through this node." },
      { name = "self", type = "heapql.Measures", doc = "Rows whose path ends here." },
      { name = "pruned", type = "integer", doc = "Children dropped below the threshold (their totals stay in `inclusive`)." },
      { name = "children", type = "heapql.TreeNode[]", doc = "By the measure, descending." },
    } },
  { class = "heapql.TreeOptions", doc = "Options of the stack tree: the query's `tree` field, and the `opts` of result:tree, result:tree_text, result:tree_json and out:tree.",
    fields = {
      { name = "direction", type = '"top-down"|"bottom-up"', optional = true, doc = "`top-down` (callers first, the default) or `bottom-up`." },
      { name = "threshold", type = "number", optional = true, doc = "Drop nodes under this fraction of the root (default 0.01; 0 keeps all)." },
      { name = "depth", type = "integer", optional = true, doc = "Deepest level shown (default 0: unlimited)." },
      { name = "measure", type = "heapql.Measure", optional = true, doc = "What sorts and prunes (default: the query's sort, or so where that is impacting)." },
    } },
  { class = "heapql.Range", doc = "A range [first, last): nanoseconds or bytes.",
    fields = {
      { name = "first", type = "integer", doc = "The start (included)." },
      { name = "last", type = "integer", optional = true, doc = "The end (excluded); nil when open." },
    } },
  { class = "heapql.SchemaField", doc = "An entry of hq.schema.fields.",
    fields = {
      { name = "name", type = "string", doc = "The field's name." },
      { name = "type", type = "string", doc = "Its type, as the docs show it." },
      { name = "default", type = "string", doc = "Its default, as the docs show it." },
      { name = "doc", type = "string", doc = "What it means." },
      { name = "normalize", type = "fun(value: any, out: table, query: table)", doc = "Writes the engine's form of the value into `out`." },
      { name = "flag", type = "table", optional = true, doc = "The command-line option that sets it: {option, value placeholder (none for a switch), repeatable, set (a switch's value), help, doc}." },
      { name = "command_line_only", type = "boolean", optional = true, doc = "Only the command line sets it (a file for the engine to read); recipes read their files themselves." },
      { name = "choices", type = "string[]", optional = true, doc = "The values it takes, when a fixed list (`by`, `sort`, `kind`, `impacting`): its check and help are made from it." },
    } },
  { class = "heapql.SchemaFlag", doc = "An entry of hq.schema.flags().",
    fields = {
      { name = "option", type = "string", doc = "The option, such as `--window`." },
      { name = "value", type = "string", optional = true, doc = "Its value's placeholder, such as `A..B`; nil for a switch." },
      { name = "field", type = "string", doc = "The query field it sets." },
      { name = "repeatable", type = "boolean", doc = "Whether each use adds to a list (otherwise the last use counts)." },
      { name = "set", type = "boolean", doc = "The value a switch sets its field to (true, or false for `--no-default-cull`)." },
      { name = "help", type = "string", doc = "Its line in `heapql help`." },
      { name = "doc", type = "string", doc = "Its longer text in docs/cli.md's table of query options." },
      { name = "choices", type = "string[]", optional = true,
        doc = "The values it takes, when the field declares a fixed list (`--by`, `--sort`, `--kind`, `--impacting`)." },
      { name = "default", type = "string", optional = true,
        doc = "The value it has when left out, as the command line writes it (`stack`, `10000`); nil for a switch and where no value says it." },
    } },
}

return api
