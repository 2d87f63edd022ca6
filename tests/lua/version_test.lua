-- heapql's version is written once, in CMakeLists.txt's project(): the Lua
-- module (heapql.so, whose hq.version comes from heapql.core) and
-- `heapql --version` must both say that version.
local testlib = require "testlib"
local t = testlib.new("version_test")

local function declared_version()
  local file = assert(io.open(testlib.root .. "/CMakeLists.txt", "rb"))
  local text = file:read("a")
  file:close()
  return text:match("project%s*%(%s*heapql%s+VERSION%s+([%w%.%-]+)")
end

local function printed_version(binary)
  local pipe = assert(io.popen("'" .. binary:gsub("'", "'\\''") .. "' --version"))
  local text = pipe:read("a")
  pipe:close()
  return text
end

local declared = declared_version()
t:ok(declared, "CMakeLists.txt declares project(heapql VERSION ...)")
t:eq(require("heapql").version, declared, "hq.version")
t:eq(printed_version(os.getenv("HEAPQL_BINARY") or (testlib.build_dir .. "/heapql")),
  "heapql " .. tostring(declared) .. "\n", "heapql --version")
t:done()
