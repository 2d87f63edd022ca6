#include "lua/host/run_context.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "engine/error.h"
#include "engine/platform/errno_text.h"

namespace heapql::lua {

namespace {

// The one registry key heapql's C side uses.
constexpr const char* kContextKey = "heapql.run_context";

struct ContextBox {
  bool alive;
  alignas(RunContext) unsigned char storage[sizeof(RunContext)];
  RunContext* get() { return std::launder(reinterpret_cast<RunContext*>(storage)); }
};

int destroy_context(lua_State* L) {
  auto* box = lua_type(L, 1) == LUA_TUSERDATA && lua_rawlen(L, 1) == sizeof(ContextBox)
                  ? static_cast<ContextBox*>(lua_touserdata(L, 1))
                  : nullptr;
  if (box != nullptr && box->alive) {
    box->alive = false;
    box->get()->~RunContext();
  }
  return 0;
}

// The context userdata at `index` when it is heapql's (its metatable's
// __gc is destroy_context: a --trusted recipe may have put anything under
// the key through debug.getregistry) and not yet destroyed.
ContextBox* live_box(lua_State* L, int index) {
  index = lua_absindex(L, index);
  if (lua_type(L, index) != LUA_TUSERDATA || !lua_getmetatable(L, index)) return nullptr;
  lua_pushliteral(L, "__gc");
  lua_rawget(L, -2);
  const bool ours = lua_tocfunction(L, -1) == &destroy_context && lua_rawlen(L, index) == sizeof(ContextBox);
  lua_pop(L, 2);
  auto* box = ours ? static_cast<ContextBox*>(lua_touserdata(L, index)) : nullptr;
  return box != nullptr && box->alive ? box : nullptr;
}

// Pushes the context userdata, making it (default) when there is none.
ContextBox* push_context(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kContextKey);
  if (ContextBox* box = live_box(L, -1)) return box;
  lua_pop(L, 1);
  auto* box = static_cast<ContextBox*>(lua_newuserdatauv(L, sizeof(ContextBox), kRunValueCount));
  box->alive = false;
  lua_createtable(L, 0, 3);
  lua_pushcfunction(L, destroy_context);
  lua_setfield(L, -2, "__gc");
  lua_pushliteral(L, "heapql.RunContext");
  lua_setfield(L, -2, "__name");
  lua_pushliteral(L, "locked");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  new (box->storage) RunContext();
  box->alive = true;
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, kContextKey);
  return box;
}

}  // namespace

RunContext& run_context(lua_State* L) {
  ContextBox* box = push_context(L);
  lua_pop(L, 1);  // the registry keeps it
  return *box->get();
}

void push_run_value(lua_State* L, RunValue which) {
  push_context(L);
  lua_getiuservalue(L, -1, static_cast<int>(which));
  lua_remove(L, -2);
}

void set_run_value(lua_State* L, RunValue which) {
  push_context(L);
  lua_insert(L, -2);
  lua_setiuservalue(L, -2, static_cast<int>(which));
  lua_pop(L, 1);
}

void RunContext::write_report(std::string_view text) {
  if (report) {
    report->append(text);
  } else if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    // Outside `heapql run` (the module loaded by lua5.4): a short write is an error, not a short report.
    throw Error(SourceLocation::of_file("standard output"), "cannot write: " + errno_text(errno));
  }
}

}  // namespace heapql::lua
