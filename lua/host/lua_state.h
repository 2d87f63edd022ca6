// One Lua state with the limits a recipe runs under: a memory cap enforced
// by the state's allocator, and a deadline on the recipe's own Lua time
// enforced by an instruction-count hook. Once the deadline passes, the hook
// fires on every instruction and line, so no `pcall` can swallow it. Time
// spent inside engine calls (reading a trace, answering a query) is not the
// recipe's and is not counted.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include <lua.hpp>

namespace heapql::lua {

struct Limits {
  std::chrono::milliseconds timeout{60'000};  // 0: none
  std::size_t memory_bytes = std::size_t{1} << 30;  // 0: none
};

std::string describe_timeout(std::chrono::milliseconds timeout);
std::string describe_memory(std::size_t bytes);

class LuaState {
 public:
  explicit LuaState(Limits limits);
  ~LuaState();
  LuaState(const LuaState&) = delete;
  LuaState& operator=(const LuaState&) = delete;

  lua_State* get() const { return state_; }
  const Limits& limits() const { return limits_; }

  // Starts the clock and installs the hook; call just before recipe code runs.
  void arm_deadline();
  bool timed_out() const { return timed_out_; }
  bool out_of_memory() const { return out_of_memory_; }
  std::size_t memory_used() const { return used_; }
  // The memory cap applies while recipe code runs (inside the host's
  // protected calls), not to the host's own unprotected setup and reading of
  // results, where an allocation failure could not be caught.
  void enforce_memory_cap(bool on) { cap_on_ = on; }

  // The LuaState owning `L` (any of its threads), or null for a state heapql
  // did not create (stock lua5.4 loading heapql.so).
  static LuaState* find(lua_State* L);

  // Brackets an engine call; nested calls and Lua callbacks from inside the
  // engine (EngineCall's inverse, LuaCallback) keep the accounting exact.
  void enter_engine();
  void leave_engine();

 private:
  using Clock = std::chrono::steady_clock;
  static void* allocate(void* self, void* block, std::size_t old_size, std::size_t new_size);
  static void hook(lua_State* L, lua_Debug* ar);
  Clock::duration lua_time() const;

  Limits limits_;
  lua_State* state_ = nullptr;
  std::size_t used_ = 0;
  bool out_of_memory_ = false;
  bool cap_on_ = false;
  bool timed_out_ = false;
  bool armed_ = false;
  Clock::time_point start_{};
  Clock::duration engine_time_{};
  int engine_depth_ = 0;
  Clock::time_point engine_since_{};
};

// RAII forms of enter_engine/leave_engine that do nothing outside heapql's
// own states.
class EngineCall {
 public:
  explicit EngineCall(lua_State* L) : state_(LuaState::find(L)) {
    if (state_) state_->enter_engine();
  }
  ~EngineCall() {
    if (state_) state_->leave_engine();
  }
  EngineCall(const EngineCall&) = delete;
  EngineCall& operator=(const EngineCall&) = delete;

 private:
  LuaState* state_;
};

class LuaCallback {
 public:
  explicit LuaCallback(lua_State* L) : state_(LuaState::find(L)) {
    if (state_) state_->leave_engine();
  }
  ~LuaCallback() {
    if (state_) state_->enter_engine();
  }
  LuaCallback(const LuaCallback&) = delete;
  LuaCallback& operator=(const LuaCallback&) = delete;

 private:
  LuaState* state_;
};

}  // namespace heapql::lua
