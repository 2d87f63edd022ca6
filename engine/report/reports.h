// Report writers for query results and trace summaries. The JSON forms are
// the stable, versioned contract (docs/json.md); table and CSV are for people
// and spreadsheets. Each format lives in its own file.
#pragma once

#include <string>

#include "engine/query/result.h"
#include "engine/query/summary.h"
#include "engine/store/source_info.h"

namespace heapql {

constexpr int kJsonSchemaVersion = 1;

std::string result_json(const Result& result, const SourceInfo& source);
std::string summary_json(const TraceSummary& summary);

std::string result_table(const Result& result, const SourceInfo& source);
std::string summary_table(const TraceSummary& summary);

std::string result_csv(const Result& result);

}  // namespace heapql
