// Lists of strings across the Lua boundary: one way to push them as a Lua
// array and to read an array of strings kept in the registry.
#pragma once

#include <string>
#include <vector>

#include <lua.hpp>

namespace heapql::lua {

// Pushes a new array holding `items`, in order.
void push_string_array(lua_State* L, const std::vector<std::string>& items);

// The strings of the array at registry[key]; empty when there is none.
std::vector<std::string> registry_string_array(lua_State* L, const char* key);

}  // namespace heapql::lua
