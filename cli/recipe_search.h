// How the recipe commands (run, list, help) find recipes: a .lua file by its
// path, or a recipe by name in `--recipes DIR` first, then in the shipped
// queries/ folder. One search, so that what `heapql list` names is what
// `heapql run NAME` runs.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lua/host/recipe_runner.h"

namespace heapql::cli {

struct FoundRecipe {
  std::string name;  // what `heapql run NAME` takes: the file's name without .lua
  std::filesystem::path file;
  std::size_t folder = 0;  // its folder's index in RecipeSearch::folders()
};

class RecipeSearch {
 public:
  // UsageError when `recipes_dir` (--recipes) is not a folder.
  explicit RecipeSearch(const std::optional<std::string>& recipes_dir = std::nullopt);

  // The folders searched by name, in order.
  const std::vector<std::filesystem::path>& folders() const { return folders_; }
  // A recipe named by path, or by name in the folders; UsageError naming the
  // folders and the names near `name` when it is neither.
  lua::RecipeSource find(const std::string& name) const;
  // Every recipe found by name, sorted by name; a name in --recipes DIR hides
  // the shipped recipe of that name (as find does).
  std::vector<FoundRecipe> all() const;

 private:
  std::vector<std::filesystem::path> folders_;
};

}  // namespace heapql::cli
