-- The public surface of the heapql module: every name of hq, hq.cull,
-- hq.parse, hq.schema and heapql.core, the methods and fields of traces,
-- results, outputs (hq.output()) and pattern sets, and the pattern sets'
-- operators, each with its Lua type, must equal tests/lua/surface.txt. A
-- change to the surface is then always a visible change to that file.
--
-- After an intended change, rewrite the snapshot (from the repository root):
--   HEAPQL_UPDATE_SURFACE=1 LUA_PATH='lua/?.lua;tests/lua/?.lua;;' \
--     LUA_CPATH='build-dev/?.so;;' lua5.4 tests/lua/surface_test.lua
local testlib = require "testlib"
local t = testlib.new("surface_test")
require "heapql"
local gen = require "tools.gen_recipes_doc"

local SNAPSHOT = testlib.root .. "/tests/lua/surface.txt"
local UPDATE = "HEAPQL_UPDATE_SURFACE=1 LUA_PATH='lua/?.lua;tests/lua/?.lua;;' LUA_CPATH='build-dev/?.so;;' "
  .. "lua5.4 tests/lua/surface_test.lua"
local HEADER = {
  "# The public surface of heapql's Lua module: one name and its Lua type a line,",
  "# sorted. tests/lua/surface_test.lua compares it with the module as built.",
  "# After an intended change, rewrite it (from the repository root) with",
  "#   " .. UPDATE,
  "# and update lua/heapql/api_doc.lua and docs/recipes.md to match.",
}

-- How each table of the module is named: functions of hq are `hq.NAME`,
-- methods of a trace `trace:NAME`, data fields of an output `out.NAME`.
local GROUPS = {
  { probe = "hq", prefix = "hq." },
  { probe = "hq.cull", prefix = "hq.cull." },
  { probe = "hq.suppressions", prefix = "hq.suppressions." },
  { probe = "hq.parse", prefix = "hq.parse." },
  { probe = "hq.schema", prefix = "hq.schema." },
  { probe = "core", prefix = "heapql.core." },
  { probe = "trace", prefix = "trace", methods = true },
  { probe = "result", prefix = "result", methods = true },
  { probe = "diff", prefix = "diff", methods = true },
  { probe = "out", prefix = "out", methods = true },
  { probe = "set", prefix = "set", methods = true },
}

local function surface()
  local live = gen.live()
  local lines, named = {}, {}
  for _, group in ipairs(GROUPS) do
    named[group.probe] = true
    local real = live[group.probe]
    for name, value in pairs(real.members) do
      local prefix = group.prefix
      if group.methods then prefix = prefix .. (type(value) == "function" and ":" or ".") end
      lines[#lines + 1] = prefix .. tostring(name) .. " " .. type(value)
    end
    for name, value in pairs(real.operators or {}) do
      lines[#lines + 1] = group.prefix:gsub("%.$", "") .. "." .. name .. " " .. type(value)
    end
  end
  for probe in pairs(live) do
    if not named[probe] then lines[#lines + 1] = "?" .. probe .. " (a table the test does not name)" end
  end
  table.sort(lines)
  return lines
end

local function read_snapshot()
  local file = io.open(SNAPSHOT, "rb")
  if not file then return nil end
  local lines = {}
  for line in file:lines() do
    if line ~= "" and line:sub(1, 1) ~= "#" then lines[#lines + 1] = line end
  end
  file:close()
  return lines
end

local actual = surface()

if os.getenv("HEAPQL_UPDATE_SURFACE") == "1" then
  local file = assert(io.open(SNAPSHOT, "wb"))
  file:write(table.concat(HEADER, "\n"), "\n", table.concat(actual, "\n"), "\n")
  file:close()
  print(("surface_test: wrote %s (%d names)"):format(SNAPSHOT, #actual))
  t:ok(true, "snapshot written")
  t:done()
end

t:case("the module's surface is the snapshot", function()
  local expected = read_snapshot()
  if not expected then
    t:record(false, "no snapshot at " .. SNAPSHOT, "write it with\n      " .. UPDATE)
    return
  end
  local in_snapshot, in_module = {}, {}
  for _, line in ipairs(expected) do in_snapshot[line] = true end
  for _, line in ipairs(actual) do in_module[line] = true end
  local diff = {}
  for _, line in ipairs(actual) do
    if not in_snapshot[line] then diff[#diff + 1] = "+ " .. line .. "    (in the module, not in the snapshot)" end
  end
  for _, line in ipairs(expected) do
    if not in_module[line] then diff[#diff + 1] = "- " .. line .. "    (in the snapshot, not in the module)" end
  end
  table.sort(diff, function(a, b) return a:sub(3) < b:sub(3) end)
  t:record(#diff == 0, "the public surface changed (tests/lua/surface.txt)",
    table.concat(diff, "\n      ") .. "\n      if the change is intended, rewrite the snapshot (from the repository root):"
      .. "\n        " .. UPDATE .. "\n      and describe it in lua/heapql/api_doc.lua (then regenerate docs/recipes.md)")
  t:eq(#actual, #expected, "as many names as the snapshot")
end)

t:done()
