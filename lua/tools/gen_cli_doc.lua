-- Writes docs/cli.md's table of query options from heapql.schema (the one
-- definition of a query), between its two marker lines:
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

-- `text` (docs/cli.md) with the schema's table between the markers.
function M.cli(text)
  local schema = require("heapql").schema
  local first = text:find(M.BEGIN, 1, true)
  local last = text:find(M.END, 1, true)
  if not first or not last or last < first then
    error("docs/cli.md has no '" .. M.BEGIN .. "' ... '" .. M.END .. "' block", 0)
  end
  return text:sub(1, first - 1) .. M.BEGIN .. "\n" .. schema.options_markdown() .. text:sub(last)
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
