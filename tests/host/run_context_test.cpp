// A Lua state's run context (lua/host/run_context.h): one userdata under one
// registry key holds what the C side keeps about a run; and the sandbox is
// built from its one table (sandbox.cpp's kSandbox), whose lists
// core.sandbox hands the docs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <lua.hpp>

#include "lua/host/embedded_modules.h"
#include "lua/host/lua_state.h"
#include "lua/host/run_context.h"
#include "lua/host/sandbox.h"

namespace heapql::test {
namespace {

using lua::RunContext;
using lua::RunValue;

// Runs `code` as recipe code (the sandbox's environment); its first result,
// or the error message, as a string.
std::string run_recipe_code(lua_State* L, const std::string& code) {
  EXPECT_TRUE(lua::load_recipe_chunk(L, code, "=test")) << lua_tostring(L, -1);
  lua_pcall(L, 0, 1, 0);
  std::string text = luaL_tolstring(L, -1, nullptr);
  lua_pop(L, 2);
  return text;
}

// The strings of core.sandbox's list `name`, read with stock Lua functions.
std::vector<std::string> sandbox_list(lua_State* L, const char* name) {
  lua_getglobal(L, "require");
  lua_pushliteral(L, "heapql.core");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "sandbox");
  lua_getfield(L, -1, name);
  std::vector<std::string> names;
  for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; ++i) {
    names.emplace_back(lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 4);
  return names;
}

TEST(RunContext, IsOneObjectMadeOnFirstUse) {
  lua::LuaState state;
  lua_State* L = state.get();
  RunContext& context = lua::run_context(L);
  EXPECT_FALSE(context.sandboxed);
  EXPECT_FALSE(context.report.has_value()) << "outside a run the report goes to stdout";
  EXPECT_FALSE(context.open.show_progress);
  context.failed_gates.push_back("a gate");
  EXPECT_EQ(&lua::run_context(L), &context);
  EXPECT_EQ(lua::run_context(L).failed_gates, std::vector<std::string>{"a gate"});
  EXPECT_EQ(lua_gettop(L), 0);
}

TEST(RunContext, KeepsTheRunsLuaValues) {
  lua::LuaState state;
  lua_State* L = state.get();
  lua::push_run_value(L, RunValue::kHostRequire);
  EXPECT_TRUE(lua_isnil(L, -1)) << "never set";
  lua_pop(L, 1);
  lua_pushliteral(L, "kept");
  lua::set_run_value(L, RunValue::kHostRequire);
  lua_gc(L, LUA_GCCOLLECT);
  lua::push_run_value(L, RunValue::kHostRequire);
  EXPECT_STREQ(lua_tostring(L, -1), "kept");
  lua_pop(L, 1);
  EXPECT_EQ(lua_gettop(L), 0);
}

TEST(RunContext, WritesTheReportWhenThereIsOne) {
  lua::LuaState state;
  RunContext& context = lua::run_context(state.get());
  context.report.emplace();
  context.write_report("one ");
  context.write_report("two");
  EXPECT_EQ(*context.report, "one two");
}

// Every registry entry heapql makes under its name is the run context or a
// class's metatable (luaL_newmetatable's, whose __name is its key).
TEST(RunContext, IsHeapqlsOnlyRegistryKey) {
  for (const bool trusted : {false, true}) {
    lua::LuaState state;
    lua_State* L = state.get();
    lua::SandboxOptions options;
    options.trusted = trusted;
    lua::open_sandbox(L, options);
    lua::run_context(L).report.emplace();
    EXPECT_EQ(run_recipe_code(L,
                              "local hq = require 'heapql'; hq.fail_if(true, 'x'); hq.output():write('w'); "
                              "return hq.gate_failed()"),
              "true");
    std::vector<std::string> keys;
    lua_pushnil(L);
    while (lua_next(L, LUA_REGISTRYINDEX) != 0) {
      if (lua_type(L, -2) == LUA_TSTRING && std::string(lua_tostring(L, -2)).starts_with("heapql.")) {
        const std::string key = lua_tostring(L, -2);
        bool metatable = false;
        if (lua_istable(L, -1)) {
          lua_getfield(L, -1, "__name");
          metatable = lua_type(L, -1) == LUA_TSTRING && key == lua_tostring(L, -1);
          lua_pop(L, 1);
        }
        if (!metatable) keys.push_back(key);
      }
      lua_pop(L, 1);
    }
    EXPECT_EQ(keys, std::vector<std::string>{"heapql.run_context"}) << (trusted ? "trusted" : "sandboxed");
    EXPECT_EQ(lua::run_context(L).failed_gates, std::vector<std::string>{"x"});
  }
}

TEST(Sandbox, EveryEmbeddedModuleIsOneARecipeMayRequire) {
  lua::LuaState state;
  lua_State* L = state.get();
  lua::open_sandbox(L, lua::SandboxOptions{});
  for (const lua::EmbeddedModule& module : lua::embedded_modules()) {
    const std::string name(module.name);
    EXPECT_EQ(run_recipe_code(L, "local ok, e = pcall(require, '" + name + "'); return ok or e"), "true") << name;
  }
}

TEST(Sandbox, IsBuiltFromItsTable) {
  lua::LuaState trusted_state;
  lua::open_sandbox(trusted_state.get(), lua::SandboxOptions{true, {}, {}, {}});
  lua_State* T = trusted_state.get();  // reads core.sandbox with the full standard library
  lua::LuaState state;
  lua_State* L = state.get();
  lua::open_sandbox(L, lua::SandboxOptions{});

  const std::vector<std::string> libraries = sandbox_list(T, "libraries");
  ASSERT_FALSE(libraries.empty());
  for (const std::string& library : libraries) {
    const std::string global = library == "base" ? "_G" : library;
    EXPECT_EQ(run_recipe_code(L, "return type(" + global + ")"), "table") << library;
  }
  for (const std::string& module : sandbox_list(T, "modules")) {
    if (module.ends_with(".*")) continue;
    EXPECT_EQ(run_recipe_code(L, "return type(require '" + module + "')"), "table") << module;
  }
  for (const std::string& module : sandbox_list(T, "private")) {
    EXPECT_NE(run_recipe_code(L, "return select(2, pcall(require, '" + module + "'))").find("is heapql's own"),
              std::string::npos)
        << module;
  }
  const std::vector<std::string> left_out = sandbox_list(T, "left_out");
  ASSERT_FALSE(left_out.empty());
  for (const std::string& name : left_out) {
    EXPECT_EQ(run_recipe_code(L, "return select(2, pcall(function() return " + name + " end))"),
              "test:1: '" + name +
                  "' is not available in a recipe (the sandbox has base, string, table, math, utf8, lpeg, re and "
                  "heapql; --trusted opens the full standard library)");
  }
  for (const std::string& name : sandbox_list(T, "replaced")) {
    EXPECT_EQ(run_recipe_code(L, "return type(" + name + ")"), "function") << name;
  }
  for (const std::string& name : sandbox_list(T, "removed")) {
    EXPECT_EQ(run_recipe_code(L, "return type(" + name + ")"), "nil") << name;
  }
  EXPECT_EQ(sandbox_list(T, "collectgarbage"), (std::vector<std::string>{"collect", "count", "step", "isrunning"}));
  EXPECT_EQ(run_recipe_code(L, "return select(2, pcall(collectgarbage, 'stop'))"),
            "collectgarbage('stop') is not available in a recipe (collect, count, step and isrunning are)");
  EXPECT_NE(run_recipe_code(L, "return select(2, pcall(require, 'os'))")
                .find("module 'os' is not available in a recipe: recipes may require lpeg, re, heapql, heapql.* and "
                      ".lua files beside the recipe or in the shipped queries/ folder; --trusted opens the full "
                      "standard library"),
            std::string::npos);
}

}  // namespace
}  // namespace heapql::test
