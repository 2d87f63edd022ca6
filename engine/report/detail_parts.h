// The drill-down of a row (Result::detail, engine/query/row_detail.h) as the
// result's JSON (docs/json.md, "detail") and table reports show it.
#pragma once

#include <string>

#include "engine/query/result.h"
#include "engine/report/json_writer.h"
#include "engine/report/reports.h"

namespace heapql {

// "detail": {row, key, blocks, bytes, stacks, other_stacks, sizes, lifetimes, not_freed}
void write_detail_object(JsonWriter& w, const RowDetail& detail, const Result& r);

// A few lines after the table's rows: the row, its first stacks (top frame
// and size) and its size and lifetime bins.
void append_detail_table(std::string& out, const RowDetail& detail, const DisplayOptions& display);

}  // namespace heapql
