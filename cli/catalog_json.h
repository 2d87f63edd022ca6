// The JSON of heapql's catalog (docs/json.md): a command's options (`heapql
// help COMMAND --format json`) and the recipes (`heapql list --format json`),
// for programs such as `heapql serve`'s page, which builds its forms from them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lua/host/command_definitions.h"
#include "lua/host/recipe_runner.h"

namespace heapql::cli {

// {"heapql":1,"command":…,"options":[…],"cull_lists":[…],"suppression_lists":[…]}
std::string command_options_json(std::string_view command, const std::vector<lua::OptionDescription>& options,
                                 const std::vector<std::string>& cull_lists,
                                 const std::vector<std::string>& suppression_lists);

// A recipe as listed: what `heapql help NAME` says, or why it could not be read.
struct ListedRecipe {
  std::string name;  // what `heapql run NAME` takes
  std::string file;
  std::size_t folder = 0;               // where it was found (RecipeSearch::folders())
  std::optional<lua::RecipeInfo> info;  // none when it failed to load
  std::string error;                    // then, the message
};

// {"heapql":1,"recipes":[{"name":…,"doc":…,"file":…,"params":[…]}…]}
std::string recipes_json(const std::vector<ListedRecipe>& recipes);

}  // namespace heapql::cli
