// Parts of the JSON documents that more than one writes (docs/json.md): the
// trace object, the query object, a row's key, and a reader's details.
#pragma once

#include <vector>

#include "engine/query/result.h"
#include "engine/report/json_writer.h"
#include "engine/store/source_info.h"

namespace heapql {

// "trace": {path, source, format, ...}
void write_trace_object(JsonWriter& w, const SourceInfo& source);
// "query": {by, sort, top, blocks}
void write_query_object(JsonWriter& w, const Query& query);
// A key as an array, one entry per level: a stack as an array of frames (top
// first), any other level as its text.
void write_row_key(JsonWriter& w, const std::vector<KeyValue>& key);
// A reader's generic details (source_details.h) as the value they are.
void write_info_value(JsonWriter& w, const InfoValue& value);

}  // namespace heapql
