#include "cli/query_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/units.h"
#include "engine/platform/terminal.h"
#include "engine/platform/utf8_wide.h"
#include "cli/shipped_files.h"

namespace heapql::cli {

namespace {

// Engine parse errors become usage errors that name the option.
template <class F>
auto with_option(std::string_view option, F&& parse) {
  try {
    return parse();
  } catch (const Error& e) {
    throw UsageError{fmt::format("{}: {}", option, e.message())};
  }
}

}  // namespace

std::string take_symbol_path(Arguments& args) {
  std::string path = args.take_value("--symbols");
  std::error_code error;
  if (!std::filesystem::is_directory(path_from_utf8(path), error)) {
    throw UsageError{fmt::format("--symbols '{}': expected a folder of PDBs or a symbol store", path)};
  }
  return path;
}

DisplayOptions display_options_of(const CommonOptions& common) {
  DisplayOptions display;
  display.full_names = common.full_names;
  if (!common.output_file) {
    if (const std::optional<int> columns = terminal_columns(StandardStream::kOutput)) display.width = *columns;
  }
  return display;
}

OpenOptions open_options_of(const CommonOptions& common) {
  OpenOptions open;
  open.show_progress = common.progress;
  open.use_raw_twin = common.use_raw_twin;
  open.strict = common.strict;
  open.symbol_paths = common.symbol_paths;
  open.format = common.trace_format;
  open.use_store = common.use_store;
  return open;
}

bool parse_common_option(const std::string& option, Arguments& args, CommonOptions& common) {
  if (option == "--format") {
    const std::string v = args.take_value(option);
    if (v == "table") {
      common.format = OutputFormat::kTable;
    } else if (v == "json") {
      common.format = OutputFormat::kJson;
    } else if (v == "csv") {
      common.format = OutputFormat::kCsv;
    } else if (v == "html") {
      common.format = OutputFormat::kHtml;
    } else if (v == "folded") {
      common.format = OutputFormat::kFolded;
    } else if (v == "pprof") {
      common.format = OutputFormat::kPprof;
    } else if (v == "recipe") {
      common.format = OutputFormat::kRecipe;
    } else {
      throw UsageError{fmt::format("--format '{}': expected one of table|json|csv|html|folded|pprof|recipe", v)};
    }
  } else if (option == "-o" || option == "--output") {
    common.output_file = args.take_value(option);
  } else if (option == "--full-names") {
    common.full_names = true;
  } else if (option == "--no-progress") {
    common.progress = false;
  } else if (option == "--no-raw") {
    common.use_raw_twin = false;
  } else if (option == "--strict") {
    common.strict = true;
  } else if (option == "--store") {
    common.via_store = true;
  } else if (option == "--no-store") {
    common.use_store = false;
  } else if (option == "--symbols") {
    common.symbol_paths.push_back(take_symbol_path(args));
  } else {
    return false;
  }
  return true;
}

TimeWindow parse_window_option(const std::string& option, const std::string& value) {
  const DurationRange r = with_option(option, [&] { return parse_duration_range(value); });
  return TimeWindow{r.begin_ns, r.end_ns};
}

bool take_query_option(const std::string& option, Arguments& args, lua::QueryFlags& flags) {
  const lua::QueryFlag* flag = flags.find(option);
  if (flag == nullptr) return false;
  flags.add(*flag, flag->takes_value ? std::optional<std::string>(args.take_value(option)) : std::nullopt);
  return true;
}

Query query_of(lua::QueryFlags& flags, std::string_view command) {
  Query query;
  try {
    query = flags.query(command);
  } catch (const Error& e) {
    throw UsageError{e.message()};
  }
  for (std::string& file : query.suppression_files) file = list_source(file, "suppressions").path;
  for (std::string& file : query.cull_files) file = list_source(file, "cull").path;
  return query;
}

StackFilters validate_query(const Query& query) {
  try {
    validate(query);
    return compile_stack_filters(query);
  } catch (const Error& e) {
    throw UsageError{e.what()};
  }
}

std::string query_recipe(lua::QueryFlags& flags, std::string_view command, const std::string& trace) {
  std::map<std::pair<std::string, std::string>, std::string> shipped;
  std::vector<std::string> words{std::string(command), trace};
  for (const auto& [option, value] : flags.given()) {
    words.push_back(option);
    if (!value) continue;
    words.push_back(*value);
    const char* kind = option == "--cull-list" ? "cull" : option == "--suppressions" ? "suppressions" : nullptr;
    if (kind == nullptr) continue;
    if (const std::optional<std::string> name = list_source(*value, kind).shipped) shipped[{kind, *value}] = *name;
  }
  try {
    return flags.recipe_text(shipped, words);
  } catch (const Error& e) {
    throw UsageError{e.message()};
  }
}

}  // namespace heapql::cli
