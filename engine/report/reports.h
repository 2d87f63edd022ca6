// Report writers for query results and trace summaries. The JSON forms are
// the stable, versioned contract (docs/json.md); table and CSV are for people
// and spreadsheets. Each format lives in its own file. The writers of a
// result's rows write into a TextOut, which passes a long report on as it is
// made; their forms that return a string keep it whole.
#pragma once

#include <cstddef>
#include <string>

#include "engine/query/result.h"
#include "engine/query/summary.h"
#include "engine/report/text_out.h"
#include "engine/store/source_info.h"

namespace heapql {

constexpr int kJsonSchemaVersion = 1;

void result_json(TextOut& out, const Result& result, const SourceInfo& source);
inline std::string result_json(const Result& result, const SourceInfo& source) {
  return whole_text([&](TextOut& out) { result_json(out, result, source); });
}
std::string summary_json(const TraceSummary& summary);

// How the reports for people (table, HTML) show frame names.
struct DisplayOptions {
  bool full_names = false;  // --full-names: exact names, not shortened
  std::size_t width = 0;    // the table's width in terminal columns; 0: no limit
};

void result_table(TextOut& out, const Result& result, const SourceInfo& source, const DisplayOptions& display = {});
inline std::string result_table(const Result& result, const SourceInfo& source, const DisplayOptions& display = {}) {
  return whole_text([&](TextOut& out) { result_table(out, result, source, display); });
}
std::string summary_table(const TraceSummary& summary);

void result_csv(TextOut& out, const Result& result);
inline std::string result_csv(const Result& result) {
  return whole_text([&](TextOut& out) { result_csv(out, result); });
}

// Why a result sorted by impacting has no folded form (the writer throws it,
// and the command line says it before reading the trace).
inline constexpr const char* kFoldedImpactingRefused =
    "--format folded: a stack's width cannot be its impacting size, which may be negative; "
    "sort by so (the AIFO bytes) or another of so, soc, st, stc, src";
// Collapsed stacks (docs/reports.md): `frame;frame;... value` per row, the
// outermost frame first, valued by the query's sort measure; [other] as a
// line of its own, so the values add up to the total. Throws Error for a
// result sorted by impacting (kFoldedImpactingRefused).
void result_folded(TextOut& out, const Result& result);
inline std::string result_folded(const Result& result) {
  return whole_text([&](TextOut& out) { result_folded(out, result); });
}

// pprof's profile.proto, gzipped (docs/reports.md): a sample per row with
// Go heap profiles' types (alloc_objects, alloc_space, inuse_objects,
// inuse_space = stc, st, soc, so); locations, functions and mappings from the
// frames; other grouping levels as labels.
std::string result_pprof(const Result& result, const SourceInfo& source);

// One self-contained, offline HTML page (docs/reports.md): the result's JSON
// (pruned to stay small), a chart, a flame graph and the rows. Throws Error
// in a build without the report (-DHEAPQL_HTML_REPORT=OFF).
std::string result_html(const Result& result, const SourceInfo& source, const DisplayOptions& display = {});

}  // namespace heapql
