#include "engine/report/json_parts.h"

namespace heapql {

void write_trace_object(JsonWriter& w, const SourceInfo& s) {
  w.key("trace").begin_object();
  w.field("path", s.path);
  w.field("source", s.source);
  w.field("format", s.format);
  w.field("compression", s.compression);
  w.field("block_identity", block_identity_name(s.block_identity));
  w.field("realloc", s.realloc_marked);
  w.field("threads", s.threads);
  w.field("time_resolution_ns", s.time_resolution_ns);
  w.field("duration_ns", s.end_ns);
  // Only for an answer from a recording in progress: the part recorded so far.
  if (s.live) {
    w.key("recording_in_progress").begin_object();
    w.field("up_to_ns", s.live->up_to_ns).field("journal", s.live->journal);
    w.end_object();
  }
  w.end_object();
}

void write_query_object(JsonWriter& w, const Query& query) {
  w.key("query").begin_object();
  w.key("by").begin_array();
  for (GroupBy g : query.by) w.value(group_by_name(g));
  w.end_array();
  w.field("sort", measure_name(query.sort));
  w.field("top", query.top);
  w.field("blocks", query.block_set == BlockSet::kAtPeak ? "at-peak" : "window");
  w.end_object();
}

void write_row_key(JsonWriter& w, const std::vector<KeyValue>& key) {
  w.begin_array();
  for (const KeyValue& k : key) {
    if (k.level == GroupBy::kStack) {
      w.begin_array();
      for (const std::string& f : k.frames) w.value(f);
      w.end_array();
    } else {
      w.value(k.text);
    }
  }
  w.end_array();
}

void write_info_value(JsonWriter& w, const InfoValue& value) {
  switch (value.kind) {
    case InfoValue::Kind::kNull: w.null(); return;
    case InfoValue::Kind::kBool: w.value(value.flag); return;
    case InfoValue::Kind::kNumber: w.value(value.number); return;
    case InfoValue::Kind::kString: w.value(value.text); return;
    case InfoValue::Kind::kArray:
      w.begin_array();
      for (const InfoValue& item : value.items) write_info_value(w, item);
      w.end_array();
      return;
    case InfoValue::Kind::kObject:
      w.begin_object();
      for (std::size_t i = 0; i < value.keys.size(); ++i) {
        w.key(value.keys[i]);
        write_info_value(w, value.items[i]);
      }
      w.end_object();
      return;
  }
}

}  // namespace heapql
