// `require "heapql"` from stock lua5.4 (build/heapql.so): registers the
// embedded Lua library, LPeg and heapql.core in package.preload, then loads
// the heapql module itself. No sandbox: a script run by `lua5.4` already has
// the full standard library.
#include <lua.hpp>

#include "lua/host/embedded_modules.h"
#include "lua/host/sandbox.h"

extern "C" __attribute__((visibility("default"))) int luaopen_heapql(lua_State* L) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  heapql::lua::register_embedded_modules(L);
  lua_getfield(L, -1, "heapql");  // the Lua side of the module (init.lua)
  lua_pushstring(L, "heapql");
  lua_call(L, 1, 1);
  return 1;
}
