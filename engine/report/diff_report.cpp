// The writers of a diff (semantics.md §10): table, JSON (docs/json.md,
// "heapql diff"), CSV and two-column folded stacks.
#include <fmt/format.h>

#include "engine/report/csv_field.h"
#include "engine/report/diff_reports.h"
#include "engine/report/folded_path.h"
#include "engine/report/json_measures.h"
#include "engine/report/json_parts.h"
#include "engine/report/json_writer.h"
#include "engine/report/reports.h"
#include "engine/report/table_parts.h"
#include "engine/units.h"

namespace heapql {

namespace {

constexpr Measure kDeltaMeasures[] = {Measure::kSo, Measure::kSoc, Measure::kSt, Measure::kStc, Measure::kSrc};

bool is_bytes(Measure m) { return m == Measure::kSo || m == Measure::kSt; }

std::string_view presence_name(DiffPresence p) {
  switch (p) {
    case DiffPresence::kNew: return "new";
    case DiffPresence::kGone: return "gone";
    case DiffPresence::kBoth: break;
  }
  return "both";
}

std::string signed_cell(std::int64_t v, bool bytes) {
  const std::uint64_t magnitude = Measures::magnitude(v);
  const std::string text = bytes ? format_bytes_human(magnitude) : fmt::format("{}", magnitude);
  return (v < 0 ? "-" : v > 0 ? "+" : "") + text;
}

std::string plain_cell(std::uint64_t v, bool bytes) { return bytes ? format_bytes_human(v) : fmt::format("{}", v); }

std::vector<Measure> delta_columns(const ResultDiff& d) {
  std::vector<Measure> cols;
  for (Measure m : kDeltaMeasures) {
    if (m != Measure::kSrc || d.realloc_known) cols.push_back(m);
  }
  return cols;
}

void append_row_cells(std::string& out, const ResultDiff& d, const DiffRow& row) {
  const Measure sort = d.sort();
  out += fmt::format("{:>12} {:>12} ", plain_cell(row.a.value(sort), is_bytes(sort)),
                     plain_cell(row.b.value(sort), is_bytes(sort)));
  for (Measure m : delta_columns(d)) out += fmt::format("{:>12} ", signed_cell(row.delta(m), is_bytes(m)));
}

void write_side(JsonWriter& w, const char* name, const ResultSummary& r, const SourceInfo& source) {
  w.key(name).begin_object();
  write_trace_object(w, source);
  w.key("window").begin_object().field("start_ns", r.query.window.begin_ns).field("end_ns", r.query.window.end_ns);
  w.end_object();
  w.key("excluded").begin_object().field("blocks", r.excluded_blocks).field("bytes", r.excluded_bytes).end_object();
  w.key("peak").begin_object();
  w.field("bytes", r.peak.bytes).field("blocks", r.peak.blocks).field("time_ns", r.peak.time_ns);
  w.end_object();
  w.end_object();
}

void write_diff_measures(JsonWriter& w, const ResultDiff& d, const DiffRow& row) {
  w.key("a").begin_object();
  write_measure_fields(w, row.a, d.realloc_known);
  w.end_object();
  w.key("b").begin_object();
  write_measure_fields(w, row.b, d.realloc_known);
  w.end_object();
  w.key("delta").begin_object();
  for (Measure m : kDeltaMeasures) {
    w.key(measure_name(m));
    if (m == Measure::kSrc && !d.realloc_known) {
      w.null();
    } else {
      w.value(row.delta(m));
    }
  }
  w.end_object();
}

// CSV names a stack by its frames, top first, joined with ';'.
std::string joined_frames(const KeyValue& k) {
  std::string joined;
  for (const std::string& f : k.frames) joined += (joined.empty() ? "" : ";") + f;
  return joined;
}

void append_csv_measures(std::string& out, const ResultDiff& d, const DiffRow& row) {
  for (const Measures* side : {&row.a, &row.b}) {
    out += fmt::format("{},{},{},{},", side->so, side->soc, side->st, side->stc);
    out += d.realloc_known ? fmt::format("{},", side->src) : ",";
  }
  out += fmt::format("{},{},{},{},", row.delta(Measure::kSo), row.delta(Measure::kSoc), row.delta(Measure::kSt),
                     row.delta(Measure::kStc));
  if (d.realloc_known) out += fmt::format("{}", row.delta(Measure::kSrc));
  out += "\r\n";
}

}  // namespace

void diff_table(TextOut& to, const ResultDiff& d, const SourceInfo& a, const SourceInfo& b,
                const DisplayOptions& display) {
  std::string& out = to.text();
  append_header_line(out, fmt::format("A        {} ({} {})  window {}", a.path, a.source, a.format, window_text(d.a.query.window)),
                     display);
  append_header_line(out, fmt::format("B        {} ({} {})  window {}", b.path, b.source, b.format, window_text(d.b.query.window)),
                     display);
  std::string by;
  for (GroupBy g : d.a.query.by) by += (by.empty() ? "" : ",") + std::string(group_by_name(g));
  append_header_line(out,
                     fmt::format("query    by {}  sorted by |delta {}|  top {}", by.empty() ? "-" : by,
                                 measure_name(d.sort()), d.a.query.top),
                     display);
  if (!d.realloc_known) append_header_note(out, "note     src is unavailable: a source does not mark reallocs\n", display);
  for (const std::string& note : d.notes) append_header_note(out, "note     " + note + "\n", display);
  const std::vector<Measure> deltas = delta_columns(d);
  const std::size_t indent = (2 + deltas.size()) * 13;
  out += "\n";
  out += fmt::format("{:>12} {:>12} ", fmt::format("{} A", measure_name(d.sort())),
                     fmt::format("{} B", measure_name(d.sort())));
  for (Measure m : deltas)
    out += fmt::format("{:>12} ", fmt::format("delta {}{}", measure_name(m), m == d.sort() ? "*" : ""));
  out += " key\n";
  for (const DiffRow& row : d.rows) {
    append_row_cells(out, d, row);
    if (row.presence != DiffPresence::kBoth) out += fmt::format(" [{}]", presence_name(row.presence));
    append_table_key(out, *row.key, indent, display);
    to.row_written();
  }
  if (d.other) {
    append_row_cells(out, d, *d.other);
    out += fmt::format(" [other: {} more row{}]\n", d.other_rows, d.other_rows == 1 ? "" : "s");
  }
  append_row_cells(out, d, d.totals);
  out += " [total]\n";
}

void diff_json(TextOut& to, const ResultDiff& d, const SourceInfo& a, const SourceInfo& b) {
  std::string& out = to.text();
  JsonWriter w(out);
  w.begin_object();
  w.field("heapql", kJsonSchemaVersion);
  w.field("kind", "diff");
  write_side(w, "a", d.a, a);
  write_side(w, "b", d.b, b);
  write_query_object(w, d.a.query);
  w.key("totals").begin_object();
  write_diff_measures(w, d, d.totals);
  w.end_object();
  w.key("rows").begin_array();
  for (const DiffRow& row : d.rows) {
    w.begin_object();
    w.key("key");
    write_row_key(w, *row.key);
    w.field("status", presence_name(row.presence));
    write_diff_measures(w, d, row);
    w.end_object();
    to.row_written();
  }
  w.end_array();
  w.key("other");
  if (d.other) {
    w.begin_object();
    write_diff_measures(w, d, *d.other);
    w.field("rows", d.other_rows);
    w.end_object();
  } else {
    w.null();
  }
  w.key("notes").begin_array();
  for (const std::string& note : d.notes) w.value(note);
  w.end_array();
  w.end_object();
  out.push_back('\n');
}

void diff_csv(TextOut& to, const ResultDiff& d) {
  std::string& out = to.text();
  for (GroupBy g : d.a.query.by) out += std::string(group_by_name(g)) + ",";
  out += "status";
  for (const char* side : {"a", "b", "delta"}) {
    for (const char* m : {"so", "soc", "st", "stc", "src"}) out += fmt::format(",{}_{}", side, m);
  }
  out += "\r\n";
  for (const DiffRow& row : d.rows) {
    for (const KeyValue& k : *row.key) {
      out += csv_field(k.level == GroupBy::kStack ? joined_frames(k) : k.text) + ",";
    }
    out += fmt::format("{},", presence_name(row.presence));
    append_csv_measures(out, d, row);
    to.row_written();
  }
  const auto summary_line = [&](const char* name, const DiffRow& row) {
    for (std::size_t i = 0; i < d.a.query.by.size(); ++i) out += i == 0 ? std::string(name) + "," : ",";
    out += ",";
    append_csv_measures(out, d, row);
  };
  if (d.other) summary_line("[other]", *d.other);
  summary_line("[total]", d.totals);
}

void diff_folded(TextOut& to, const ResultDiff& d) {
  // flamegraph.pl's differential input (difffolded.pl's output): the stack,
  // outermost frame first, then A's value and B's, of the sort measure.
  std::string& out = to.text();
  const Measure sort = d.sort();
  const auto line = [&](const std::string& path, const DiffRow& row) {
    if (row.a.value(sort) == 0 && row.b.value(sort) == 0) return;
    fmt::format_to(std::back_inserter(out), "{} {} {}\n", path.empty() ? "[total]" : path, row.a.value(sort),
                   row.b.value(sort));
  };
  for (const DiffRow& row : d.rows) {
    line(folded_path(*row.key), row);
    to.row_written();
  }
  if (d.other) line("[other]", *d.other);
  if (d.rows.empty() && !d.other) line("", d.totals);
}

}  // namespace heapql
