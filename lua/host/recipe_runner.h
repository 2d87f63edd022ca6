// Running a recipe file (heapql run / xperf --run) and reading its
// declaration without running its query (heapql list / help). Each call uses
// a fresh sandboxed state.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/ingest/open_options.h"
#include "lua/host/run_limits.h"

namespace heapql::lua {

enum class RunStatus { kOk, kGateFailed, kBadTrace, kRecipeError };

struct RecipeSource {
  std::filesystem::path path;         // the file, or a display name with `text`
  std::optional<std::string> text;    // the recipe's text when it has no file (xperf)
  std::filesystem::path folder() const;  // where its relative files are read from
};

struct RecipeOptions {
  Limits limits;
  bool trusted = false;
  std::string message_prefix = "heapql: ";  // starts the message when a limit ends the run
  bool verbose = false;  // errors carry a Lua traceback (through heapql's library too)
  std::vector<std::filesystem::path> readable_files;  // named on the command line
};

struct RecipeRun {
  RecipeSource recipe;
  std::string trace_path;
  std::vector<std::pair<std::string, std::string>> params;  // --param NAME=VALUE
  std::string format = "table";  // --format: one of those lua/heapql/commands.lua gives `run`
  OpenOptions open;
  RecipeOptions options;
  bool full_names = false;  // --full-names: tables and HTML show frames exactly
};

struct RunOutcome {
  RunStatus status = RunStatus::kOk;
  std::string output;                  // the report
  std::string error;                   // for kBadTrace / kRecipeError
  std::vector<std::string> failed_gates;
};

RunOutcome run_recipe(const RecipeRun& run);

// A recipe's param as `heapql help NAME` shows it (heapql.recipe's param_list).
struct RecipeParam {
  std::string name;
  std::string type;                    // "integer", "duration_range", ...
  std::optional<std::string> default_value;  // as --param NAME=VALUE writes it; none when it has none
  std::string doc;
};

struct RecipeInfo {
  std::string name;
  std::string doc;
  std::string help;  // the text of `heapql help`
  std::vector<RecipeParam> params;  // sorted by name
  // Its params of type path, sorted: files a run may read because the user
  // named them (`heapql serve` refuses them from the web).
  std::vector<std::string> path_params;
};

// Throws heapql::Error with the recipe's file:line and message.
RecipeInfo describe_recipe(const RecipeSource& recipe, const RecipeOptions& options);

// The recipe text equivalent to an xperf heap-action command line (the words
// after `heapql xperf`). Throws heapql::Error naming the bad flag.
std::string translate_xperf(const std::vector<std::string>& words);

// The shipped queries/ folder: HEAPQL_QUERIES if set; else the installed one
// beside the program (<prefix>/share/heapql/queries); else, for a program run
// from its build folder, the source tree's.
std::filesystem::path queries_folder();

}  // namespace heapql::lua
