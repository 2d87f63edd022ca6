// `heapql query`'s options as heapql.schema defines them (the one definition
// of a query): which options set query fields and whether they take a value,
// their help text, and the engine's Query that the options given spell,
// validated on the same path as a recipe's query table.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/query/query.h"
#include "lua/host/lua_state.h"

namespace heapql::lua {

struct QueryFlag {
  std::string option;  // "--window"
  std::string field;   // the schema's field: "window"
  bool takes_value = false;
};

class QueryFlags {
 public:
  // Loads heapql.schema into a sandboxed state of its own.
  QueryFlags();

  // Every query option, in the schema's order.
  const std::vector<QueryFlag>& all() const { return options_; }
  // The query option named `option`, or null when it is none.
  const QueryFlag* find(std::string_view option) const;
  // Records an option as given (value: none for a switch), in order.
  void add(const QueryFlag& option, std::optional<std::string> value);
  // The options given, in order, with their values (none for a switch).
  const std::vector<std::pair<std::string, std::optional<std::string>>>& given() const { return given_; }
  // The values given for `option`, in order.
  std::vector<std::string> values_of(std::string_view option) const;

  // The query the options given spell. Throws heapql::Error with the
  // schema's message, which names the option.
  Query query(std::string_view where);

  // The query options of `heapql help`, a line each.
  std::string usage();

  // The text of a recipe file whose query is the one the options given
  // spell (heapql.recipe_text's from_flags). `shipped`: the --cull-list and
  // --suppressions values that name shipped lists, as
  // {"cull" or "suppressions", value} -> the list's name; `words`: the
  // command line after "heapql", for the recipe's comment and doc.
  std::string recipe_text(const std::map<std::pair<std::string, std::string>, std::string>& shipped,
                          const std::vector<std::string>& words);

 private:
  // Pushes the options given as heapql.schema takes them: {{option, value}, ...}.
  void push_given();

  LuaState state_;
  lua_State* L_ = nullptr;
  std::vector<QueryFlag> options_;
  std::vector<std::pair<std::string, std::optional<std::string>>> given_;
};

}  // namespace heapql::lua
