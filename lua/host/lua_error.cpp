#include "lua/host/lua_error.h"

namespace heapql::lua {

namespace {
constexpr const char* kErrorMeta = "heapql.error";

int error_tostring(lua_State* L) {
  lua_getfield(L, 1, "message");
  return 1;
}
}  // namespace

void push_error_object(lua_State* L, ErrorKind kind, const char* message) {
  lua_createtable(L, 0, 2);
  lua_pushstring(L, kind == ErrorKind::kTrace ? "trace" : "recipe");
  lua_setfield(L, -2, "kind");
  lua_pushstring(L, message);
  lua_setfield(L, -2, "message");
  if (luaL_newmetatable(L, kErrorMeta)) {
    lua_pushcfunction(L, error_tostring);
    lua_setfield(L, -2, "__tostring");
  }
  lua_setmetatable(L, -2);
}

ErrorKind error_kind(lua_State* L, int index) {
  if (!lua_istable(L, index)) return ErrorKind::kRecipe;
  lua_getfield(L, index, "kind");
  const char* kind = lua_tostring(L, -1);
  const bool trace = kind != nullptr && std::string(kind) == "trace";
  lua_pop(L, 1);
  return trace ? ErrorKind::kTrace : ErrorKind::kRecipe;
}

std::string error_message(lua_State* L, int index) {
  if (lua_istable(L, index)) {
    lua_getfield(L, index, "message");
    std::string text = lua_isstring(L, -1) ? lua_tostring(L, -1) : "(error object without a message)";
    lua_pop(L, 1);
    return text;
  }
  if (lua_isstring(L, index)) return lua_tostring(L, index);
  return std::string("(error object is a ") + luaL_typename(L, index) + " value)";
}

}  // namespace heapql::lua
