#include "lua/host/lua_state.h"

#include <cstdio>
#include <cstdlib>
#include <new>

#include "lua/host/run_limits.h"

namespace heapql::lua {

LuaState::LuaState() {
  state_ = lua_newstate(&LuaState::allocate, this);
  if (state_ == nullptr) throw std::bad_alloc();
  lua_atpanic(state_, [](lua_State* L) -> int {
    // Only reached by an error outside any protected call: a bug in heapql.
    std::fprintf(stderr, "heapql: unprotected Lua error: %s\n", lua_tostring(L, -1));
    std::abort();
  });
}

LuaState::~LuaState() {
  if (state_ != nullptr) lua_close(state_);
}

LuaState* LuaState::find(lua_State* L) {
  void* user = nullptr;
  return lua_getallocf(L, &user) == &LuaState::allocate ? static_cast<LuaState*>(user) : nullptr;
}

void* LuaState::allocate(void* self_pointer, void* block, std::size_t old_size, std::size_t new_size) {
  auto* self = static_cast<LuaState*>(self_pointer);
  // With no block, old_size tells the kind of object, not a size.
  const std::size_t old_bytes = block != nullptr ? old_size : 0;
  if (new_size == 0) {
    std::free(block);
    self->used_ -= old_bytes;
    count_allocation(-static_cast<std::int64_t>(old_bytes));
    return nullptr;
  }
  void* moved = std::realloc(block, new_size);
  if (moved == nullptr) return nullptr;
  self->used_ = self->used_ - old_bytes + new_size;
  count_allocation(static_cast<std::int64_t>(new_size) - static_cast<std::int64_t>(old_bytes));
  return moved;
}

EngineCall::EngineCall(lua_State* L) {
  if (LuaState::find(L) != nullptr && RunGuard::memory_pressure()) lua_gc(L, LUA_GCCOLLECT);
}

}  // namespace heapql::lua
