// `heapql export TRACE|STORE --to sqlite|csv|jsonl OUT`: the trace's tables
// for SQL engines and data frames (docs/export.md).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "engine/error.h"
#include "engine/export/csv_sink.h"
#include "engine/export/export_tables.h"
#include "engine/export/jsonl_sink.h"
#include "engine/export/sqlite_sink.h"
#include "engine/session/trace_session.h"
#include "engine/units.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output_not_input.h"
#include "cli/query_options.h"

namespace heapql::cli {

int run_export(Arguments& args) {
  CommonOptions common;
  std::string path, to, out;
  while (!args.done()) {
    if (!args.at_option()) {
      const std::string word = args.take_positional();
      if (path.empty()) {
        path = word;
      } else if (out.empty()) {
        out = word;
      } else {
        throw UsageError{fmt::format("one trace and one output (got '{}' as well)", word)};
      }
      continue;
    }
    const std::string option = args.take_option();
    if (option == "--to") {
      to = args.take_value(option);
      if (to != "sqlite" && to != "csv" && to != "jsonl") {
        throw UsageError{fmt::format("--to '{}': expected sqlite|csv|jsonl", to)};
      }
      if (!args.done() && !args.at_option()) out = args.take_positional();
    } else if (option == "--format" || option == "-o" || option == "--output" ||
               !parse_common_option(option, args, common)) {
      throw UsageError{fmt::format("unknown option '{}' (usage: heapql export TRACE --to sqlite|csv|jsonl OUT)",
                                   option)};
    }
  }
  if (path.empty() || to.empty() || out.empty()) {
    throw UsageError{"usage: heapql export TRACE|STORE --to sqlite FILE.db | --to csv DIR | --to jsonl DIR"};
  }
  refuse_output_over_input(out, {path});
  TraceSession session(path, open_options_of(common));
  session.open();
  const TraceStore& store = *session.store();
  std::unique_ptr<TableSink> sink;
  if (to == "sqlite") {
    sink = std::make_unique<SqliteSink>(out);
  } else if (to == "csv") {
    sink = std::make_unique<CsvSink>(out);
  } else {
    sink = std::make_unique<JsonlSink>(out);
  }
  naming_file(path, [&] { export_tables(store, *sink); });  // the trace's sums, checked (semantics.md §3)
  fmt::print(stderr, "heapql: exported {} of {} to {} ({})\n", format_count(store.block_count(), "block", "blocks"), path,
             out, to);
  return kExitOk;
}

}  // namespace heapql::cli
