// A result's or a diff's rows as Lua tables: all at once (rows()), or one at
// a time (`for i, row in x:each() do ... end`), which the collector takes
// back as the loop moves on. A recipe gating each of walk's 1.7 M stacks
// with rows() held gigabytes of tables. Either way each frame's Lua string
// is made once (push_stack_frames's cache).
#pragma once

#include <cstddef>

#include <lua.hpp>

namespace heapql::lua {

// Pushes a new array of every row's table; push_row(row, frame_cache)
// pushes one.
template <class Rows, class PushRow>
void push_row_array(lua_State* L, const Rows& rows, PushRow push_row) {
  lua_newtable(L);  // the rows' frame strings
  const int frame_cache = lua_gettop(L);
  lua_createtable(L, static_cast<int>(rows.size()), 0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    push_row(rows[i], frame_cache);
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
  }
  lua_remove(L, frame_cache);
}

// Pushes the iterator: `next` called with upvalues the receiver (the value
// at stack index 1, kept alive by the loop), the frame strings' cache, and
// the index of the next row. `next` reads the receiver at
// row_iterator_receiver() and returns push_next_row's count.
void push_row_iterator(lua_State* L, lua_CFunction next);

inline int row_iterator_receiver() { return lua_upvalueindex(1); }

// The 0-based index of the row to push now; the iterator moves on.
std::size_t take_next_row_index(lua_State* L);

// In `next`: pushes the next row's number and table and returns 2, or
// returns 0 (the loop's end) when the rows are done.
template <class Rows, class PushRow>
int push_next_row(lua_State* L, const Rows& rows, PushRow push_row) {
  const std::size_t i = take_next_row_index(L);
  if (i >= rows.size()) return 0;
  lua_pushinteger(L, static_cast<lua_Integer>(i + 1));
  push_row(rows[i], lua_upvalueindex(2));
  return 2;
}

}  // namespace heapql::lua
