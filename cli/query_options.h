// Turns `heapql query` options into the engine's Query, through the query
// schema (lua/heapql/schema.lua) that recipes go through too, plus how to
// print it. Every bad value is a UsageError that names the option and what is
// allowed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/ingest/open_options.h"
#include "engine/query/query.h"
#include "engine/query/stack_plan.h"
#include "engine/report/reports.h"
#include "cli/arguments.h"
#include "lua/host/query_flags.h"

namespace heapql::cli {

// kRecipe: the query itself, as a recipe file (heapql query --format recipe).
enum class OutputFormat { kTable, kJson, kCsv, kHtml, kFolded, kPprof, kRecipe };

struct CommonOptions {
  OutputFormat format = OutputFormat::kTable;
  std::optional<std::string> output_file;
  bool progress = true;
  bool use_raw_twin = true;
  bool strict = false;     // refuse a trace that ends early or has an anomaly (exit 2) instead of warning
  bool via_store = false;  // load the store and replay it (same answers; for checks and benchmarks)
  bool use_store = true;   // answer from a fresh store file of the trace (--no-store: read the trace)
  std::vector<std::string> symbol_paths;  // --symbols: PDB folders and symbol stores (ETL)
  TraceFormat trace_format = TraceFormat::kAuto;  // heapql import: the event CSV
  bool full_names = false;  // --full-names: tables and HTML show frames exactly
};

// How tables and HTML show frames: short names unless --full-names, and a
// table cut to the terminal's width when it prints to one.
DisplayOptions display_options_of(const CommonOptions& common);

// How the trace is opened, as the common options say.
OpenOptions open_options_of(const CommonOptions& common);
// Handles `option` if it is a common one (consuming its value); false otherwise.
bool parse_common_option(const std::string& option, Arguments& args, CommonOptions& common);
// The value of --symbols: a folder that exists (PDBs, or a symbol store).
std::string take_symbol_path(Arguments& args);
// A window option's value (`--window`, diff's `--window-a`): UsageError
// naming the option when it is not a duration range.
TimeWindow parse_window_option(const std::string& option, const std::string& value);

// Takes `option` (and its value) into `flags` if it sets a query field; false otherwise.
bool take_query_option(const std::string& option, Arguments& args, lua::QueryFlags& flags);
// The query the options taken spell (checked by the schema, as a recipe's
// query is), its suppression files found: UsageError naming the option.
Query query_of(lua::QueryFlags& flags, std::string_view command);
// Query errors (patterns, cull files) are found before the trace is read, so
// they are told apart from trace errors by exit code: UsageError. Returns the
// query's patterns compiled (its files read), for the trace's session.
StackFilters validate_query(const Query& query);
// The text of a recipe file whose query is the one the options taken spell:
// `heapql run FILE TRACE` answers what `heapql COMMAND TRACE OPTIONS` does.
// Shipped cull and suppression lists are named as such (hq.cull.shipped),
// other files by their path. `command` ("query", "import") and `trace` only
// go into its comment and doc.
std::string query_recipe(lua::QueryFlags& flags, std::string_view command, const std::string& trace);

}  // namespace heapql::cli
