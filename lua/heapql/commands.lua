-- heapql.commands: the one definition of heapql's command line. Every
-- command, its arguments, its options (name, value placeholder, doc) and a
-- line saying what it does. Made from it: `heapql help`, `heapql help
-- COMMAND`, the options each command's parser accepts (lua/host/
-- command_definitions.cpp refuses any other as unknown) and docs/cli.md's
-- synopsis (lua/tools/gen_cli_doc.lua). The query options come from
-- heapql.schema, the one definition of a query.
local schema = require "heapql.schema"

local commands = {}

local WIDTH = 100      -- of every line of help
local NAME_COLUMN = 6  -- the longest command name: the arguments line up after it

-- An option: { "--name", "VALUE" or nil, "doc", aliases = {...}, repeatable = bool,
-- in_args = bool (the synopsis shows it among the command's arguments),
-- group = "output" | "reading" | nil (the command's own; `describe` says "command") }.
local function option(spec)
  return { name = spec[1], value = spec[2], doc = spec[3], aliases = spec.aliases or {},
           repeatable = spec.repeatable or false, in_args = spec.in_args or false, group = spec.group }
end

local function format(values)
  return option { "--format", values, "the report's format (docs/reports.md; default table)", group = "output" }
end

local OUTPUT = option { "-o", "FILE", "write the report to FILE, not standard output", aliases = { "--output" },
                        group = "output" }
local FULL_NAMES = option { "--full-names", nil, "tables and HTML show frames exactly, not shortened (std::vector<…>::push_back)",
                            group = "output" }
local LISTING_FORMAT = option { "--format", "text|json", "text (default), or JSON for programs (docs/json.md)",
                                group = "output" }
local RECIPES = option { "--recipes", "DIR", "also find recipes by name in DIR (before the shipped ones)" }
local NO_PROGRESS = option { "--no-progress", nil, "no progress bar", group = "reading" }
local NO_RAW = option { "--no-raw", nil, "ignore a raw twin: read the interpreted file alone", group = "reading" }
local STRICT = option { "--strict", nil,
  "refuse a trace that ends early (a killed recording) or has an anomaly (exit 2) instead of answering with a warning",
  group = "reading" }
local STORE = option { "--store", nil, "load the trace into the store and replay it (same answers)", group = "reading" }
local NO_STORE = option { "--no-store", nil, "read the trace itself, not a store file of it", group = "reading" }
local SYMBOLS = option { "--symbols", "PATH", "ETL: a folder of PDBs or a symbol store; docs/symbols.md",
  repeatable = true, group = "reading" }

local PARAM = option { "--param", "NAME=VALUE", "set a recipe param (converted by its declared type)", repeatable = true }
local TIMEOUT = option { "--timeout", "DURATION", "bound the recipe's wall time (default 60s; 0: no limit)" }
local MEMORY = option { "--memory", "SIZE", "bound the bytes the recipe allocates, Lua's and the engine's (default 4GiB)" }
local TRUSTED = option { "--trusted", nil, "open the full Lua standard library to the recipe" }
local VERBOSE = option { "--verbose", nil, "a recipe error adds the Lua traceback" }

-- How a trace is read, for every command that reads one.
local READING = { NO_PROGRESS, NO_RAW, STRICT, STORE, NO_STORE, SYMBOLS }

local function join(...)
  local all = {}
  for _, list in ipairs { ... } do
    for _, o in ipairs(list) do all[#all + 1] = o end
  end
  return all
end

-- In the order `heapql help` lists them. `query_options`: the schema's query
-- options are accepted too (shown as "[query options]").
commands.list = {
  { name = "query", args = "TRACE|STORE", query_options = true,
    doc = "answer one query on a trace: its stacks (or frames, modules, ...) by outstanding bytes",
    options = join({ format("table|json|csv|html|folded|pprof|recipe"), OUTPUT, FULL_NAMES }, READING) },
  { name = "import", args = "EVENTS.csv", query_options = true,
    doc = "a query of a plain event CSV, read as one whatever its first bytes say (docs/import.md)",
    options = join({ format("table|json|csv|html|folded|pprof|recipe"), OUTPUT, FULL_NAMES }, READING) },
  { name = "diff", args = "A B", query_options = true,
    doc = "the same query on two traces (or two windows of one), rows matched, B - A",
    options = join({ option { "--window-a", "A..B", "A's window (--window gives both the same)" },
                     option { "--window-b", "A..B", "B's window; with both, one trace may be given" },
                     format("table|json|csv|html|folded"), OUTPUT, FULL_NAMES }, READING) },
  { name = "info", args = "TRACE|STORE",
    doc = "the trace summary: allocations, frees, leaked, peak, what the source can tell",
    options = join({ format("table|json"),
                     option { "--load", nil, "also load the trace into the event store and report its size" },
                     OUTPUT }, READING) },
  { name = "ingest", args = "TRACE",
    doc = "read the trace once into its store file (docs/store.md); later commands answer from it",
    options = { option { "-o", "FILE.hqdb", "write the store to FILE.hqdb, not beside the trace", aliases = { "--output" } },
                NO_PROGRESS, NO_RAW, STRICT, SYMBOLS } },
  { name = "export", args = "TRACE|STORE --to sqlite FILE.db | --to csv DIR | --to jsonl DIR",
    doc = "the trace's tables for SQL engines and data frames (docs/export.md)",
    options = join({ option { "--to", "sqlite|csv|jsonl", "the target: an SQLite file, or a folder of CSV or JSON-lines files",
                              in_args = true } },
                   READING) },
  { name = "run", args = "RECIPE TRACE",
    doc = "run a recipe (a .lua file or a shipped one's name) on a trace",
    options = { PARAM, RECIPES, format("table|json|csv|html"), OUTPUT, TIMEOUT, MEMORY, TRUSTED, VERBOSE, FULL_NAMES,
                NO_PROGRESS, NO_RAW, STRICT, NO_STORE, SYMBOLS } },
  { name = "list",
    doc = "the recipes (shipped, and in --recipes DIR), one line each",
    options = { RECIPES, LISTING_FORMAT, TRUSTED, VERBOSE, TIMEOUT, MEMORY } },
  { name = "help", args = "[COMMAND|RECIPE]",
    doc = "this text; a command's options; a recipe's params, defaults and report",
    -- A recipe's top level runs for its help, under the same limits as `run`.
    options = { RECIPES, LISTING_FORMAT, TIMEOUT, MEMORY, TRUSTED, VERBOSE } },
  { name = "xperf", args = "XPERF-HEAP-FLAGS...",
    doc = "print (or --run) the recipe equivalent to xperf -a heap flags",
    options = { option { "--run", "TRACE", "run the recipe on TRACE instead of printing it" },
                format("table|json|csv|html"), OUTPUT, TIMEOUT, MEMORY, TRUSTED, VERBOSE, FULL_NAMES, NO_PROGRESS,
                NO_RAW, STRICT, NO_STORE, SYMBOLS } },
  { name = "serve", args = "TRACE... | --record [-o NAME]", args_after = "[-- PROGRAM [ARGS...]]",
    doc = "serve the traces to the browser: an app and an HTTP API answered by these commands (docs/serve.md; not on Windows); "
       .. "a recording in progress is shown as it grows",
    options = { option { "--record", nil, "record PROGRAM (heapql record) and serve the recording while it runs",
                         in_args = true },
                option { "-o", "NAME", "with --record: name the recording NAME.zst (default heaptrack.PROGRAM.PID)",
                         aliases = { "--output" }, in_args = true },
                option { "--port", "N", "the port to listen on (default 0: a free one)" },
                option { "--bind", "ADDR", "the address to listen on (default 127.0.0.1: this machine only)" },
                option { "--recipes", "DIR", "also serve DIR's recipes (DIR/NAME.lua) and lists (DIR/cull, DIR/suppressions)" },
                option { "--timeout", "DURATION", "bound each request's wall time (default 60s; 0: no limit)" },
                option { "--memory", "SIZE", "bound the bytes each request allocates, and its answer (default 4GiB)" },
                option { "--jobs", "N", "requests answered at once; more wait in line (default 2)" },
                NO_PROGRESS, NO_RAW, STRICT, SYMBOLS } },
  { name = "record", args_after = "-- PROGRAM [ARGS...]",
    doc = "record PROGRAM with heaptrack, symbolizing and ingesting it as it runs: NAME.zst, NAME.zst.hqid and the "
      .. "store NAME.zst.hqdb (needs heaptrack); on Windows: print WPR's commands",
    options = { option { "-o", "NAME", "name the recording NAME.zst (default heaptrack.PROGRAM.PID)",
                         aliases = { "--output" } },
                option { "--keep-raw", nil, "also keep heaptrack's raw recording, NAME.raw.zst" },
                option { "--pid", "PID", "record a running process instead, attaching with gdb (as heaptrack -p); "
                  .. "Ctrl-C stops the recording" } } },
  { name = "top", args = "TRACE | [-o NAME]", args_after = "[-- PROGRAM [ARGS...]]",
    doc = "a terminal view of a recording in progress, its top stacks asked again every second until it ends; "
       .. "with a PROGRAM, records it first (heapql record)",
    options = { option { "-o", "NAME", "with a PROGRAM: name the recording NAME.zst (default heaptrack.PROGRAM.PID)",
                         aliases = { "--output" }, in_args = true },
                option { "--top", "N", "the stacks shown (default 10)" },
                option { "--interval", "DURATION", "between two views (default 1s; at least 100ms)" } } },
}

local by_name = {}
for _, command in ipairs(commands.list) do by_name[command.name] = command end

-- The command named `name`, or nil.
function commands.find(name) return by_name[name] end


local function option_words(o)
  return o.value and (o.name .. " " .. o.value) or o.name
end

-- `heapql NAME ARGS [options]`, wrapped at WIDTH, later lines indented under ARGS.
local function synopsis_lines(command)
  local words = {}
  if command.args then words[#words + 1] = command.args end
  if command.query_options then words[#words + 1] = "[query options]" end
  for _, o in ipairs(command.options) do
    if not o.in_args then words[#words + 1] = "[" .. option_words(o) .. "]" .. (o.repeatable and "..." or "") end
  end
  if command.args_after then words[#words + 1] = command.args_after end
  local head = string.format("heapql %-" .. NAME_COLUMN .. "s ", command.name)
  local indent = string.rep(" ", #head)
  local lines, line = {}, head
  for _, word in ipairs(words) do
    if #line > #indent and utf8.len(line) + 1 + #word > WIDTH then
      lines[#lines + 1] = line
      line = indent .. word
    else
      line = line .. ((line == head) and "" or " ") .. word
    end
  end
  lines[#lines + 1] = line:gsub("%s+$", "")
  return lines
end

local function all_synopses(prefix)
  local lines = {}
  for _, command in ipairs(commands.list) do
    for _, line in ipairs(synopsis_lines(command)) do lines[#lines + 1] = prefix .. line end
  end
  lines[#lines + 1] = prefix .. "heapql --version"
  return lines
end

-- docs/cli.md's synopsis (lua/tools/gen_cli_doc.lua): every command's line.
function commands.synopsis_markdown()
  return "```\n" .. table.concat(all_synopses(""), "\n") .. "\n```\n"
end

-- `text`'s words in lines of at most `room` columns.
local function wrapped(text, room)
  local lines, line = {}, ""
  for word in text:gmatch("%S+") do
    if line ~= "" and utf8.len(line) + 1 + utf8.len(word) > room then
      lines[#lines + 1] = line
      line = word
    else
      line = line == "" and word or (line .. " " .. word)
    end
  end
  lines[#lines + 1] = line
  return lines
end

local DOC_COLUMN = 23  -- where an option's doc starts

-- "  -o, --output FILE    doc", the doc wrapped at WIDTH under itself.
local function option_lines(options)
  local lines = {}
  for _, o in ipairs(options) do
    local names = { o.name }
    for _, alias in ipairs(o.aliases) do names[#names + 1] = alias end
    local words = "  " .. table.concat(names, ", ") .. (o.value and (" " .. o.value) or "")
    local doc = wrapped(o.doc .. (o.repeatable and " (repeatable)" or ""), WIDTH - DOC_COLUMN)
    if utf8.len(words) < DOC_COLUMN - 1 then
      doc[1] = words .. string.rep(" ", DOC_COLUMN - utf8.len(words)) .. doc[1]
    else
      lines[#lines + 1] = words
      doc[1] = string.rep(" ", DOC_COLUMN) .. doc[1]
    end
    for i = 2, #doc do doc[i] = string.rep(" ", DOC_COLUMN) .. doc[i] end
    lines[#lines + 1] = table.concat(doc, "\n")
  end
  return table.concat(lines, "\n") .. "\n"
end

local TRACE_AND_RECIPE = [[
TRACE is a heaptrack file (.zst, .gz, plain, with its raw twin), an ETW .etl file, an event CSV,
or a store file (.hqdb) written by heapql ingest. A trace with a fresh store beside it
(TRACE.hqdb) is answered from the store.
RECIPE is a .lua file or the name of a shipped recipe (heapql list).
]]

local EXIT_CODES = [[
exit codes: 0 ok, 1 a recipe's gate failed, 2 unreadable trace or unwritable output (or, on
            Windows, record and serve, which run only on Linux), 3 bad query, options or recipe
            (including its time or memory limit), 4 recording failed; a closed pipe
            (heapql query ... | head) ends heapql quietly with 141, as it does cat
]]

local QUERY_OPTIONS_HEAD = "query options (semantics in docs/semantics.md):\n"

-- `heapql help`: every command's synopsis and what it does, the query
-- options, and the options of reading and output most commands share.
function commands.usage()
  local parts = { "heapql - ask heap traces where the memory went\n\nusage:\n" }
  for _, command in ipairs(commands.list) do
    local lines = synopsis_lines(command)
    for i, line in ipairs(lines) do lines[i] = "  " .. line end
    parts[#parts + 1] = table.concat(lines, "\n") .. "\n"
    parts[#parts + 1] = string.rep(" ", NAME_COLUMN + 10) .. command.doc .. "\n"
  end
  parts[#parts + 1] = "  heapql --version\n\n"
  parts[#parts + 1] = TRACE_AND_RECIPE .. "heapql help COMMAND lists a command's options.\n\n"
  parts[#parts + 1] = QUERY_OPTIONS_HEAD .. schema.usage() .. "\n"
  parts[#parts + 1] = "reading and output options:\n"
    .. option_lines(join({ format("table|json|csv|html|folded|pprof"), OUTPUT, FULL_NAMES }, READING)) .. "\n"
  parts[#parts + 1] = EXIT_CODES
  return table.concat(parts)
end

-- `heapql help NAME`: the command's synopsis, what it does and every option
-- it takes; nil when NAME is not a command.
function commands.help(name)
  local command = by_name[name]
  if not command then return nil end
  local parts = { "usage:\n" }
  for _, line in ipairs(synopsis_lines(command)) do parts[#parts + 1] = "  " .. line .. "\n" end
  parts[#parts + 1] = "\n" .. command.doc .. "\n"
  if #command.options > 0 then parts[#parts + 1] = "\noptions:\n" .. option_lines(command.options) end
  if command.query_options then parts[#parts + 1] = "\n" .. QUERY_OPTIONS_HEAD .. schema.usage() end
  parts[#parts + 1] = "\ndocs/cli.md says more.\n" .. EXIT_CODES
  return table.concat(parts)
end

-- The values an option's placeholder lists ("table|json|csv"), or nil.
local function listed_choices(value)
  if not value or not value:match("^%l+|[%l|]*%l$") then return nil end
  local choices = {}
  for word in value:gmatch("[^|]+") do choices[#choices + 1] = word end
  return choices
end

-- `heapql help NAME --format json`'s options (docs/json.md): every option
-- the command takes, in help's order, the query options last, as plain
-- records {option, aliases, field (query options), value, repeatable, flag
-- (takes no value), help, doc, choices, default, group = "query" |
-- "output" | "reading" | "command"}; nil when NAME is no command.
function commands.describe(name)
  local command = by_name[name]
  if not command then return nil end
  local described = {}
  for _, o in ipairs(command.options) do
    local aliases = {}
    for i, alias in ipairs(o.aliases) do aliases[i] = alias end
    described[#described + 1] = { option = o.name, aliases = aliases, value = o.value, repeatable = o.repeatable,
                                  flag = o.value == nil, help = o.doc, doc = o.doc, choices = listed_choices(o.value),
                                  group = o.group or "command" }
  end
  if command.query_options then
    for _, flag in ipairs(schema.flags()) do
      described[#described + 1] = { option = flag.option, aliases = {}, field = flag.field, value = flag.value,
                                    repeatable = flag.repeatable, flag = flag.value == nil, help = flag.help,
                                    doc = flag.doc, choices = flag.choices, default = flag.default, group = "query" }
    end
  end
  return described
end

-- What a command's parser accepts: { {name, aliases, takes_value, repeatable}, ... },
-- the query options included where the command takes them.
function commands.accepted(name)
  local command = by_name[name]
  if not command then return nil end
  local accepted = {}
  for _, o in ipairs(command.options) do
    -- Copies: the module's own tables are frozen proxies in a sandbox, empty to a raw read.
    local aliases = {}
    for i, alias in ipairs(o.aliases) do aliases[i] = alias end
    accepted[#accepted + 1] = { name = o.name, aliases = aliases, takes_value = o.value ~= nil,
                                repeatable = o.repeatable }
  end
  if command.query_options then
    for _, flag in ipairs(schema.flags()) do
      accepted[#accepted + 1] = { name = flag.option, aliases = {}, takes_value = flag.value ~= nil,
                                  repeatable = flag.repeatable }
    end
  end
  return accepted
end

return commands
