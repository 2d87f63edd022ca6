// `for i, row in x:each() do ... end` over a result's or a diff's rows: one
// row's table at a time, which the collector takes back as the loop moves
// on. rows() makes every row's table at once: a recipe gating each of walk's
// 1.7 M stacks held gigabytes of them.
#pragma once

#include <cstddef>
#include <lua.hpp>

namespace heapql::lua {

// Pushes the iterator: `next` called with upvalues the receiver (the value
// at stack index 1, kept alive by the loop), a table caching frame strings
// for push_stack_frames, and the index of the next row.
void push_row_iterator(lua_State* L, lua_CFunction next);

inline int row_iterator_receiver() { return lua_upvalueindex(1); }
inline int row_iterator_frame_cache() { return lua_upvalueindex(2); }

// In `next`: the 0-based index of the row to push now; the iterator moves on.
std::size_t take_next_row_index(lua_State* L);

}  // namespace heapql::lua
