-- testlib: a tiny test framework for the Lua tests. Every check counts as one
-- test; done() prints the failures and "<name>: N passed, M failed" and exits
-- non-zero if anything failed.
--
--   local t = require("testlib").new("grammar_test")
--   t:case("durations", function() t:eq(f(), 7) end)  -- an error in a case fails it
--   t:eq(actual, expected, label)   t:ok(value, label)
--   t:fails(fn, expected_message, label)  fn() must raise exactly that message
--   t:done()
local M = {}

local Suite = {}
Suite.__index = Suite

local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "table" and getmetatable(v) == nil then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    local parts = {}
    for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. " = " .. show(v[k]) end
    return "{ " .. table.concat(parts, ", ") .. " }"
  end
  return tostring(v)
end
M.show = show

-- Deep equality of plain tables; values with an __eq metamethod (pattern
-- sets) compare with ==.
local function equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  local ma, mb = getmetatable(a), getmetatable(b)
  if ma or mb then return false end -- == already said no
  for k, v in pairs(a) do
    if not equal(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end
M.equal = equal

-- The repository root (from where this file lies) and the build folder that
-- holds heapql.so and the heapql binary: HEAPQL_BUILD_DIR, as run_test.sh
-- sets it, else build-dev.
M.root = ((debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$")) or ".") .. "/../.."
local build_dir = os.getenv("HEAPQL_BUILD_DIR")
M.build_dir = (build_dir and build_dir ~= "") and build_dir or (M.root .. "/build-dev")

function M.new(name)
  return setmetatable({ name = name, passed = 0, failed = 0, failures = {}, prefix = "" }, Suite)
end

-- The lines of the test script on the stack, innermost first ("12 < 40").
function M.test_lines()
  local lines = {}
  for level = 2, 50 do
    local info = debug.getinfo(level, "Sl")
    if not info then break end
    if info.currentline > 0 and info.short_src ~= debug.getinfo(1, "S").short_src then
      lines[#lines + 1] = tostring(info.currentline)
    end
  end
  return #lines > 0 and table.concat(lines, " < ") or "?"
end

function Suite:record(ok, label, detail)
  if ok then
    self.passed = self.passed + 1
  else
    self.failed = self.failed + 1
    self.failures[#self.failures + 1] = ("%sline %s: %s%s"):format(self.prefix, M.test_lines(), label or "check",
      detail and ("\n      " .. detail) or "")
  end
  return ok
end

function Suite:eq(actual, expected, label)
  local ok = equal(actual, expected)
  return self:record(ok, label, not ok and ("expected " .. show(expected) .. "\n      got      " .. show(actual)))
end

function Suite:ok(value, label)
  return self:record(value and true or false, label, not value and ("got " .. show(value)))
end

-- fn() must raise an error whose message is `expected`, compared exactly
-- with or without the "file:line: " position error() put in front.
function Suite:fails(fn, expected, label)
  local ok, err = pcall(fn)
  if ok then return self:record(false, label, "expected the error " .. show(expected) .. ", got no error") end
  local message = tostring(err)
  if message ~= expected then message = message:gsub("^[^ ]-:%d+: ", "", 1) end
  return self:record(message == expected, label,
    ("expected the error %s\n      got            %s"):format(show(expected), show(tostring(err))))
end

function Suite:case(name, fn)
  local saved = self.prefix
  self.prefix = saved .. name .. ": "
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then self:record(false, "raised an error", tostring(err)) end
  self.prefix = saved
end

function Suite:done()
  for _, failure in ipairs(self.failures) do io.stderr:write("FAIL ", failure, "\n") end
  print(("%s: %d passed, %d failed"):format(self.name, self.passed, self.failed))
  os.exit(self.failed == 0)
end

-- A require for a fresh sandbox like the recipe one: an environment with only
-- the base library (no dofile, loadfile, load), string, table, math, utf8,
-- and a require that knows lpeg, re and the heapql modules. Reading any other
-- global, while loading or later, raises.
-- heapql.core, from build/heapql.so (`require "heapql"` puts it in the
-- preload table).
local function engine_core()
  require "heapql"
  return require "heapql.core"
end

function M.sandbox()
  local env = {}
  for _, key in ipairs { "assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall", "print",
    "rawequal", "rawget", "rawlen", "rawset", "select", "setmetatable", "tonumber", "tostring", "type",
    "xpcall", "_VERSION" } do
    env[key] = _G[key]
  end
  env.string, env.table, env.math, env.utf8 = string, table, math, utf8
  env._G = env
  local loaded = { lpeg = require "lpeg", re = require "re" }
  env.require = function(module)
    if loaded[module] then return loaded[module] end
    local path = package.searchpath(module, package.path)
    if not path or not module:match("^heapql%.") then error("sandbox: cannot require " .. module, 2) end
    local file = assert(io.open(path, "rb"))
    local source = file:read("a")
    file:close()
    local chunk = assert(load(source, "@" .. path, "t", env))
    -- As heapql loads its modules: with heapql.core as the second argument.
    loaded[module] = chunk(module, engine_core())
    return loaded[module]
  end
  -- Reading an absent global is a test failure, not a silent nil.
  setmetatable(env, { __index = function(_, key) error("sandbox: no global " .. tostring(key), 2) end })
  return env.require
end

function M.sandbox_require(name)
  return M.sandbox()(name)
end

return M
