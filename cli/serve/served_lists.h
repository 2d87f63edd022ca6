// What a request may name, found once at start (docs/serve.md): the cull
// lists and suppression lists heapql ships (queries/cull/NAME.txt,
// queries/suppressions/NAME.txt) and those in --recipes DIR (DIR/cull/NAME.txt,
// DIR/suppressions/NAME.txt), and the recipes (the shipped ones, and
// DIR/NAME.lua, which wins over a shipped one of its name). A request names
// them by NAME only; the server gives the command the file.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lua/host/run_limits.h"

namespace heapql::cli {

struct ServedRecipe {
  // What `heapql run` is given: the file, absolute (a shipped recipe's name
  // would be taken for a file of that name in the current folder).
  std::string file;
  std::vector<std::string> path_params;  // params that name files: refused from a request
};

class ServedLists {
 public:
  // Looks in the shipped queries/ folder and in `recipes_dir` (empty: none).
  // Each recipe is described (lua::describe_recipe, under `limits`) to learn
  // its params; one that fails is left out, with its error on stderr.
  static ServedLists find(const std::string& recipes_dir, const lua::Limits& limits);

  // What the command is given for a served list of that name (none: not
  // served): a shipped list's name, as a user types it (`--cull-list stl`),
  // unless a file of that name in the current folder would be read instead;
  // else the list's file.
  std::optional<std::string> cull_list(std::string_view name) const;
  std::optional<std::string> suppression_list(std::string_view name) const;
  const ServedRecipe* recipe(std::string_view name) const;
  // "stl, libc-linux, ..." for a message: the cull lists, or the suppression lists.
  std::string names_of(bool cull) const;
  std::string recipe_names() const;

 private:
  struct List {
    std::string file;
    bool shipped = false;
  };
  std::map<std::string, List, std::less<>> cull_lists_;  // by NAME
  std::map<std::string, List, std::less<>> suppression_lists_;
  std::map<std::string, ServedRecipe, std::less<>> recipes_;
};

}  // namespace heapql::cli
