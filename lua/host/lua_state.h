// One Lua state as heapql creates it: its allocator reports every byte to the
// run limits (lua/host/run_limits.h), which own the memory cap and the
// deadline; an error outside any protected call is a bug in heapql and ends
// the process.
#pragma once

#include <cstddef>

#include <lua.hpp>

namespace heapql::lua {

class LuaState {
 public:
  LuaState();
  ~LuaState();
  LuaState(const LuaState&) = delete;
  LuaState& operator=(const LuaState&) = delete;

  lua_State* get() const { return state_; }
  std::size_t memory_used() const { return used_; }

  // The LuaState owning `L` (any of its threads), or null for a state heapql
  // did not create (stock lua5.4 loading heapql.so).
  static LuaState* find(lua_State* L);

 private:
  static void* allocate(void* self, void* block, std::size_t old_size, std::size_t new_size);

  lua_State* state_ = nullptr;
  std::size_t used_ = 0;
};

// Brackets an engine call made for Lua code: when the run has used over half
// its memory cap, Lua's garbage (which may hold traces and results the
// collector cannot weigh) is collected first. Does nothing outside heapql's
// own states.
class EngineCall {
 public:
  explicit EngineCall(lua_State* L);
  EngineCall(const EngineCall&) = delete;
  EngineCall& operator=(const EngineCall&) = delete;
};

}  // namespace heapql::lua
