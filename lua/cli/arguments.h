// A small command-line cursor: `--name value`, `--name=value`, flags, and
// positional arguments, with errors that name the option.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace heapql::cli {

// Thrown for usage errors (unknown option, missing value); exit code 3.
struct UsageError {
  std::string message;
};

class Arguments {
 public:
  Arguments(int argc, char** argv, int first);
  explicit Arguments(std::vector<std::string> args) : args_(std::move(args)) {}

  bool done() const { return next_ >= args_.size(); }
  // The current argument is an option (starts with '-', not "-" alone, not after "--").
  bool at_option() const;
  // Consumes and returns the option name (`--window` of `--window=1s..`).
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
};

}  // namespace heapql::cli
