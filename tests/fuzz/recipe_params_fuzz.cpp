// Fuzz target: recipe params. Each input line is a --param NAME=VALUE for a
// recipe declaring one param of every type; a bad value must give a message
// (recipe.params raises a string), never a crash. Each line also goes
// through the small languages the params use, which return nil and a
// message on bad input.
#include "tests/fuzz/lua_driver.h"

namespace {

constexpr std::string_view kDriver = R"lua(
local recipe = require "heapql.recipe"
local grammar = require "heapql.grammar"
local decl = recipe.declare {
  name = "fuzz", doc = "every param type", run = function() end,
  params = {
    s = { type = "string", default = "x" }, i = { type = "integer", default = 1 },
    n = { type = "number", default = 1.5 }, b = { type = "boolean", default = true },
    d = { type = "duration", default = "1s" }, z = { type = "size", default = "1KB" },
    dr = { type = "duration_range", default = "1s..2s" }, zr = { type = "size_range", default = "1KB..2KB" },
    p = { type = "patterns", default = {} }, f = { type = "path", default = "a.txt" },
  },
}
return function(lines)
  local overrides = {}
  for _, line in ipairs(lines) do
    local name, value = line:match("^([^=]*)=(.*)$")
    if name then overrides[name] = value end
    for _, parse in ipairs { grammar.duration, grammar.size, grammar.duration_range, grammar.size_range,
                             grammar.frame_pattern, grammar.list } do
      local value, message = parse(line)
      assert(value ~= nil or type(message) == "string", "a grammar failed without a message")
    end
  end
  local ok, values = pcall(recipe.params, decl, overrides, "recipe fuzz")
  assert(ok or type(values) == "string", "recipe.params raised something other than a message")
end
)lua";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  heapql::fuzz::run_lua_driver(kDriver, data, size);
  return 0;
}
