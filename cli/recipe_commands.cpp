// `heapql run`, `heapql list`, `heapql help` and `heapql xperf`: the recipe
// side of the command line, and the help of commands.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "engine/error.h"
#include "engine/report/html_report.h"
#include "engine/session/file_kind.h"
#include "engine/units.h"
#include "cli/catalog_json.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/query_options.h"
#include "cli/recipe_search.h"
#include "cli/report_output.h"
#include "cli/shipped_files.h"
#include "lua/host/query_flags.h"
#include "lua/host/recipe_runner.h"
#include "engine/platform/utf8_wide.h"

namespace heapql::cli {

namespace fs = std::filesystem;
using lua::RecipeOptions;
using lua::RecipeRun;
using lua::RecipeSource;
using lua::RunOutcome;
using lua::RunStatus;

namespace {

// A trace given where the recipe goes (`heapql run prog.zst leaks`) would be
// read as Lua; say which argument is which instead.
void refuse_trace_as_recipe(const std::string& first, Arguments& args) {
  if (first.ends_with(".lua")) return;
  const FileKind kind = sniff_file_kind(first);
  if (kind == FileKind::kOther) return;
  const std::string recipe = !args.done() && !args.at_option() ? args.take_positional() : "RECIPE";
  throw UsageError{fmt::format("'{}' is {}, not a recipe: the recipe comes first, then the trace: heapql run {} {}",
                               first, file_kind_phrase(kind), recipe, first)};
}

// Options every recipe command takes; false when `option` is not one.
bool parse_recipe_option(const std::string& option, Arguments& args, RecipeOptions& options) {
  if (option == "--trusted") {
    options.trusted = true;
  } else if (option == "--verbose") {
    options.verbose = true;
  } else if (option == "--timeout") {
    const std::string value = args.take_value(option);
    std::int64_t ns = 0;
    try {
      ns = value == "0" ? 0 : parse_duration_ns(value);  // 0: no limit, no unit needed
    } catch (const Error& e) {
      throw UsageError{fmt::format("--timeout {}", e.what())};
    }
    options.limits.timeout = std::chrono::milliseconds(std::max<std::int64_t>(ns / 1'000'000, ns > 0 ? 1 : 0));
  } else if (option == "--memory") {
    const std::string value = args.take_value(option);
    try {
      options.limits.memory_bytes = static_cast<std::size_t>(parse_size_bytes(value));
    } catch (const Error& e) {
      throw UsageError{fmt::format("--memory {}", e.what())};
    }
  } else {
    return false;
  }
  return true;
}

// `--format text|json` of list and help: true for json.
bool take_listing_format(const std::string& option, Arguments& args) {
  const std::string value = args.take_value(option);
  if (value != "text" && value != "json") throw UsageError{fmt::format("--format '{}': expected text|json", value)};
  return value == "json";
}

// A recipe as `heapql list` lists it; its load error is kept, not thrown.
ListedRecipe listed(const FoundRecipe& found, const RecipeOptions& options) {
  ListedRecipe recipe{found.name, utf8_from_path(found.file), found.folder, std::nullopt, {}};
  try {
    recipe.info = lua::describe_recipe(RecipeSource{found.file, {}}, options);
  } catch (const Error& e) {
    recipe.error = e.what();
  }
  return recipe;
}

}  // namespace

int report_outcome(const RunOutcome& outcome, ReportOutput& output) {
  switch (outcome.status) {
    case RunStatus::kBadTrace:
      fmt::print(stderr, "heapql run: {}\n", outcome.error);
      return kExitBadTrace;
    case RunStatus::kRecipeError:
      fmt::print(stderr, "heapql run: {}\n", outcome.error);
      return kExitBadQuery;
    case RunStatus::kOk:
    case RunStatus::kGateFailed: break;
  }
  output.write(outcome.output);
  output.finish();
  for (const std::string& gate : outcome.failed_gates) fmt::print(stderr, "heapql run: gate failed: {}\n", gate);
  return outcome.status == RunStatus::kGateFailed ? kExitGateFailed : kExitOk;
}

// Opens the output (-o) before the recipe runs, so that an unwritable one is
// said first.
RunOutcome run_with_options(RecipeRun run, Arguments& args, std::optional<ReportOutput>& output,
                             const std::optional<std::string>& recipe_name) {
  std::optional<std::string> output_file;
  std::optional<std::string> recipes_dir;
  while (!args.done()) {
    if (!args.at_option()) {
      const std::string word = args.take_positional();
      if (!run.trace_path.empty()) throw UsageError{fmt::format("one trace at a time (got '{}' and '{}')", run.trace_path, word)};
      run.trace_path = word;
      continue;
    }
    const std::string option = args.take_option();
    if (option == "--param") {
      const std::string value = args.take_value(option);
      const auto eq = value.find('=');
      if (eq == std::string::npos || eq == 0) throw UsageError{fmt::format("--param '{}': expected NAME=VALUE", value)};
      run.params.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (option == "--format") {
      run.format = args.take_value(option);
      if (run.format != "table" && run.format != "json" && run.format != "csv" && run.format != "html") {
        throw UsageError{fmt::format("--format '{}': expected table|json|csv|html", run.format)};
      }
      if (run.format == "html" && !html_report_built()) {
        throw UsageError{"--format html: this heapql was built without the HTML report (-DHEAPQL_HTML_REPORT=OFF)"};
      }
    } else if (option == "-o") {
      output_file = args.take_value(option);
    } else if (option == "--recipes") {
      recipes_dir = args.take_value(option);
    } else if (option == "--no-raw") {
      run.open.use_raw_twin = false;
    } else if (option == "--strict") {
      run.open.strict = true;
    } else if (option == "--no-store") {
      run.open.use_store = false;
    } else if (option == "--no-progress") {
      run.open.show_progress = false;
    } else if (option == "--full-names") {
      run.full_names = true;
    } else if (option == "--symbols") {
      run.open.symbol_paths.push_back(take_symbol_path(args));
    } else if (!parse_recipe_option(option, args, run.options)) {
      args.unknown_option(option);
    }
  }
  // Found once --recipes is known, wherever it was given.
  if (recipe_name) run.recipe = RecipeSearch(recipes_dir).find(*recipe_name);
  if (run.trace_path.empty()) throw UsageError{"needs a trace file"};
  run.options.message_prefix = "heapql run: ";
  const std::string recipe_file = run.recipe.text ? std::string() : utf8_from_path(run.recipe.path);
  output.emplace(output_file, std::vector<std::string>{run.trace_path, recipe_file});
  return lua::run_recipe(run);
}

int run_run(Arguments& args) {
  if (args.done() || args.at_option()) throw UsageError{"needs a recipe: heapql run RECIPE TRACE [--param NAME=VALUE]..."};
  RecipeRun run;
  const std::string recipe = args.take_positional();
  refuse_trace_as_recipe(recipe, args);
  run.open.show_progress = false;
  std::optional<ReportOutput> output;
  const RunOutcome outcome = run_with_options(std::move(run), args, output, recipe);
  return report_outcome(outcome, *output);
}

int run_list(Arguments& args) {
  RecipeOptions options;
  options.message_prefix = "heapql list: ";
  std::optional<std::string> recipes_dir;
  bool json = false;
  while (!args.done()) {
    const std::string option = args.take_option();
    if (option == "--recipes") {
      recipes_dir = args.take_value(option);
    } else if (option == "--format") {
      json = take_listing_format(option, args);
    } else if (!parse_recipe_option(option, args, options)) {
      args.unknown_option(option);
    }
  }
  const RecipeSearch search(recipes_dir);
  std::vector<ListedRecipe> recipes;
  for (const FoundRecipe& found : search.all()) recipes.push_back(listed(found, options));
  if (json) {
    // A recipe that cannot be read is an entry with its error: the others
    // stay usable (heapql serve lists them from this).
    emit(recipes_json(recipes), std::nullopt);
    return kExitOk;
  }
  std::string listing;
  int failures = 0;
  for (std::size_t folder = 0; folder < search.folders().size(); ++folder) {
    listing += fmt::format("recipes in {} (heapql help NAME for params):\n", utf8_from_path(search.folders()[folder]));
    for (const ListedRecipe& recipe : recipes) {
      if (recipe.folder != folder) continue;
      if (recipe.info) {
        listing += fmt::format("  {:<16} {}\n", recipe.name, recipe.info->doc);
      } else {
        fmt::print(stderr, "heapql list: {}\n", recipe.error);
        ++failures;
      }
    }
  }
  emit(listing, std::nullopt);
  return failures == 0 ? kExitOk : kExitBadQuery;
}

int run_help(Arguments& args, lua::CommandDefinitions& definitions) {
  std::optional<std::string> name;
  std::optional<std::string> recipes_dir;
  bool json = false;
  RecipeOptions options;
  options.message_prefix = "heapql help: ";
  while (!args.done()) {
    if (!args.at_option()) {
      const std::string word = args.take_positional();
      if (name) throw UsageError{fmt::format("one command or recipe at a time (got '{}' and '{}')", *name, word)};
      name = word;
      continue;
    }
    const std::string option = args.take_option();
    if (option == "--recipes") {
      recipes_dir = args.take_value(option);
    } else if (option == "--format") {
      json = take_listing_format(option, args);
    } else if (!parse_recipe_option(option, args, options)) {
      args.unknown_option(option);
    }
  }
  if (!name) {
    if (json) throw UsageError{"--format json describes one command or recipe: heapql help COMMAND --format json"};
    emit(definitions.usage(), std::nullopt);
    return kExitOk;
  }
  // A command's help first: a recipe of a command's name is still run by its path.
  if (const auto described = definitions.describe(*name)) {
    emit(json ? command_options_json(*name, *described, shipped_list_names("cull"), shipped_list_names("suppressions"))
              : *definitions.help(*name),
         std::nullopt);
    return kExitOk;
  }
  RecipeSource source;
  try {
    source = RecipeSearch(recipes_dir).find(*name);
  } catch (const UsageError&) {
    throw UsageError{fmt::format("no command or recipe '{}' (see heapql help, heapql list)", *name)};
  }
  if (json) {
    const ListedRecipe recipe = listed(FoundRecipe{utf8_from_path(path_from_utf8(*name).stem()), source.path, 0}, options);
    if (!recipe.info) throw UsageError{recipe.error};
    emit(recipes_json({recipe}), std::nullopt);
    return kExitOk;
  }
  std::string help;
  try {
    help = lua::describe_recipe(source, options).help;
  } catch (const Error& e) {
    throw UsageError{e.what()};
  }
  emit(help, std::nullopt);
  return kExitOk;
}

}  // namespace heapql::cli

namespace heapql::cli {

// `heapql xperf FLAGS... [--run TRACE [--format F] [-o FILE]]`: heapql's own
// options are the double-dash ones and -o; every other word is xperf's.
int run_xperf(Arguments& args) {
  std::vector<std::string> words;
  std::vector<std::string> ours;  // re-parsed below, after --run
  std::optional<std::string> trace;
  while (!args.done()) {
    const std::string word = args.take_any();
    if (word == "--run") {
      if (args.done()) throw UsageError{"--run needs a trace file"};
      trace = args.take_any();
    } else if (word.starts_with("--") || word == "-o") {
      // Which of ours take a value: heapql.commands says (an unknown one is named as such).
      const std::string name = word.substr(0, word.find('='));
      const lua::AcceptedOption* option = args.accepted(name);
      if (option == nullptr) args.unknown_option(name);
      ours.push_back(word);
      if (option->takes_value && name == word) {
        if (args.done()) throw UsageError{fmt::format("{} needs a value", word)};
        ours.push_back(args.take_any());
      }
    } else {
      words.push_back(word);
    }
  }
  std::string text;
  try {
    text = lua::translate_xperf(words);
  } catch (const Error& e) {
    throw UsageError{e.what()};
  }
  if (!trace) {
    if (!ours.empty()) throw UsageError{fmt::format("'{}' applies with --run TRACE", ours.front())};
    emit(text, std::nullopt);
    return kExitOk;
  }
  RecipeRun run;
  run.recipe = RecipeSource{"xperf-heap.lua", text};
  run.open.show_progress = false;
  run.trace_path = *trace;
  // Files the flags name (cull lists) are relative to where the command runs.
  run.options.readable_files.clear();
  Arguments rest = args.over(std::move(ours));
  std::optional<ReportOutput> output;
  const RunOutcome outcome = run_with_options(std::move(run), rest, output, std::nullopt);
  return report_outcome(outcome, *output);
}

}  // namespace heapql::cli
