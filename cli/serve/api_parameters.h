// An API request's parameters as the command line's words: `by=stack&top=5`
// becomes `--by=stack --top=5`, for the options the command's definition
// accepts (lua/heapql/commands.lua: which take a value, which repeat), in
// the order given. What would name a file, or change how a trace is read or
// what a request may spend, is refused (docs/serve.md, "What is refused").
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lua/host/command_definitions.h"

namespace heapql::cli {

class ServedLists;

// NAME=VALUE pairs of a request, decoded, in order.
using Parameters = std::vector<std::pair<std::string, std::string>>;

// A request the API answers with an error of its own (not a command's):
// status 400 or 404 and the message.
struct ApiRefusal {
  int status = 400;
  std::string message;
};

// The query string of `target` (a request target, path?query), split and
// percent-decoded ('+' is a space), in order.
Parameters parameters_in_order(std::string_view target);

// The first value of `name`, or empty.
std::string parameter(const Parameters& parameters, std::string_view name);

// The options a command accepts that a request may give (the parameters
// named in `taken` are the endpoint's own, such as trace or view, and are
// skipped): `--NAME=VALUE` for an option with a value, `--NAME` for a flag
// (whose value must be empty, 1 or true). A cull-list or suppressions value
// must be a served list's name (served_lists.h) and becomes its file; the
// refused options, and any other the command does not accept, throw
// ApiRefusal naming the parameter.
std::vector<std::string> option_words(const std::vector<lua::AcceptedOption>& accepted, const Parameters& parameters,
                                      const std::set<std::string, std::less<>>& taken, const ServedLists& lists);

}  // namespace heapql::cli
