#include "lua/host/lua_error.h"

#include <string_view>

namespace heapql::lua {

namespace {
constexpr const char* kErrorMeta = "heapql.error";

int error_tostring(lua_State* L) {
  lua_pushliteral(L, "message");
  lua_rawget(L, 1);
  return 1;
}

// Whether the value at `index` is an error object heapql made (recipes can
// neither read nor set its locked metatable, so they cannot forge one).
bool is_error_object(lua_State* L, int index) {
  index = lua_absindex(L, index);
  if (lua_type(L, index) != LUA_TTABLE || !lua_getmetatable(L, index)) return false;
  luaL_getmetatable(L, kErrorMeta);
  const bool ours = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return ours;
}

// The string field `name` of one of heapql's error objects, read raw.
const char* raw_string_field(lua_State* L, int index, const char* name) {
  lua_pushstring(L, name);
  lua_rawget(L, index);
  const char* text = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : nullptr;
  lua_pop(L, 1);  // the string stays alive in the table
  return text;
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
    lua_pushliteral(L, "heapql.error");
    lua_setfield(L, -2, "__metatable");
  }
  lua_setmetatable(L, -2);
}

ErrorKind error_kind(lua_State* L, int index) {
  index = lua_absindex(L, index);
  if (!is_error_object(L, index)) return ErrorKind::kRecipe;
  const char* kind = raw_string_field(L, index, "kind");
  return kind != nullptr && std::string_view(kind) == "trace" ? ErrorKind::kTrace : ErrorKind::kRecipe;
}

std::string error_message(lua_State* L, int index) {
  index = lua_absindex(L, index);
  if (is_error_object(L, index)) {
    const char* message = raw_string_field(L, index, "message");
    return message != nullptr ? message : "(error object without a message)";
  }
  // Strings and numbers as they are (a number is converted on a copy);
  // anything else only by its type: reading it could run recipe code.
  if (lua_type(L, index) == LUA_TSTRING || lua_type(L, index) == LUA_TNUMBER) {
    lua_pushvalue(L, index);
    std::string text = lua_tostring(L, -1);
    lua_pop(L, 1);
    return text;
  }
  return std::string("(error object is a ") + luaL_typename(L, index) + " value)";
}

}  // namespace heapql::lua
