-- Writes docs/cli.md's generated blocks, each between its two marker lines:
-- the synopsis from heapql.commands (the one definition of the command line)
-- and the table of query options from heapql.schema (the one definition of a
-- query):
--
--   lua5.4 -e 'package.cpath="build/?.so;"..package.cpath' lua/tools/gen_cli_doc.lua docs/cli.md
--
-- `require "tools.gen_cli_doc"` returns the generator without running it
-- (tests/lua/recipes_doc_test.lua checks that the page is current).
local MODULE_NAME = "tools.gen_cli_doc"
local required = (...) == MODULE_NAME

local M = {}

M.BEGIN = "<!-- query options: generated from lua/heapql/schema.lua by lua/tools/gen_cli_doc.lua -->"
M.END = "<!-- end of the generated query options -->"
M.SYNOPSIS_BEGIN = "<!-- synopsis: generated from lua/heapql/commands.lua by lua/tools/gen_cli_doc.lua -->"
M.SYNOPSIS_END = "<!-- end of the generated synopsis -->"

-- `text` with `body` between the markers `first` and `last`.
local function replace_block(text, first_marker, last_marker, body)
  local first = text:find(first_marker, 1, true)
  local last = text:find(last_marker, 1, true)
  if not first or not last or last < first then
    error("docs/cli.md has no '" .. first_marker .. "' ... '" .. last_marker .. "' block", 0)
  end
  return text:sub(1, first - 1) .. first_marker .. "\n" .. body .. text:sub(last)
end

-- `text` (docs/cli.md) with the command definition's synopsis and the
-- schema's table between their markers.
function M.cli(text)
  local heapql = require "heapql"
  local commands = require "heapql.commands"
  text = replace_block(text, M.SYNOPSIS_BEGIN, M.SYNOPSIS_END, commands.synopsis_markdown())
  return replace_block(text, M.BEGIN, M.END, heapql.schema.options_markdown())
end

local function main(args)
  local path = args[1]
  if not path then
    io.stderr:write("usage: lua5.4 lua/tools/gen_cli_doc.lua docs/cli.md\n")
    return 2
  end
  local file = assert(io.open(path, "rb"))
  local text = file:read("a")
  file:close()
  local ok, updated = pcall(M.cli, text)
  if not ok then
    io.stderr:write("gen_cli_doc: ", tostring(updated), "\n")
    return 1
  end
  file = assert(io.open(path, "wb"))
  file:write(updated)
  file:close()
  return 0
end

if required then return M end
os.exit(main(arg or {}))
