// The five xperf measures as JSON fields, shared by every JSON writer so they
// cannot drift apart: so, soc, st, stc and src (null where the source does
// not mark reallocs, docs/json.md).
#pragma once

#include "engine/query/result.h"
#include "engine/report/json_writer.h"

namespace heapql {

void write_measure_fields(JsonWriter& w, const Measures& m, bool realloc_known);

}  // namespace heapql
