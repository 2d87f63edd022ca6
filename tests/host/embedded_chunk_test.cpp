// The embedded Lua library as bytecode (cmake/embed_lua.cmake, luac5.4):
// the same chunks as its text, and the text whenever the bytecode is not
// one this Lua takes.
#include <gtest/gtest.h>

#include <string>

#include <lua.hpp>

#include "lua/host/embedded_chunk.h"
#include "lua/host/embedded_modules.h"
#include "lua/host/lua_state.h"

namespace heapql::test {
namespace {

using lua::EmbeddedModule;

int append_bytes(lua_State*, const void* bytes, size_t size, void* out) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(bytes), size);
  return 0;
}

// What lua_dump makes of the function on top (debug information kept), popped.
std::string dumped(lua_State* L) {
  std::string bytes;
  EXPECT_EQ(lua_dump(L, append_bytes, &bytes, 0), 0);
  lua_pop(L, 1);
  return bytes;
}

// The module's text, parsed under its chunk name, dumped.
std::string text_dumped(lua_State* L, const EmbeddedModule& module) {
  const std::string name = "@" + std::string(module.source_path);
  EXPECT_EQ(luaL_loadbufferx(L, module.source.data(), module.source.size(), name.c_str(), "t"), LUA_OK)
      << module.name;
  return dumped(L);
}

TEST(EmbeddedChunk, EveryModuleIsItsTextCompiled) {
  // The tests run on the Lua they were built against.
  EXPECT_TRUE(lua::embedded_bytecode_usable()) << lua_ident;
  lua::LuaState state;
  lua_State* L = state.get();
  ASSERT_FALSE(lua::embedded_modules().empty());
  for (const EmbeddedModule& module : lua::embedded_modules()) {
#if HEAPQL_EMBEDS_BYTECODE
    EXPECT_FALSE(module.bytecode.empty()) << module.name << ": the build had luac5.4, so every module has bytecode";
#endif
    if (module.bytecode.empty()) continue;
    // luac's output is what this Lua makes of the text under the same name:
    // the same code and the same lines for tracebacks.
    EXPECT_EQ(std::string(module.bytecode), text_dumped(L, module)) << module.name;
    ASSERT_EQ(lua::load_embedded_chunk(L, module), LUA_OK) << lua_tostring(L, -1);
    lua_Debug info;
    ASSERT_NE(lua_getinfo(L, ">S", &info), 0);
    EXPECT_EQ(std::string(info.source), "@" + std::string(module.source_path));
    EXPECT_EQ(std::string(info.what), "main");
  }
}

// A module whose bytecode this Lua refuses is loaded from its text.
void expect_text_loaded(const std::string& bytecode, const char* what) {
  lua::LuaState state;
  lua_State* L = state.get();
  const std::string source = "return 6 * 7\n";
  const EmbeddedModule module{"heapql.answer", "heapql/answer.lua", source, bytecode};
  ASSERT_EQ(lua::load_embedded_chunk(L, module), LUA_OK) << what << ": " << lua_tostring(L, -1);
  EXPECT_EQ(lua_gettop(L), 1) << what << ": the refused bytecode's error is not left behind";
  ASSERT_EQ(lua_pcall(L, 0, 1, 0), LUA_OK) << lua_tostring(L, -1);
  EXPECT_EQ(lua_tointeger(L, -1), 42) << what;
}

TEST(EmbeddedChunk, BytecodeThisLuaRefusesLeavesTheText) {
  lua::LuaState state;
  lua_State* L = state.get();
  ASSERT_EQ(luaL_loadstring(L, "return 6 * 7"), LUA_OK);
  const std::string good = dumped(L);
  ASSERT_GT(good.size(), 12u);
  std::string other_release = good;
  other_release[4] = '\x53';  // the header's version byte: Lua 5.3's
  expect_text_loaded(other_release, "another release's bytecode");
  expect_text_loaded(good.substr(0, 10), "truncated bytecode");
  expect_text_loaded("return 1\n", "text where bytecode belongs");
}

TEST(EmbeddedChunk, TextThatDoesNotParseIsAnErrorNamingItsFile) {
  lua::LuaState state;
  lua_State* L = state.get();
  const std::string source = "return (\n";
  const EmbeddedModule module{"heapql.broken", "heapql/broken.lua", source, {}};
  ASSERT_NE(lua::load_embedded_chunk(L, module), LUA_OK);
  EXPECT_NE(std::string(lua_tostring(L, -1)).find("heapql/broken.lua:"), std::string::npos) << lua_tostring(L, -1);
}

}  // namespace
}  // namespace heapql::test
