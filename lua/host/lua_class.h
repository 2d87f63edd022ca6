// One way to expose a C++ object to Lua, for every class the bindings have
// (in the spirit of Wireshark's wslua classes): methods registered with their
// docs, a metatable recipes cannot read or change (__metatable), destruction
// that may run any number of times (__gc),
// and `check` that refuses anything but a live object of the class. A
// destroyed object (one a finalizer resurrected) raises a Lua error when
// used; it is never undefined behaviour. There is no __close: a finalizer may
// run inside any method that allocates, and closing the receiver there would
// destroy it under the method (__gc cannot: the receiver is on the stack).
#pragma once

#include <fmt/format.h>

#include <new>
#include <span>
#include <string>
#include <utility>

#include <lua.hpp>

#include "engine/error.h"

namespace heapql::lua {

struct LuaMethod {
  const char* name;
  lua_CFunction function;
  const char* doc;  // one line, for the API docs
};

template <class T>
class LuaClass {
 public:
  constexpr LuaClass(const char* name, std::span<const LuaMethod> methods) : name_(name), methods_(methods) {}

  const char* name() const { return name_; }
  std::span<const LuaMethod> methods() const { return methods_; }

  // Pushes a new object holding `value`.
  void push(lua_State* L, T value) const {
    auto* box = static_cast<Box*>(lua_newuserdatauv(L, sizeof(Box), 0));
    box->alive = false;
    push_metatable(L);
    lua_setmetatable(L, -2);
    new (box->storage) T(std::move(value));
    box->alive = true;
  }

  // The live object at `index`; throws heapql::Error naming the class otherwise.
  T& check(lua_State* L, int index, const char* role = "the receiver") const {
    auto* box = static_cast<Box*>(luaL_testudata(L, index, name_));
    if (box == nullptr) throw Error(fmt::format("expected a {} as {}, got a {}", name_, role, type_name(L, index)));
    if (!box->alive) throw Error(fmt::format("this {} was destroyed (collected) and cannot be used", name_));
    return *box->get();
  }

  // Pushes the class's metatable, creating it on first use.
  void push_metatable(lua_State* L) const {
    if (luaL_newmetatable(L, name_) == 0) return;
    const int meta = lua_gettop(L);
    lua_createtable(L, 0, static_cast<int>(methods_.size()));
    for (const LuaMethod& m : methods_) {
      lua_pushcfunction(L, m.function);
      lua_setfield(L, -2, m.name);
    }
    lua_setfield(L, meta, "__index");
    // The methods' docs, where lua/tools/gen_recipes_doc.lua reads them (the
    // metatable is locked, so recipes never see it): the registration is
    // the one definition of what a method does.
    lua_createtable(L, 0, static_cast<int>(methods_.size()));
    for (const LuaMethod& m : methods_) {
      lua_pushstring(L, m.doc);
      lua_setfield(L, -2, m.name);
    }
    lua_setfield(L, meta, "__method_docs");
    lua_pushvalue(L, meta);
    lua_pushcclosure(L, &LuaClass::destroy, 1);
    lua_setfield(L, meta, "__gc");
    lua_pushstring(L, "locked");
    lua_setfield(L, meta, "__metatable");
  }

  // Pushes the method table every object of the class shares (for heapql's
  // own Lua side, which adds methods written in Lua; recipes never get it).
  void push_methods(lua_State* L) const {
    push_metatable(L);
    lua_getfield(L, -1, "__index");
    lua_remove(L, -2);
  }

 private:
  struct Box {
    bool alive;
    alignas(T) unsigned char storage[sizeof(T)];
    T* get() { return std::launder(reinterpret_cast<T*>(storage)); }
  };

  // The type of a value for a message: a class's __name (read raw: no
  // metamethod runs), else Lua's type name.
  static std::string type_name(lua_State* L, int index) {
    std::string name = luaL_typename(L, index);
    if (lua_type(L, index) == LUA_TUSERDATA && luaL_getmetafield(L, index, "__name") != LUA_TNIL) {
      if (lua_type(L, -1) == LUA_TSTRING) name = lua_tostring(L, -1);
      lua_pop(L, 1);
    }
    return name;
  }

  // The userdata at 1 if its metatable is the closure's (upvalue 1), else null.
  static Box* own_box(lua_State* L) {
    if (lua_type(L, 1) != LUA_TUSERDATA || !lua_getmetatable(L, 1)) return nullptr;
    const bool same = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    return same ? static_cast<Box*>(lua_touserdata(L, 1)) : nullptr;
  }

  static int destroy(lua_State* L) {
    Box* box = own_box(L);
    if (box != nullptr && box->alive) {
      box->alive = false;
      box->get()->~T();
    }
    return 0;
  }

  const char* name_;
  std::span<const LuaMethod> methods_;
};

}  // namespace heapql::lua
