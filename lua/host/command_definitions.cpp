#include "lua/host/command_definitions.h"

#include "engine/error.h"
#include "lua/host/lua_error.h"
#include "lua/host/lua_fields.h"
#include "lua/host/sandbox.h"

namespace heapql::lua {

namespace {

// Pushes heapql.commands (loaded once: later requires find it in the
// sandbox's loaded table).
void push_commands(lua_State* L) {
  lua_getglobal(L, "require");
  lua_pushliteral(L, "heapql.commands");
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) throw Error(error_message(L, -1));
}

}  // namespace

CommandDefinitions::CommandDefinitions() : L_(state_.get()) {
  open_sandbox(L_, SandboxOptions{});
  push_commands(L_);  // loaded now, so that a broken module fails here
  lua_settop(L_, 0);
}

void CommandDefinitions::call_function(const char* name, std::optional<std::string_view> command) {
  lua_settop(L_, 0);
  push_commands(L_);
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
    const Fields option(L_, -1, "command option field");
    options.push_back(AcceptedOption{option.string("name").value_or(""), option.strings("aliases"),
                                     option.boolean("takes_value", false),
                                     option.boolean("repeatable", false)});
    lua_pop(L_, 1);
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

std::optional<std::vector<OptionDescription>> CommandDefinitions::describe(std::string_view command) {
  call_function("describe", command);
  if (!lua_istable(L_, -1)) return std::nullopt;
  std::vector<OptionDescription> options;
  for (lua_Integer i = 1; lua_rawgeti(L_, 1, i) == LUA_TTABLE; ++i) {
    const Fields o(L_, -1, "command option field");
    OptionDescription d;
    d.option = o.string("option").value_or("");
    d.aliases = o.strings("aliases");
    d.field = o.string("field");
    d.value = o.string("value");
    d.repeatable = o.boolean("repeatable", false);
    d.help = o.string("help").value_or("");
    d.doc = o.string("doc").value_or("");
    d.choices = o.strings("choices");
    d.default_value = o.string("default");
    d.group = o.string("group").value_or("command");
    options.push_back(std::move(d));
    lua_pop(L_, 1);
  }
  lua_settop(L_, 0);
  return options;
}

}  // namespace heapql::lua
