// heapql's command line as heapql.commands defines it (lua/heapql/commands.lua,
// the one definition): the options each command accepts, `heapql help` and
// `heapql help COMMAND`. docs/cli.md's synopsis is made from the same module.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lua/host/lua_state.h"

namespace heapql::lua {

struct AcceptedOption {
  std::string name;                  // "-o"
  std::vector<std::string> aliases;  // "--output"
  bool takes_value = false;
  bool repeatable = false;  // may be given more than once (its values add up)
};

class CommandDefinitions {
 public:
  // Loads heapql.commands into a sandboxed state of its own.
  CommandDefinitions();

  // The options `command` accepts (its query options included); none when
  // it is no command.
  std::optional<std::vector<AcceptedOption>> accepted(std::string_view command);
  // `heapql help`.
  std::string usage();
  // `heapql help COMMAND`; none when it is no command.
  std::optional<std::string> help(std::string_view command);

 private:
  // Calls heapql.commands' function `name` with `command` (when given); its
  // result is left on the stack.
  void call_function(const char* name, std::optional<std::string_view> command);

  LuaState state_;
  lua_State* L_ = nullptr;
};

}  // namespace heapql::lua
