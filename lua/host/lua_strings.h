// Lists of strings across the Lua boundary: one way to push them as a Lua
// array, and a stack's frames as one.
#pragma once

#include <string>
#include <vector>

#include <lua.hpp>

#include "engine/query/stack_frames.h"

namespace heapql::lua {

// Pushes a new array holding `items`, in order.
void push_string_array(lua_State* L, const std::vector<std::string>& items);

// Pushes a new array holding a stack's frames' texts, top first. With
// `cache` (the absolute stack index or upvalue index of a table the caller
// made for a batch of rows; 0 for none) each frame's Lua string is made once and shared by the
// rows: a long string is not interned, and every stack of a C++ trace as
// separate strings took hundreds of megabytes.
void push_stack_frames(lua_State* L, const StackFrames& frames, int cache);

}  // namespace heapql::lua
