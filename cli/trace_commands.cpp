// `heapql info` and `heapql query`: one streaming pass over the trace (or a
// store replay with --store) answering one query.
#include <fmt/format.h>

#include <cstdio>

#include "engine/error.h"
#include "engine/query/filter_value_check.h"
#include "engine/query/pattern_check.h"
#include "engine/query/row_detail.h"
#include "engine/query/summary.h"
#include "engine/report/html_report.h"
#include "engine/report/reports.h"
#include "engine/session/file_kind.h"
#include "engine/session/open_sessions.h"
#include "engine/session/trace_session.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/query_options.h"
#include "cli/report_output.h"

namespace heapql::cli {

namespace {

std::string take_trace_path(Arguments& args, std::string& path) {
  std::string p = args.take_positional();
  if (!path.empty()) throw UsageError{fmt::format("one trace at a time (got '{}' and '{}')", path, p)};
  return p;
}

// A heaptrack or ETW trace given to `heapql import` (which would call it a
// malformed CSV, or tell to decompress it): name it and the command for it.
void refuse_other_trace_kind_for_import(const std::string& path) {
  const FileKind kind = sniff_file_kind(path);
  if (kind != FileKind::kHeaptrack && kind != FileKind::kEtl) return;
  throw UsageError{
      fmt::format("'{}' is {}, not an event CSV: read it with heapql query {} (or heapql run RECIPE {}); "
                  "heapql import reads event CSV files only (docs/import.md)",
                  path, file_kind_phrase(kind), path, path)};
}

}  // namespace

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
  ReportOutput output(common.output_file, {path});
  TraceSession session = session_for(path, open_options_of(common));
  const Query query = summary_query();
  const Answer a = session.answer_once(query, validate_query(query), common.via_store || load);
  session.check_tables();  // summarize() reads every bucket
  TraceSummary summary = summarize(*a.tables, a.source, a.result);
  summary.store_file = session.store_file();
  if (const TraceStore* store = session.store(); store && load) {
    StoreStats stats;
    stats.column_bytes = store->column_bytes();
    stats.table_bytes = store->tables().memory_bytes();
    stats.bytes_per_block = store->block_count() ? double(stats.column_bytes) / double(store->block_count()) : 0.0;
    summary.store = stats;
  }
  output.write(common.format == OutputFormat::kJson ? summary_json(summary) : summary_table(summary));
  output.finish();
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
      args.unknown_option(option);
    }
  }
  const std::string_view command = trace_format == TraceFormat::kEventCsv ? "import" : "query";
  Query query = query_of(flags, fmt::format("heapql {}", command));
  if (path.empty()) throw UsageError{"needs a trace file"};
  if (common.format == OutputFormat::kRecipe) {
    // The query itself, not its answer: the trace is not opened (its path is
    // only named in the recipe's comment). Its patterns and list files are
    // checked as they are for an answer, so a bad one is exit 3 here too.
    validate_query(query);
    ReportOutput output(common.output_file, {path});
    output.write(query_recipe(flags, command, path));
    output.finish();
    return kExitOk;
  }
  if (common.format == OutputFormat::kHtml) {
    // Said before the trace is read, not after.
    if (!html_report_built()) {
      throw UsageError{"--format html: this heapql was built without the HTML report (-DHEAPQL_HTML_REPORT=OFF)"};
    }
    // The page charts outstanding size over time even when --series was not given.
    if (query.series_buckets == 0) query.series_buckets = kHtmlSeriesBuckets;
  }
  if (query.detail && common.format != OutputFormat::kJson && common.format != OutputFormat::kTable) {
    // Said before the trace is read: only JSON and the table have a place for it.
    throw UsageError{"--detail: the row's detail is shown by --format json and table, not by csv, html, folded or pprof"};
  }
  if (query.sort == Measure::kImpacting && common.format == OutputFormat::kFolded) {
    // Said before the trace is read; the writer refuses it too (a recipe's result).
    throw UsageError{kFoldedImpactingRefused};
  }
  if (trace_format == TraceFormat::kEventCsv) refuse_other_trace_kind_for_import(path);
  ReportOutput output(common.output_file, {path});
  StackFilters filters = validate_query(query);
  TraceSession session = session_for(path, open_options_of(common));
  const Answer a = session.answer_once(query, std::move(filters), common.via_store);
  if (query.detail && !a.result.detail) throw UsageError{detail_beyond_rows(*query.detail, a.result.rows.size())};
  const TraceTables& tables = *a.tables;
  // --cull patterns are checked against the trace; a --cull-list file's are
  // not (a list names many allocators a program may not use).
  for (const auto& [option, patterns] : {std::pair{"--require", query.require}, std::pair{"--exclude", query.exclude},
                                         std::pair{"--cull", flags.values_of("--cull")}}) {
    for (const UnmatchedPattern& unmatched : unmatched_patterns(tables, patterns)) {
      fmt::print(stderr, "heapql: warning: {}\n", describe_unmatched(unmatched, option));
    }
  }
  for (const std::string& warning : unmatched_filter_values(tables, query)) {
    fmt::print(stderr, "heapql: warning: {}\n", warning);
  }
  output.write_report([&](TextOut& out) {
    switch (common.format) {
      case OutputFormat::kJson: result_json(out, a.result, a.source); break;
      case OutputFormat::kCsv: result_csv(out, a.result); break;
      case OutputFormat::kTable: result_table(out, a.result, a.source, display_options_of(common)); break;
      case OutputFormat::kHtml: out.text() = result_html(a.result, a.source, display_options_of(common)); break;
      case OutputFormat::kFolded: result_folded(out, a.result); break;
      case OutputFormat::kPprof: out.text() = result_pprof(a.result, a.source); break;
      case OutputFormat::kRecipe: break;  // written above, without the trace
    }
  });
  return kExitOk;
}

}  // namespace

int run_query(Arguments& args) { return run_query_as(args, TraceFormat::kAuto); }

int run_import(Arguments& args) { return run_query_as(args, TraceFormat::kEventCsv); }

}  // namespace heapql::cli
