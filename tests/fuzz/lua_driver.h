// The Lua fuzz targets' one state: a sandboxed state, made once, in which a
// driver chunk returns the function each input is handed to (as a list of
// lines). An error that escapes the driver is a finding: the library must
// answer hostile input with messages, never raise.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lua/host/lua_state.h"
#include "lua/host/sandbox.h"
#include "tests/fuzz/fuzz_input.h"

namespace heapql::fuzz {

class LuaDriver {
 public:
  explicit LuaDriver(std::string_view driver_source) {
    L_ = state_.get();
    lua::open_sandbox(L_, lua::SandboxOptions{});
    if (!lua::load_recipe_chunk(L_, driver_source, "=fuzz driver") || lua_pcall(L_, 0, 1, 0) != LUA_OK) {
      std::fprintf(stderr, "fuzz driver: %s\n", lua_tostring(L_, -1));
      std::abort();
    }
    lua_setfield(L_, LUA_REGISTRYINDEX, "fuzz.driver");
  }

  // Hands the input's lines (at most `max_lines`) to the driver.
  void run(std::string_view input, std::size_t max_lines = 64) {
    lua_settop(L_, 0);
    lua_getfield(L_, LUA_REGISTRYINDEX, "fuzz.driver");
    lua_newtable(L_);
    lua_Integer n = 0;
    for (std::string_view line : split(input, "\n")) {
      if (static_cast<std::size_t>(n) == max_lines) break;
      lua_pushlstring(L_, line.data(), line.size());
      lua_rawseti(L_, -2, ++n);
    }
    if (lua_pcall(L_, 1, 0, 0) != LUA_OK) {
      std::fprintf(stderr, "fuzz driver raised: %s\n", lua_tostring(L_, -1));
      std::abort();
    }
    lua_gc(L_, LUA_GCSTEP, 0);
  }

 private:
  lua::LuaState state_;
  lua_State* L_ = nullptr;
};

// A Lua target's whole entry point: the one driver of the binary, made on
// its first input from `source`, runs each input.
inline void run_lua_driver(std::string_view source, const std::uint8_t* data, std::size_t size) {
  static LuaDriver driver(source);
  driver.run(as_text(data, size));
}

}  // namespace heapql::fuzz
