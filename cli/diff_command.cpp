// `heapql diff A B [query options]` and `heapql diff T --window-a R --window-b R`:
// one query answered on two inputs and the rows matched (semantics.md §10).
#include <fmt/format.h>

#include <limits>
#include <memory>

#include "engine/query/result_diff.h"
#include "engine/report/diff_reports.h"
#include "engine/report/html_report.h"
#include "engine/session/open_sessions.h"
#include "engine/session/trace_session.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/query_options.h"
#include "cli/report_output.h"

namespace heapql::cli {

int run_diff(Arguments& args) {
  CommonOptions common;
  lua::QueryFlags flags;
  std::vector<std::string> paths;
  std::optional<TimeWindow> window_a, window_b;
  while (!args.done()) {
    if (!args.at_option()) {
      paths.push_back(args.take_positional());
      continue;
    }
    const std::string option = args.take_option();
    if (option == "--window-a") {
      window_a = parse_window_option(option, args.take_value(option));
    } else if (option == "--window-b") {
      window_b = parse_window_option(option, args.take_value(option));
    } else if (!parse_common_option(option, args, common) && !take_query_option(option, args, flags)) {
      throw UsageError{fmt::format("unknown option '{}' (see heapql help)", option)};
    }
  }
  Query query = query_of(flags, "heapql diff");
  // A diff's rows pair two answers' rows: the drill-down is of one answer's.
  if (query.detail) throw UsageError{"--detail describes a row of one answer: use it with heapql query, not diff"};
  if (query.sort == Measure::kImpacting) throw UsageError{kDiffImpactingRefused};
  if (paths.size() == 1 && window_a && window_b) paths.push_back(paths.front());
  if (paths.size() != 2) {
    throw UsageError{"needs two traces (A B), or one trace with --window-a and --window-b"};
  }
  switch (common.format) {
    case OutputFormat::kTable:
    case OutputFormat::kJson:
    case OutputFormat::kCsv:
    case OutputFormat::kFolded: break;
    case OutputFormat::kHtml:
      // Said before the traces are read, not after.
      if (!html_report_built()) {
        throw UsageError{"--format html: this heapql was built without the HTML report (-DHEAPQL_HTML_REPORT=OFF)"};
      }
      break;
    default: throw UsageError{"diff prints --format table, json, csv, html or folded"};
  }
  const std::uint64_t top = query.top;
  // Every key must be matched, so both sides are answered whole and cut after.
  query.top = std::numeric_limits<std::uint64_t>::max();
  Query query_a = query, query_b = query;
  if (window_a) query_a.window = *window_a;
  if (window_b) query_b.window = *window_b;
  // Both sides' patterns compiled (their files read) once, before either is read.
  StackFilters filters_a = validate_query(query_a);
  StackFilters filters_b = validate_query(query_b);

  ReportOutput output(common.output_file, paths);
  TraceSession session_a = session_for(paths[0], open_options_of(common));
  Answer a = session_a.answer_once(query_a, std::move(filters_a), common.via_store);
  TraceSession session_b = session_for(paths[1], open_options_of(common));
  Answer b = session_b.answer_once(query_b, std::move(filters_b), common.via_store);
  const ResultDiff diff = diff_results(std::make_shared<const Result>(std::move(a.result)),
                                       std::make_shared<const Result>(std::move(b.result)), top);
  output.write_report([&](TextOut& out) {
    switch (common.format) {
      case OutputFormat::kJson: diff_json(out, diff, a.source, b.source); break;
      case OutputFormat::kCsv: diff_csv(out, diff); break;
      case OutputFormat::kFolded: diff_folded(out, diff); break;
      case OutputFormat::kHtml: out.text() = diff_html(diff, a.source, b.source, display_options_of(common)); break;
      default: diff_table(out, diff, a.source, b.source, display_options_of(common)); break;
    }
  });
  return kExitOk;
}

}  // namespace heapql::cli
