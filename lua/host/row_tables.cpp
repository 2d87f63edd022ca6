#include "lua/host/row_tables.h"

namespace heapql::lua {

void push_row_iterator(lua_State* L, lua_CFunction next) {
  lua_pushvalue(L, 1);
  lua_newtable(L);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, next, 3);
}

std::size_t take_next_row_index(lua_State* L) {
  const lua_Integer index = lua_tointeger(L, lua_upvalueindex(3));
  lua_pushinteger(L, index + 1);
  lua_replace(L, lua_upvalueindex(3));
  return static_cast<std::size_t>(index);
}

}  // namespace heapql::lua
