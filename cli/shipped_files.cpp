#include "cli/shipped_files.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/near_names.h"
#include "cli/arguments.h"

#include "lua/host/recipe_runner.h"
#include "engine/platform/utf8_wide.h"

namespace heapql::cli {

namespace fs = std::filesystem;

std::vector<std::string> file_stems(const fs::path& folder, std::string_view extension) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.path().extension() == extension && entry.is_regular_file(error)) {
      names.push_back(utf8_from_path(entry.path().stem()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> shipped_list_names(std::string_view kind) {
  return file_stems(lua::queries_folder() / kind, ".txt");
}

ListSource list_source(const std::string& value, std::string_view kind) {
  std::error_code ignored;
  const std::vector<std::string> names = shipped_list_names(kind);
  if (value.find('/') != std::string::npos || fs::exists(path_from_utf8(value), ignored)) {
    // A shipped list named by its path (heapql serve passes them so) is still
    // that list: a recipe then reads it by name, from wherever it is run.
    const std::string stem = utf8_from_path(path_from_utf8(value).stem());
    const fs::path shipped = lua::queries_folder() / kind / path_from_utf8(stem + ".txt");
    const bool is_shipped = std::find(names.begin(), names.end(), stem) != names.end() &&
                            fs::equivalent(path_from_utf8(value), shipped, ignored);
    return ListSource{value, is_shipped ? std::optional<std::string>(stem) : std::nullopt};
  }
  if (std::find(names.begin(), names.end(), value) != names.end()) {
    return ListSource{utf8_from_path(lua::queries_folder() / kind / path_from_utf8(value + ".txt")), value};
  }
  if (const std::vector<std::string> near = near_names(value, names); !near.empty()) {
    throw UsageError{fmt::format("--{} '{}': no such file, nor a shipped list of that name; did you mean {}?",
                                 kind == "cull" ? "cull-list" : kind, value, quoted_alternatives(near))};
  }
  return ListSource{value, std::nullopt};
}

}  // namespace heapql::cli
