#include "cli/serve/served_lists.h"

#include <fmt/format.h>

#include <filesystem>

#include "engine/error.h"
#include "lua/host/recipe_runner.h"

namespace heapql::cli {

namespace {

namespace fs = std::filesystem;

// FOLDER/NAME.EXTENSION files (regular ones, links followed), by NAME.
std::map<std::string, fs::path> files_in(const fs::path& folder, std::string_view extension) {
  std::map<std::string, fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    std::error_code ignored;
    if (entry.path().extension() == extension && fs::is_regular_file(entry.path(), ignored)) {
      files[entry.path().stem().string()] = fs::absolute(entry.path(), ignored);
    }
  }
  return files;
}

template <class Map>
std::string joined_names(const Map& map) {
  std::string names;
  for (const auto& entry : map) names += (names.empty() ? "" : ", ") + entry.first;
  return names.empty() ? "none" : names;
}

}  // namespace

ServedLists ServedLists::find(const std::string& recipes_dir, const lua::Limits& limits) {
  ServedLists lists;
  std::vector<fs::path> folders = {lua::queries_folder()};
  if (!recipes_dir.empty()) folders.emplace_back(recipes_dir);
  for (std::size_t i = 0; i < folders.size(); ++i) {
    const bool shipped = i == 0;
    for (const auto& [name, file] : files_in(folders[i] / "cull", ".txt")) {
      lists.cull_lists_[name] = List{file.string(), shipped};
    }
    for (const auto& [name, file] : files_in(folders[i] / "suppressions", ".txt")) {
      lists.suppression_lists_[name] = List{file.string(), shipped};
    }
    for (const auto& [name, file] : files_in(folders[i], ".lua")) {
      try {
        lua::RecipeOptions options;
        options.message_prefix = "heapql serve: ";
        options.limits = limits;
        const lua::RecipeInfo info = lua::describe_recipe(lua::RecipeSource{file, {}}, options);
        lists.recipes_[name] = ServedRecipe{file.string(), info.path_params};
      } catch (const Error& e) {
        fmt::print(stderr, "heapql serve: recipe {} is not served: {}\n", file.string(), e.what());
      }
    }
  }
  return lists;
}

namespace {

template <class Map>
std::optional<std::string> list_word(const Map& lists, std::string_view name) {
  const auto found = lists.find(name);
  if (found == lists.end()) return std::nullopt;
  std::error_code ignored;
  if (found->second.shipped && !fs::exists(fs::path(name), ignored)) return std::string(name);
  return found->second.file;
}

}  // namespace

std::optional<std::string> ServedLists::cull_list(std::string_view name) const { return list_word(cull_lists_, name); }

std::optional<std::string> ServedLists::suppression_list(std::string_view name) const {
  return list_word(suppression_lists_, name);
}

const ServedRecipe* ServedLists::recipe(std::string_view name) const {
  const auto found = recipes_.find(name);
  return found == recipes_.end() ? nullptr : &found->second;
}

std::string ServedLists::names_of(bool cull) const { return joined_names(cull ? cull_lists_ : suppression_lists_); }

std::string ServedLists::recipe_names() const { return joined_names(recipes_); }

}  // namespace heapql::cli
