// Fuzz target: the xperf flag translator. The input's lines are the words
// after `heapql xperf`; flags that parse must become a recipe that is valid
// Lua, and flags that do not must give a message.
#include "tests/fuzz/lua_driver.h"

namespace {

constexpr std::string_view kDriver = R"lua(
local xperf = require "heapql.xperf"
return function(words)
  local spec, message = xperf.parse(words)
  if not spec then
    assert(type(message) == "string", "xperf.parse failed without a message")
    return
  end
  local text = xperf.to_recipe(spec)
  assert(type(text) == "string", "xperf.to_recipe gave no text")
  local chunk, problem = load(text, "=xperf recipe", "t")
  assert(chunk, problem)
end
)lua";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  heapql::fuzz::run_lua_driver(kDriver, data, size);
  return 0;
}
