#include <fmt/format.h>

#include <algorithm>

#include "engine/report/reports.h"
#include "engine/query/short_name.h"
#include "engine/report/detail_parts.h"
#include "engine/report/table_parts.h"
#include "engine/store/store_file_info.h"
#include "engine/units.h"

namespace heapql {

namespace {

struct Column {
  std::string_view name;
  bool bytes;
  bool sort;
};

std::vector<Column> columns(const Result& r) {
  std::vector<Column> cols = {{"so", true, r.query.sort == Measure::kSo},
                              {"soc", false, r.query.sort == Measure::kSoc},
                              {"st", true, r.query.sort == Measure::kSt},
                              {"stc", false, r.query.sort == Measure::kStc},
                              {"src", false, r.query.sort == Measure::kSrc}};
  if (r.impacting_measures) {
    cols.push_back({"count", false, false});
    cols.push_back({"size", true, false});
    cols.push_back({"impacting", true, r.query.sort == Measure::kImpacting});
  }
  return cols;
}

std::string cell(const Result& r, const Measures& m, const Column& c) {
  if (c.name == "so") return format_bytes_human(m.so);
  if (c.name == "soc") return fmt::format("{}", m.soc);
  if (c.name == "st") return format_bytes_human(m.st);
  if (c.name == "stc") return fmt::format("{}", m.stc);
  if (c.name == "src") return r.realloc_known ? fmt::format("{}", m.src) : "-";
  if (c.name == "count") return fmt::format("{}", m.count);
  if (c.name == "size") return format_bytes_human(m.size);
  return (m.impacting < 0 ? "-" : "") + format_bytes_human(Measures::magnitude(m.impacting));
}

void append_measures(std::string& out, const Result& r, const Measures& m, const std::vector<Column>& cols) {
  for (const Column& c : cols) out += fmt::format("{:>12} ", cell(r, m, c));
}

}  // namespace

std::string window_text(const TimeWindow& w) {
  return fmt::format("{}..{}", format_duration(w.begin_ns), w.end_ns ? format_duration(*w.end_ns) : "end");
}

namespace {

// Columns a UTF-8 text takes: its code points (no wide characters in frames
// that matter here).
std::size_t columns_of(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// `text` cut to `room` columns, ending in "…" when cut.
std::string fitted(std::string text, std::size_t room) {
  if (room == 0 || columns_of(text) <= room) return text;
  std::size_t kept = 0, at = 0;
  for (; at < text.size(); ++at) {
    if ((static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) continue;
    if (kept == room - 1) break;
    ++kept;
  }
  text.erase(at);
  return text + "\xE2\x80\xA6";
}

constexpr std::string_view kNoteLabel = "note     ";

}  // namespace

void append_header_line(std::string& out, std::string line, const DisplayOptions& display) {
  out += display.width > 0 ? fitted(std::move(line), display.width) : line;
  out += "\n";
}

void append_header_note(std::string& out, std::string_view note, const DisplayOptions& display) {
  if (display.width == 0) {
    out += note;
    return;
  }
  // Its words again, wrapped anew under the label.
  std::string_view text = note.substr(note.starts_with(kNoteLabel) ? kNoteLabel.size() : 0);
  const std::size_t room =
      std::max<std::size_t>(display.width > kNoteLabel.size() ? display.width - kNoteLabel.size() : 0, 20);
  std::vector<std::string> lines(1);
  while (true) {
    const std::size_t start = text.find_first_not_of(" \n");
    if (start == std::string_view::npos) break;
    text.remove_prefix(start);
    const std::string_view word = text.substr(0, std::min(text.find_first_of(" \n"), text.size()));
    text.remove_prefix(word.size());
    if (!lines.back().empty() && columns_of(lines.back()) + 1 + columns_of(word) > room) lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + std::string(word);
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += i == 0 ? std::string(kNoteLabel) : std::string(kNoteLabel.size(), ' ');
    out += fitted(lines[i], room);  // a word longer than the room
    out += "\n";
  }
}

std::string shown_frame(const std::string& frame, const DisplayOptions& display) {
  return display.full_names ? frame : short_frame_name(frame);
}

void append_table_key(std::string& out, const std::vector<KeyValue>& key, std::size_t indent,
                      const DisplayOptions& display) {
  // The first line follows the measures and a space; later ones are indented
  // three more.
  const std::size_t first_room = display.width > indent + 1 ? display.width - indent - 1 : 0;
  const std::size_t next_room = display.width > indent + 3 ? display.width - indent - 3 : 0;
  const bool cut = display.width > 0;
  const auto first_line = [&](const std::string& text) {
    out += " " + (cut ? fitted(text, std::max<std::size_t>(first_room, 8)) : text) + "\n";
  };
  const auto frame_line = [&](const std::string& frame) {
    const std::string name = shown_frame(frame, display);
    out += fmt::format("{:{}}   {}\n", "", indent, cut ? fitted(name, std::max<std::size_t>(next_room, 8)) : name);
  };
  std::string head;
  const KeyValue* stack = nullptr;
  for (const KeyValue& k : key) {
    if (k.level == GroupBy::kStack) {
      stack = &k;
      continue;
    }
    head += (head.empty() ? "" : " > ") + (k.level == GroupBy::kFrame ? shown_frame(k.text, display) : k.text);
  }
  if (stack != nullptr && stack->frames.empty()) head += (head.empty() ? "" : " > ") + std::string("[empty stack]");
  std::size_t first_frame = 0;
  if (stack != nullptr && head.empty() && !stack->frames.empty()) {
    first_line(shown_frame(stack->frames.front(), display));
    first_frame = 1;
  } else {
    first_line(head);
  }
  if (stack != nullptr) {
    for (std::size_t i = first_frame; i < stack->frames.size() && i < kFramesShown; ++i) frame_line(stack->frames[i]);
    if (stack->frames.size() > kFramesShown) {
      out += fmt::format("{:{}}   ... {} more frames\n", "", indent, stack->frames.size() - kFramesShown);
    }
  }
}

void result_table(TextOut& to, const Result& r, const SourceInfo& source, const DisplayOptions& display) {
  std::string& out = to.text();
  append_header_line(out,
                     fmt::format("trace    {} ({} {}, block identity {})", source.path, source.source, source.format,
                                 block_identity_name(source.block_identity)),
                     display);
  std::string by;
  for (GroupBy g : r.query.by) by += (by.empty() ? "" : ",") + std::string(group_by_name(g));
  append_header_line(out,
                     fmt::format("query    window {}  by {}  sorted by {}  top {}{}", window_text(r.query.window),
                                 by.empty() ? "-" : by, measure_name(r.query.sort), r.query.top,
                                 r.query.block_set == BlockSet::kAtPeak ? "  blocks alive at the peak" : ""),
                     display);
  if (source.live) {
    append_header_note(out,
                       fmt::format("note     recording in progress, up to {}: the answer covers the part recorded "
                                   "so far\n",
                                   format_duration(source.live->up_to_ns)),
                       display);
  }
  if (source.block_identity == BlockIdentity::kBucketLifo) {
    append_header_note(out,
                       "note     no block addresses in this trace: which block a free ended is attributed (last in, "
                       "first out per size and stack);\n         window outstanding counts, lifetimes and impacting "
                       "types are attributions\n",
                       display);
  }
  if (!r.realloc_known) append_header_note(out, "note     this source does not mark reallocs: src is unavailable (-)\n", display);
  if (r.query.window.begin_ns > r.trace_end_ns) {
    append_header_note(out,
                       fmt::format("note     the window starts at {}, after the trace ends ({}): no block was allocated "
                                   "in it; the peak is what was outstanding at its start\n",
                                   format_duration(r.query.window.begin_ns), format_duration(r.trace_end_ns)),
                       display);
  } else if (r.query.window.end_ns == r.query.window.begin_ns) {
    append_header_note(out,
                       fmt::format("note     the window is empty (it is [T1, T2) and ends where it begins): no block "
                                   "was allocated in it; the peak is what was outstanding at {}\n",
                                   format_duration(r.query.window.begin_ns)),
                       display);
  }
  const std::vector<Column> cols = columns(r);
  const std::size_t indent = (cols.size() + r.derived_columns.size()) * 13;
  out += "\n";
  for (const Column& c : cols) out += fmt::format("{:>12} ", fmt::format("{}{}", c.name, c.sort ? "*" : ""));
  for (const std::string& name : r.derived_columns) out += fmt::format("{:>12} ", name);
  out += " key\n";
  for (const Row& row : r.rows) {
    append_measures(out, r, row.measures, cols);
    for (const std::string& value : row.derived) out += fmt::format("{:>12} ", value);
    append_table_key(out, row.key, indent, display);
    to.row_written();
  }
  const std::string no_derived(r.derived_columns.size() * 13, ' ');
  if (r.other) {
    append_measures(out, r, *r.other, cols);
    out += no_derived;
    out += fmt::format(" [other: {} more row{}]\n", r.other_rows, r.other_rows == 1 ? "" : "s");
  }
  append_measures(out, r, r.totals, cols);
  out += no_derived;
  out += " [total]\n";
  if (r.excluded_blocks > 0) {
    out += fmt::format("\nfilters removed {} ({}) allocated in the window\n", format_count(r.excluded_blocks, "block", "blocks"),
                       format_bytes_human(r.excluded_bytes));
  }
  out += fmt::format("peak     {} in {} at {}\n", format_bytes_human(r.peak.bytes), format_count(r.peak.blocks, "block", "blocks"),
                     format_duration(r.peak.time_ns));
  if (r.detail) append_detail_table(out, *r.detail, display);
}

namespace {

// The store file: what it was ingested from, and its size by section.
std::string store_file_table(const StoreFileInfo& f, std::uint64_t blocks) {
  std::string out = fmt::format("store file         {} (format version {}, {})\n", f.path, f.format_version,
                                format_bytes_human(f.file_bytes));
  for (const FileIdentity& source : f.files) {
    out += fmt::format("  ingested from            {} ({} bytes, head and tail hash {:016x})\n", source.path, source.size,
                       source.head_tail_hash);
  }
  out += fmt::format("  read with                {}\n", reading_in_words(f.reading));
  std::uint64_t block_bytes = 0;
  for (const StoreSectionInfo& section : f.sections) {
    out += fmt::format("  {:<24} {:>12} bytes  {:>12} {}\n", section.name, section.bytes, section.items,
                       section.items == 1 ? "item" : "items");
    if (section.name == "block buckets" || section.name == "block allocation times" || section.name == "frees") {
      block_bytes += section.bytes;
    }
  }
  if (blocks > 0) {
    out += fmt::format("  bytes a block            {:.2f} (blocks and frees), {:.2f} (the whole file)\n",
                       double(block_bytes) / double(blocks), double(f.file_bytes) / double(blocks));
  }
  return out;
}

}  // namespace

std::string summary_table(const TraceSummary& s) {
  const SourceInfo& src = s.source;
  std::string out;
  out += fmt::format("trace              {}\n", src.path);
  // Every other file read: the raw twin of an interpreted file, or the
  // interpreted twin of a raw file named alone.
  for (const std::string& file : src.files) {
    if (file != src.path) out += fmt::format("also read          {}\n", file);
  }
  out += fmt::format("source             {} {} ({}){}{}\n", src.source, src.format, src.compression,
                     src.details.source_line.empty() ? "" : ", ", src.details.source_line);
  if (!src.command.empty()) out += fmt::format("command            {}\n", src.command);
  // Lines of a text trace (an event CSV counts its event lines only), events of an ETL file.
  out += fmt::format("records            {} {}\n", src.lines, src.source == "etw" ? "events" : "lines");
  if (src.live) {
    out += fmt::format("RECORDING          in progress, up to {}: the answers cover the part recorded so far ({})\n",
                       format_duration(src.live->up_to_ns), src.live->journal);
  }
  if (src.cut) {
    out += fmt::format("ENDS EARLY         {}: {} at byte {}, {} bytes left over; the answers cover 0s..{}\n",
                       src.cut->file, src.cut->what, src.cut->at_byte, src.cut->left_over_bytes,
                       format_duration(src.end_ns));
  }
  out += fmt::format("duration           {}\n", format_duration(s.duration_ns));
  out += fmt::format("allocations        {} ({} allocated)\n", s.blocks, format_bytes_human(s.total_allocated_bytes));
  out += fmt::format("frees              {}\n", s.frees);
  out += fmt::format("temporary          {}\n", s.temporary);
  out += fmt::format("leaked             {} in {}\n", format_bytes_human(s.leaked_bytes),
                     format_count(s.leaked_blocks, "block", "blocks"));
  out += fmt::format("peak               {} in {} at {}\n", format_bytes_human(s.peak.bytes),
                     format_count(s.peak.blocks, "block", "blocks"),
                     format_duration(s.peak.time_ns));
  if (src.peak_rss_bytes) out += fmt::format("peak RSS           {}\n", format_bytes_human(src.peak_rss_bytes));
  out += fmt::format("unique             {}, {}, {}, {} with blocks, {}\n",
                     format_count(s.unique_stacks, "stack", "stacks"), format_count(s.unique_frames, "frame", "frames"),
                     format_count(s.unique_modules, "module", "modules"),
                     format_count(s.processes, "process", "processes"), format_count(s.heaps, "heap", "heaps"));
  const Anomalies& a = src.anomalies;
  out += fmt::format("anomalies          {}, {}, {} over a live block, {}, {}\n",
                     format_count(a.double_frees, "double free", "double frees"),
                     format_count(a.unmatched_frees, "unmatched free", "unmatched frees"),
                     format_count(a.alloc_over_live, "allocation", "allocations"),
                     format_count(a.decreasing_timestamps, "decreasing timestamp", "decreasing timestamps"),
                     format_count(a.skipped_records, "skipped record", "skipped records"));
  out += fmt::format("capabilities       block identity {}, realloc {}, threads {}, time resolution {}\n",
                     block_identity_name(src.block_identity), src.realloc_marked ? "marked" : "not marked",
                     src.threads ? "recorded" : "not recorded", format_duration(src.time_resolution_ns));
  if (!src.embedded_suppressions.empty()) {
    out += fmt::format("suppressions       {} embedded (applied with --embedded-suppressions)\n",
                       src.embedded_suppressions.size());
  }
  for (const auto& [label, text] : src.details.table) out += fmt::format("{:<18} {}\n", label, text);
  if (s.store) {
    out += fmt::format("store              {:.2f} bytes a block ({} columns, {} tables)\n", s.store->bytes_per_block,
                       format_bytes_human(s.store->column_bytes), format_bytes_human(s.store->table_bytes));
  }
  if (s.store_file) out += store_file_table(*s.store_file, s.blocks);
  return out;
}

}  // namespace heapql
