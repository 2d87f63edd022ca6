#include "engine/report/detail_parts.h"
#include "engine/report/json_measures.h"
#include "engine/report/json_parts.h"
#include "engine/report/json_writer.h"

#include <fmt/format.h>
#include "engine/report/reports.h"

namespace heapql {

namespace {

void write_measures(JsonWriter& w, const Measures& m, const Result& r) {
  write_measure_fields(w, m, r.realloc_known);
  if (r.impacting_measures) w.field("count", m.count).field("size", m.size).field("impacting", m.impacting);
}

}  // namespace

void result_json(TextOut& to, const Result& r, const SourceInfo& source) {
  std::string& out = to.text();
  JsonWriter w(out);
  w.begin_object();
  w.field("heapql", kJsonSchemaVersion);
  write_trace_object(w, source);
  write_query_object(w, r.query);
  w.key("window").begin_object().field("start_ns", r.query.window.begin_ns).field("end_ns", r.query.window.end_ns);
  w.end_object();
  w.key("totals").begin_object();
  write_measures(w, r.totals, r);
  w.end_object();
  w.key("rows").begin_array();
  for (const Row& row : r.rows) {
    w.begin_object();
    w.key("key");
    write_row_key(w, row.key);
    write_measures(w, row.measures, r);
    if (!r.derived_columns.empty()) {
      w.key("derived").begin_object();
      for (std::size_t i = 0; i < r.derived_columns.size() && i < row.derived.size(); ++i) {
        w.field(r.derived_columns[i], row.derived[i]);
      }
      w.end_object();
    }
    w.end_object();
    to.row_written();
  }
  w.end_array();
  w.key("other");
  if (r.other) {
    w.begin_object();
    write_measures(w, *r.other, r);
    w.field("rows", r.other_rows);
    w.end_object();
  } else {
    w.null();
  }
  w.key("excluded").begin_object().field("blocks", r.excluded_blocks).field("bytes", r.excluded_bytes).end_object();
  w.key("peak").begin_object();
  w.field("bytes", r.peak.bytes).field("blocks", r.peak.blocks).field("time_ns", r.peak.time_ns);
  w.end_object();
  if (r.series) {
    w.key("series").begin_object();
    w.field("start_ns", r.series->start_ns).field("bucket_ns", r.series->bucket_ns);
    w.key("max_bytes").begin_array();
    for (std::uint64_t v : r.series->max_bytes) w.value(v);
    w.end_array().end_object();
  }
  if (r.detail) write_detail_object(w, *r.detail, r);
  w.end_object();
  out.push_back('\n');
}

std::string summary_json(const TraceSummary& s) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("heapql", kJsonSchemaVersion);
  write_trace_object(w, s.source);
  // Every file read for the trace, the one named first (info only).
  w.key("files").begin_array();
  w.value(s.source.path);
  for (const std::string& file : s.source.files) {
    if (file != s.source.path) w.value(file);
  }
  w.end_array();
  w.key("summary").begin_object();
  w.field("records", s.source.lines);
  w.field("blocks", s.blocks);
  w.field("allocation_events", s.blocks);
  w.field("frees", s.frees);
  w.field("unique_stacks", s.unique_stacks);
  w.field("stack_nodes", s.stack_nodes);
  w.field("unique_frames", s.unique_frames);
  w.field("unique_modules", s.unique_modules);
  w.field("processes", s.processes);
  w.field("heaps", s.heaps);
  w.field("duration_ns", s.duration_ns);
  w.field("total_allocated_bytes", s.total_allocated_bytes);
  w.key("leaked").begin_object().field("bytes", s.leaked_bytes).field("blocks", s.leaked_blocks).end_object();
  w.key("peak").begin_object();
  w.field("bytes", s.peak.bytes).field("blocks", s.peak.blocks).field("time_ns", s.peak.time_ns);
  w.end_object();
  w.field("temporary", s.temporary);
  // null for a complete trace; else where it ends early and what the answers cover.
  w.key("cut");
  if (s.source.cut) {
    const TraceCut& cut = *s.source.cut;
    w.begin_object();
    w.field("file", cut.file).field("at_byte", cut.at_byte).field("left_over_bytes", cut.left_over_bytes);
    w.field("what", cut.what).field("covers_until_ns", s.source.end_ns);
    w.end_object();
  } else {
    w.null();
  }
  const Anomalies& a = s.source.anomalies;
  w.key("anomalies").begin_object();
  w.field("double_frees", a.double_frees);
  w.field("unmatched_frees", a.unmatched_frees);
  w.field("alloc_over_live", a.alloc_over_live);
  w.field("decreasing_timestamps", a.decreasing_timestamps);
  w.field("skipped_records", a.skipped_records);
  w.end_object();
  w.end_object();
  w.key("capabilities").begin_object();
  w.field("block_identity", block_identity_name(s.source.block_identity));
  w.field("realloc", s.source.realloc_marked);
  w.field("threads", s.source.threads);
  w.field("time_resolution_ns", s.source.time_resolution_ns);
  w.end_object();
  for (const auto& [key, value] : s.source.details.json) {
    w.key(key);
    write_info_value(w, value);
  }
  if (s.store) {
    w.key("store").begin_object();
    w.field("column_bytes", s.store->column_bytes);
    w.field("table_bytes", s.store->table_bytes);
    w.field("bytes_per_block", s.store->bytes_per_block);
    w.end_object();
  }
  if (s.store_file) {
    const StoreFileInfo& f = *s.store_file;
    w.key("store_file").begin_object();
    w.field("path", f.path);
    w.field("format_version", f.format_version);
    w.field("file_bytes", f.file_bytes);
    w.field("read_with", f.reading);
    w.key("ingested_from").begin_array();
    for (const FileIdentity& source : f.files) {
      w.begin_object();
      w.field("path", source.path);
      w.field("size", source.size);
      w.field("mtime_ns", source.mtime_ns);
      w.field("head_tail_hash", fmt::format("{:016x}", source.head_tail_hash));
      w.end_object();
    }
    w.end_array();
    w.key("sections").begin_array();
    for (const StoreSectionInfo& section : f.sections) {
      w.begin_object();
      w.field("name", section.name);
      w.field("offset", section.offset);
      w.field("bytes", section.bytes);
      w.field("items", section.items);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_object();
  out.push_back('\n');
  return out;
}

}  // namespace heapql
