// What heapql ships in its queries/ folder, by name: recipes (queries/*.lua),
// cull lists (queries/cull/*.txt) and suppression lists
// (queries/suppressions/*.txt). `--cull-list NAME`, `--suppressions NAME`,
// `heapql run NAME` and `heapql help query --format json` name them so.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace heapql::cli {

// The names (file names without `extension`, ".lua") of the regular files
// in `folder` that end in `extension`, sorted; none when it cannot be read.
std::vector<std::string> file_stems(const std::filesystem::path& folder, std::string_view extension);

// The names of the shipped lists of a kind: "cull" (queries/cull/*.txt) or
// "suppressions" (queries/suppressions/*.txt).
std::vector<std::string> shipped_list_names(std::string_view kind);

// What a `--cull-list` or `--suppressions` value reads: the file it names,
// or, when no file of that name is here and it has no '/', the shipped list
// `queries/KIND/NAME.txt` of that name, so that `--cull-list stl` works from
// an installed heapql wherever it runs.
struct ListSource {
  std::string path;                    // the file read
  std::optional<std::string> shipped;  // the shipped list's name, when it is one (by name or by its path)
};
// UsageError when the value is neither a file nor a shipped name but nearly
// names one (the engine would only say the file cannot be opened).
ListSource list_source(const std::string& value, std::string_view kind);

}  // namespace heapql::cli
