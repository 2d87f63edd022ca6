// `heapql info` and `heapql query`: one streaming pass over the trace (or a
// store replay with --store) answering one query.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>

#include "engine/error.h"
#include "engine/ingest/open_trace.h"
#include "engine/ingest/trace_store_file.h"
#include "engine/store_file/store_reader.h"
#include "engine/query/aggregator.h"
#include "engine/query/pattern_check.h"
#include "engine/query/summary.h"
#include "engine/report/html_report.h"
#include "engine/report/reports.h"
#include "lua/cli/answer.h"
#include "lua/cli/commands.h"
#include "lua/cli/exit_codes.h"
#include "lua/cli/query_options.h"

namespace heapql::cli {

namespace {

std::string take_trace_path(Arguments& args, std::string& path) {
  std::string p = args.take_positional();
  if (!path.empty()) throw UsageError{fmt::format("one trace at a time (got '{}' and '{}')", path, p)};
  return p;
}

}  // namespace

void emit(const std::string& text, const std::optional<std::string>& output_file) {
  if (!output_file) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  std::ofstream out(*output_file, std::ios::binary);
  out << text;
  if (!out) throw UsageError{fmt::format("-o {}: cannot write", *output_file)};
}

int run_info(Arguments& args) {
  CommonOptions common;
  std::string path;
  bool load = false;
  while (!args.done()) {
    if (!args.at_option()) {
      path = take_trace_path(args, path);
      continue;
    }
    const std::string option = args.take_option();
    if (option == "--load") {
      load = true;
    } else if (!parse_common_option(option, args, common)) {
      throw UsageError{fmt::format("unknown option '{}'", option)};
    }
  }
  if (path.empty()) throw UsageError{"needs a trace file"};
  if (common.format == OutputFormat::kCsv) throw UsageError{"--format csv is for query results"};
  if (common.format != OutputFormat::kJson && common.format != OutputFormat::kTable) {
    throw UsageError{"info prints --format table or json; the other formats are for query results"};
  }
  Answer a = answer(path, summary_query(), common, load);
  const TraceTables& tables = a.store ? a.store->tables() : *a.tables;
  TraceSummary summary = summarize(tables, a.source, a.result);
  summary.store_file = a.store_file;
  if (a.store && load) {
    StoreStats stats;
    stats.column_bytes = a.store->column_bytes();
    stats.table_bytes = a.store->tables().memory_bytes();
    stats.bytes_per_block =
        a.store->block_count() ? double(stats.column_bytes) / double(a.store->block_count()) : 0.0;
    summary.store = stats;
  }
  emit(common.format == OutputFormat::kJson ? summary_json(summary) : summary_table(summary), common.output_file);
  return kExitOk;
}

namespace {

int run_query_as(Arguments& args, TraceFormat trace_format) {
  CommonOptions common;
  common.trace_format = trace_format;
  lua::QueryFlags flags;
  std::string path;
  while (!args.done()) {
    if (!args.at_option()) {
      path = take_trace_path(args, path);
      continue;
    }
    const std::string option = args.take_option();
    if (!parse_common_option(option, args, common) && !take_query_option(option, args, flags)) {
      throw UsageError{fmt::format("unknown option '{}' (see heapql help)", option)};
    }
  }
  Query query = query_of(flags, trace_format == TraceFormat::kEventCsv ? "heapql import" : "heapql query");
  if (path.empty()) throw UsageError{"needs a trace file"};
  if (common.format == OutputFormat::kHtml) {
    // Said before the trace is read, not after.
    if (!html_report_built()) {
      throw UsageError{"--format html: this heapql was built without the HTML report (-DHEAPQL_HTML_REPORT=OFF)"};
    }
    // The page charts outstanding size over time even when --series was not given.
    if (query.series_buckets == 0) query.series_buckets = kHtmlSeriesBuckets;
  }
  Answer a = answer(path, query, common, false);
  const TraceTables& tables = a.store ? a.store->tables() : *a.tables;
  // --cull patterns are checked against the trace; a --cull-list file's are
  // not (a list names many allocators a program may not use).
  for (const auto& [option, patterns] : {std::pair{"--require", query.require}, std::pair{"--exclude", query.exclude},
                                         std::pair{"--cull", flags.values_of("--cull")}}) {
    for (const UnmatchedPattern& unmatched : unmatched_patterns(tables, patterns)) {
      fmt::print(stderr, "heapql: warning: {}\n", describe_unmatched(unmatched, option));
    }
  }
  switch (common.format) {
    case OutputFormat::kJson: emit(result_json(a.result, a.source), common.output_file); break;
    case OutputFormat::kCsv: emit(result_csv(a.result), common.output_file); break;
    case OutputFormat::kTable: emit(result_table(a.result, a.source, display_options_of(common)), common.output_file); break;
    case OutputFormat::kHtml: emit(result_html(a.result, a.source, display_options_of(common)), common.output_file); break;
    case OutputFormat::kFolded: emit(result_folded(a.result), common.output_file); break;
    case OutputFormat::kPprof: emit(result_pprof(a.result, a.source), common.output_file); break;
  }
  return kExitOk;
}

}  // namespace

int run_query(Arguments& args) { return run_query_as(args, TraceFormat::kAuto); }

int run_import(Arguments& args) { return run_query_as(args, TraceFormat::kEventCsv); }

}  // namespace heapql::cli
