// A small command-line cursor: `--name value`, `--name=value`, flags, and
// positional arguments, with errors that name the option.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lua/host/command_definitions.h"

namespace heapql::cli {

// Thrown for usage errors (unknown option, missing value); exit code 3.
struct UsageError {
  std::string message;
};

class Arguments {
 public:
  Arguments(int argc, char** argv, int first);
  explicit Arguments(std::vector<std::string> args) : args_(std::move(args)) {}

  // From now on only `command`'s options (heapql.commands) are taken: any
  // other is an unknown option, and an alias is taken as its option's name.
  void accept_only(std::string command, std::vector<lua::AcceptedOption> options);
  // The accepted option named `name` (or one of its aliases); null when it
  // is none, or when every option is taken.
  const lua::AcceptedOption* accepted(std::string_view name) const;
  // `words` as arguments of the same command, taking the same options.
  Arguments over(std::vector<std::string> words) const;
  // UsageError "unknown option 'NAME' (see heapql help COMMAND)", naming
  // the accepted options near NAME, or what a query option or --param is for.
  [[noreturn]] void unknown_option(std::string_view name) const;

  bool done() const { return next_ >= args_.size(); }
  // The current argument is an option (starts with '-', not "-" alone, not after "--").
  bool at_option() const;
  // Consumes and returns the option name (`--window` of `--window=1s..`);
  // UsageError when the command does not accept it (accept_only).
  std::string take_option();
  // The option's value: the `=value` part or the next argument.
  std::string take_value(std::string_view option);
  std::string take_positional();
  // The next word as it is, whatever it looks like.
  std::string take_any() { return args_[next_++]; }
  // Everything after a "--" separator (or the rest).
  std::vector<std::string> take_rest();
  bool at_separator() const { return !done() && args_[next_] == "--"; }

 private:
  std::vector<std::string> args_;
  std::size_t next_ = 0;
  std::optional<std::string> inline_value_;
  std::string command_;
  std::optional<std::vector<lua::AcceptedOption>> accepted_;
};

}  // namespace heapql::cli
