#include "lua/host/embedded_chunk.h"

#include <string>
#include <string_view>

namespace heapql::lua {

bool embedded_bytecode_usable() {
  // lua_ident is the running library's "$LuaVersion: Lua 5.4.4  Copyright ...".
  static const bool same_release = std::string_view(lua_ident).find(LUA_RELEASE " ") != std::string_view::npos;
  return same_release;
}

int load_embedded_chunk(lua_State* L, const EmbeddedModule& module) {
  const std::string chunk_name = "@" + std::string(module.source_path);
  // The bytecode is heapql's own, built with it (never a recipe's: their
  // `load` takes text alone).
  if (!module.bytecode.empty() && embedded_bytecode_usable()) {
    if (luaL_loadbufferx(L, module.bytecode.data(), module.bytecode.size(), chunk_name.c_str(), "b") == LUA_OK) {
      return LUA_OK;
    }
    lua_pop(L, 1);  // "version mismatch", "format mismatch", "truncated"
  }
  return luaL_loadbufferx(L, module.source.data(), module.source.size(), chunk_name.c_str(), "t");
}

}  // namespace heapql::lua
