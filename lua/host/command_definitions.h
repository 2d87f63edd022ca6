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

// One option as `heapql help COMMAND --format json` describes it
// (heapql.commands' describe; docs/json.md).
struct OptionDescription {
  std::string option;                  // "--by"
  std::vector<std::string> aliases;    // "--output" for "-o"
  std::optional<std::string> field;    // the query field a query option sets: "by"
  std::optional<std::string> value;    // its placeholder ("K[,K...]"); none for a switch
  bool repeatable = false;
  std::string help;                    // one line
  std::string doc;                     // the longer text of docs/cli.md
  std::vector<std::string> choices;    // the values it takes, when a fixed list
  std::optional<std::string> default_value;  // as the command line writes it
  std::string group;                   // "query" | "output" | "reading" | "command"
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
  // Every option `command` takes, described; none when it is no command.
  std::optional<std::vector<OptionDescription>> describe(std::string_view command);

 private:
  // Calls heapql.commands' function `name` with `command` (when given); its
  // result is left on the stack.
  void call_function(const char* name, std::optional<std::string_view> command);

  LuaState state_;
  lua_State* L_ = nullptr;
};

}  // namespace heapql::lua
