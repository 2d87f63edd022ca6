#include "cli/arguments.h"

#include <fmt/format.h>

#include "engine/near_names.h"
#include "lua/host/query_flags.h"

namespace heapql::cli {

Arguments::Arguments(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) args_.emplace_back(argv[i]);
}

bool Arguments::at_option() const {
  if (done()) return false;
  const std::string& a = args_[next_];
  return a.size() > 1 && a[0] == '-' && a != "--";
}

void Arguments::accept_only(std::string command, std::vector<lua::AcceptedOption> options) {
  command_ = std::move(command);
  accepted_ = std::move(options);
}

const lua::AcceptedOption* Arguments::accepted(std::string_view name) const {
  if (!accepted_) return nullptr;
  for (const lua::AcceptedOption& option : *accepted_) {
    if (option.name == name) return &option;
    for (const std::string& alias : option.aliases) {
      if (alias == name) return &option;
    }
  }
  return nullptr;
}

Arguments Arguments::over(std::vector<std::string> words) const {
  Arguments arguments(std::move(words));
  arguments.command_ = command_;
  arguments.accepted_ = accepted_;
  return arguments;
}

void Arguments::unknown_option(std::string_view name) const {
  const std::string see = fmt::format("see heapql help {}", command_);
  if (name == "--param") {
    throw UsageError{fmt::format("unknown option '--param' (a recipe's params are for heapql run RECIPE TRACE "
                                 "--param NAME=VALUE; heapql {} takes none; {})",
                                 command_, see)};
  }
  // A query option given to a command without them: what it is for.
  if (lua::QueryFlags().find(name) != nullptr) {
    if (command_ == "run" || command_ == "xperf") {
      throw UsageError{fmt::format("'{}' is an option of heapql query; a recipe is set with its params "
                                   "(--param NAME=VALUE, such as --param {}=... where the recipe has that "
                                   "param; heapql help RECIPE lists them)",
                                   name, name.substr(name.find_first_not_of('-')))};
    }
    throw UsageError{fmt::format("'{}' is an option of heapql query and import, not of heapql {} ({})", name,
                                 command_, see)};
  }
  std::vector<std::string> known;
  for (const lua::AcceptedOption& option : accepted_ ? *accepted_ : std::vector<lua::AcceptedOption>{}) {
    known.push_back(option.name);
    for (const std::string& alias : option.aliases) known.push_back(alias);
  }
  // `-top`: a long option written with one dash.
  std::vector<std::string> near;
  if (const std::string dashed = "-" + std::string(name); !name.starts_with("--") && accepted(dashed) != nullptr) {
    near.push_back(dashed);
  } else if (name.size() >= 4) {  // "-x" is near too many to say which was meant
    near = near_names(name, known);
  }
  throw UsageError{fmt::format("unknown option '{}' ({}{})", name,
                               near.empty() ? "" : "did you mean " + quoted_alternatives(near) + "? ", see)};
}

std::string Arguments::take_option() {
  std::string a = args_[next_++];
  inline_value_.reset();
  if (a.rfind("--", 0) == 0) {
    if (auto eq = a.find('='); eq != std::string::npos) {
      inline_value_ = a.substr(eq + 1);
      a.resize(eq);
    }
  }
  if (!accepted_) return a;
  const lua::AcceptedOption* option = accepted(a);
  if (option == nullptr) unknown_option(a);
  if (inline_value_ && !option->takes_value) {
    throw UsageError{fmt::format("{} takes no value (got '{}={}')", a, a, *inline_value_)};
  }
  return option->name;
}

std::string Arguments::take_value(std::string_view option) {
  if (inline_value_) {
    std::string v = *inline_value_;
    inline_value_.reset();
    return v;
  }
  if (done()) throw UsageError{fmt::format("{} needs a value", option)};
  return args_[next_++];
}

std::string Arguments::take_positional() { return args_[next_++]; }

std::vector<std::string> Arguments::take_rest() {
  if (at_separator()) ++next_;
  std::vector<std::string> rest(args_.begin() + static_cast<std::ptrdiff_t>(next_), args_.end());
  next_ = args_.size();
  return rest;
}

}  // namespace heapql::cli
