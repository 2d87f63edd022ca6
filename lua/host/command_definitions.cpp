#include "lua/host/command_definitions.h"

#include "engine/error.h"
#include "lua/host/lua_error.h"
#include "lua/host/sandbox.h"

namespace heapql::lua {

namespace {

constexpr const char* kCommandsKey = "heapql.command_definitions.commands";

std::vector<std::string> strings_of(lua_State* L, int table) {
  std::vector<std::string> strings;
  for (lua_Integer i = 1; lua_rawgeti(L, table, i) == LUA_TSTRING; ++i) {
    strings.emplace_back(lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return strings;
}

}  // namespace

CommandDefinitions::CommandDefinitions() : L_(state_.get()) {
  open_sandbox(L_, SandboxOptions{});
  lua_getglobal(L_, "require");
  lua_pushliteral(L_, "heapql.commands");
  if (lua_pcall(L_, 1, 1, 0) != LUA_OK) throw Error(error_message(L_, -1));
  lua_setfield(L_, LUA_REGISTRYINDEX, kCommandsKey);
}

void CommandDefinitions::call_function(const char* name, std::optional<std::string_view> command) {
  lua_settop(L_, 0);
  lua_getfield(L_, LUA_REGISTRYINDEX, kCommandsKey);
  lua_getfield(L_, -1, name);
  lua_remove(L_, -2);
  if (command) lua_pushlstring(L_, command->data(), command->size());
  if (lua_pcall(L_, command ? 1 : 0, 1, 0) != LUA_OK) throw Error(error_message(L_, -1));
}

std::optional<std::vector<AcceptedOption>> CommandDefinitions::accepted(std::string_view command) {
  call_function("accepted", command);
  if (!lua_istable(L_, -1)) return std::nullopt;
  std::vector<AcceptedOption> options;
  for (lua_Integer i = 1; lua_rawgeti(L_, 1, i) == LUA_TTABLE; ++i) {
    const int option = lua_gettop(L_);
    AcceptedOption accepted;
    lua_getfield(L_, option, "name");
    accepted.name = lua_tostring(L_, -1);
    lua_getfield(L_, option, "takes_value");
    accepted.takes_value = lua_toboolean(L_, -1);
    lua_getfield(L_, option, "aliases");
    accepted.aliases = strings_of(L_, lua_gettop(L_));
    options.push_back(std::move(accepted));
    lua_settop(L_, option - 1);
  }
  lua_settop(L_, 0);
  return options;
}

std::string CommandDefinitions::usage() {
  call_function("usage", std::nullopt);
  std::string text = lua_tostring(L_, -1);
  lua_settop(L_, 0);
  return text;
}

std::optional<std::string> CommandDefinitions::help(std::string_view command) {
  call_function("help", command);
  std::optional<std::string> text;
  if (lua_type(L_, -1) == LUA_TSTRING) text = lua_tostring(L_, -1);
  lua_settop(L_, 0);
  return text;
}

}  // namespace heapql::lua
