#include "lua/host/lua_state.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <new>

#include "engine/units.h"

namespace heapql::lua {

namespace {
// How often the hook looks at the clock before the deadline: cheap enough to
// be invisible, fine enough to stop a runaway loop within microseconds.
constexpr int kInstructionsBetweenChecks = 10'000;
}  // namespace

std::string describe_timeout(std::chrono::milliseconds timeout) {
  return format_duration(std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count());
}

std::string describe_memory(std::size_t bytes) {
  if (bytes % (1u << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return format_bytes_human(bytes);
}

LuaState::LuaState(Limits limits) : limits_(limits) {
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
    return nullptr;
  }
  if (new_size > old_bytes && self->cap_on_ && self->limits_.memory_bytes != 0 &&
      self->used_ + (new_size - old_bytes) > self->limits_.memory_bytes) {
    self->out_of_memory_ = true;
    return nullptr;  // Lua raises "not enough memory"
  }
  void* moved = std::realloc(block, new_size);
  if (moved == nullptr) return nullptr;
  self->used_ = self->used_ - old_bytes + new_size;
  return moved;
}

void LuaState::arm_deadline() {
  if (limits_.timeout.count() == 0) return;
  armed_ = true;
  start_ = Clock::now();
  engine_time_ = {};
  lua_sethook(state_, &LuaState::hook, LUA_MASKCOUNT, kInstructionsBetweenChecks);
}

LuaState::Clock::duration LuaState::lua_time() const {
  const Clock::time_point now = Clock::now();
  Clock::duration engine = engine_time_;
  if (engine_depth_ > 0) engine += now - engine_since_;
  return now - start_ - engine;
}

void LuaState::enter_engine() {
  if (engine_depth_++ == 0) engine_since_ = Clock::now();
}

void LuaState::leave_engine() {
  if (--engine_depth_ == 0) engine_time_ += Clock::now() - engine_since_;
}

void LuaState::hook(lua_State* L, lua_Debug*) {
  LuaState* self = find(L);
  if (self == nullptr || !self->armed_) return;
  if (!self->timed_out_) {
    if (self->lua_time() < self->limits_.timeout) return;
    self->timed_out_ = true;
  }
  // From now on every instruction and line of every thread raises again, so
  // an error handler or a pcall in a loop gets nowhere.
  lua_sethook(L, &LuaState::hook, LUA_MASKCOUNT | LUA_MASKLINE, 1);
  char message[160];
  {
    // Scoped so that no C++ object is alive when lua_error jumps.
    const std::string limit = describe_timeout(self->limits_.timeout);
    std::snprintf(message, sizeof message, "the recipe ran longer than its time limit of %s (--timeout)",
                  limit.c_str());
  }
  lua_pushstring(L, message);
  lua_error(L);
}

}  // namespace heapql::lua
