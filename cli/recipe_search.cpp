#include "cli/recipe_search.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/near_names.h"
#include "cli/arguments.h"
#include "cli/shipped_files.h"
#include "engine/platform/utf8_wide.h"

namespace heapql::cli {

namespace fs = std::filesystem;

RecipeSearch::RecipeSearch(const std::optional<std::string>& recipes_dir) {
  if (recipes_dir) {
    std::error_code error;
    if (!fs::is_directory(path_from_utf8(*recipes_dir), error)) {
      throw UsageError{fmt::format("--recipes '{}': not a folder", *recipes_dir)};
    }
    folders_.push_back(path_from_utf8(*recipes_dir));
  }
  folders_.push_back(lua::queries_folder());
}

lua::RecipeSource RecipeSearch::find(const std::string& name) const {
  lua::RecipeSource source;
  std::error_code error;
  if (fs::is_regular_file(path_from_utf8(name), error)) {
    source.path = path_from_utf8(name);
    return source;
  }
  if (name.find('/') == std::string::npos) {
    for (const fs::path& folder : folders_) {
      const fs::path file = folder / path_from_utf8(name.ends_with(".lua") ? name : name + ".lua");
      if (fs::is_regular_file(file, error)) {
        source.path = file;
        return source;
      }
    }
  }
  std::vector<std::string> names;
  for (const FoundRecipe& recipe : all()) names.push_back(recipe.name);
  std::vector<std::string> searched;
  for (const fs::path& folder : folders_) searched.push_back(utf8_from_path(folder));
  const std::vector<std::string> near = near_names(name, names);
  throw UsageError{fmt::format("no recipe '{}': not a file, nor a recipe in {} ({}heapql list names them)", name,
                               fmt::join(searched, " or "),
                               near.empty() ? "" : "did you mean " + quoted_alternatives(near) + "? ")};
}

std::vector<FoundRecipe> RecipeSearch::all() const {
  std::vector<FoundRecipe> found;
  for (std::size_t i = 0; i < folders_.size(); ++i) {
    for (const std::string& name : file_stems(folders_[i], ".lua")) {
      const bool hidden = std::any_of(found.begin(), found.end(), [&](const FoundRecipe& r) { return r.name == name; });
      if (!hidden) found.push_back(FoundRecipe{name, folders_[i] / (name + ".lua"), i});
    }
  }
  std::sort(found.begin(), found.end(), [](const FoundRecipe& a, const FoundRecipe& b) { return a.name < b.name; });
  return found;
}

}  // namespace heapql::cli
