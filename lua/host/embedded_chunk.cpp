#include "lua/host/embedded_chunk.h"

#include <string_view>

namespace heapql::lua {

bool embedded_bytecode_usable() {
  // lua_ident is the running library's "$LuaVersion: Lua 5.4.4  Copyright ...".
  static const bool same_release = std::string_view(lua_ident).find(LUA_RELEASE " ") != std::string_view::npos;
  return same_release;
}

int load_embedded_chunk(lua_State* L, const EmbeddedModule& module) {
  // The name as a Lua string, not a C++ one: this runs inside `require`, a
  // Lua frame that no C++ exception may cross.
  lua_pushliteral(L, "@");
  lua_pushlstring(L, module.source_path.data(), module.source_path.size());
  lua_concat(L, 2);
  const char* chunk_name = lua_tostring(L, -1);
  // The bytecode is heapql's own, built with it (never a recipe's: their
  // `load` takes text alone).
  int status = LUA_ERRSYNTAX;
  if (!module.bytecode.empty() && embedded_bytecode_usable()) {
    status = luaL_loadbufferx(L, module.bytecode.data(), module.bytecode.size(), chunk_name, "b");
    if (status != LUA_OK) lua_pop(L, 1);  // "version mismatch", "format mismatch", "truncated"
  }
  if (status != LUA_OK) status = luaL_loadbufferx(L, module.source.data(), module.source.size(), chunk_name, "t");
  lua_remove(L, -2);  // the name, under the chunk or the error
  return status;
}

}  // namespace heapql::lua
