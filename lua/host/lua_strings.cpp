#include "lua/host/lua_strings.h"

#include "engine/error.h"

namespace heapql::lua {

void push_string_array(lua_State* L, const std::vector<std::string>& items) {
  lua_createtable(L, static_cast<int>(items.size()), 0);
  for (std::size_t i = 0; i < items.size(); ++i) {
    lua_pushlstring(L, items[i].data(), items[i].size());
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
  }
}

void push_stack_frames(lua_State* L, const StackFrames& frames, int cache) {
  if (!lua_checkstack(L, 4)) throw Error("out of Lua stack for a stack's frames");
  lua_createtable(L, static_cast<int>(frames.size()), 0);
  if (cache == 0 || frames.empty()) {
    for (std::size_t i = 0; i < frames.size(); ++i) {
      lua_pushlstring(L, frames[i].data(), frames[i].size());
      lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
    return;
  }
  // cache[table] maps a frame's index in its text table (plus one) to its string.
  if (lua_rawgetp(L, cache, frames.table()) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, cache, frames.table());
  }
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto key = static_cast<lua_Integer>(frames.index(i)) + 1;
    if (lua_rawgeti(L, -1, key) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_pushlstring(L, frames[i].data(), frames[i].size());
      lua_pushvalue(L, -1);
      lua_rawseti(L, -3, key);
    }
    lua_rawseti(L, -3, static_cast<lua_Integer>(i + 1));
  }
  lua_pop(L, 1);
}

}  // namespace heapql::lua
