// The drill-down in the JSON and table reports (detail_parts.h).
#include "engine/report/detail_parts.h"

#include <fmt/format.h>

#include "engine/report/json_measures.h"
#include "engine/report/json_parts.h"
#include "engine/report/table_parts.h"
#include "engine/units.h"

namespace heapql {

namespace {

void write_bins(JsonWriter& w, const std::vector<DetailBin>& bins, const char* from, const char* to) {
  w.begin_array();
  for (const DetailBin& bin : bins) {
    w.begin_object().field(from, bin.from).field(to, bin.to);
    w.field("blocks", bin.blocks).field("bytes", bin.bytes).end_object();
  }
  w.end_array();
}

// The stacks shown in the table, each by its top frame.
constexpr std::size_t kTableStacks = 5;

std::string lifetime_text(const DetailBin& bin) {
  const auto ns = [](std::uint64_t v) { return format_duration(static_cast<std::int64_t>(v)); };
  return bin.to ? fmt::format("{}..{}", ns(bin.from), ns(*bin.to)) : fmt::format("{}..", ns(bin.from));
}

// A stack's first frame its culling keeps: what the table shows of it.
std::size_t first_kept(const DetailStack& s) { return std::min(s.culled_frames, s.frames.size() - 1); }

}  // namespace

void write_detail_object(JsonWriter& w, const RowDetail& d, const Result& r) {
  w.key("detail").begin_object();
  w.field("row", d.row);
  w.key("key");
  write_row_key(w, d.key);
  w.field("blocks", d.blocks).field("bytes", d.bytes);
  w.key("stacks").begin_array();
  for (const DetailStack& s : d.stacks) {
    w.begin_object();
    w.key("frames").begin_array();
    for (const std::string& f : s.frames) w.value(f);
    w.end_array();
    w.field("culled", s.culled_frames).field("bytes", s.bytes).field("blocks", s.measures.blocks);
    write_measure_fields(w, s.measures, r.realloc_known);
    if (r.impacting_measures) {
      w.field("count", s.measures.count).field("size", s.measures.size).field("impacting", s.measures.impacting);
    }
    w.end_object();
  }
  w.end_array();
  w.key("other_stacks").begin_object();
  w.field("stacks", d.other_stacks).field("blocks", d.other_blocks).field("bytes", d.other_bytes);
  w.end_object();
  w.key("sizes");
  write_bins(w, d.sizes, "from", "to");
  w.key("lifetimes");
  write_bins(w, d.lifetimes, "from_ns", "to_ns");
  w.key("not_freed").begin_object().field("blocks", d.not_freed_blocks).field("bytes", d.not_freed_bytes);
  w.end_object();
  w.end_object();
}

void append_detail_table(std::string& out, const RowDetail& d, const DisplayOptions& display) {
  std::string key;
  for (const KeyValue& k : d.key) {
    if (!key.empty()) key += " > ";
    key += k.level == GroupBy::kStack ? (k.frames.empty() ? "[]" : shown_frame(k.frames.front(), display)) : k.text;
  }
  out += "\n";
  append_header_line(out,
                     fmt::format("detail   row {}: {}  ({} in {})", d.row, key, format_bytes_human(d.bytes),
                                 format_count(d.blocks, "block", "blocks")),
                     display);
  out += "\n";
  const std::size_t stacks = std::min(d.stacks.size(), kTableStacks);
  for (std::size_t i = 0; i < stacks; ++i) {
    const DetailStack& s = d.stacks[i];
    append_header_line(out,
                       fmt::format("  stack  {:>10} {:>12}  {}", format_bytes_human(s.bytes),
                                   format_count(s.measures.blocks, "block", "blocks"),
                                   s.frames.empty() ? std::string("[]") : shown_frame(s.frames[first_kept(s)], display)),
                       display);
    out += "\n";
  }
  const std::uint64_t more = d.stacks.size() - stacks + d.other_stacks;
  if (more > 0) out += fmt::format("  stack  {} more (--format json lists {} in full)\n", more, d.stacks.size());
  for (const DetailBin& bin : d.sizes) {
    out += fmt::format("  size   {:>23}  {:>10} {:>12}\n",
                       bin.to ? fmt::format("{}..{}", bin.from, *bin.to) : fmt::format("{}..", bin.from),
                       format_bytes_human(bin.bytes), format_count(bin.blocks, "block", "blocks"));
  }
  for (const DetailBin& bin : d.lifetimes) {
    out += fmt::format("  life   {:>23}  {:>10} {:>12}\n", lifetime_text(bin), format_bytes_human(bin.bytes),
                       format_count(bin.blocks, "block", "blocks"));
  }
  if (d.not_freed_blocks > 0) {
    out += fmt::format("  life   {:>23}  {:>10} {:>12}\n", "not freed", format_bytes_human(d.not_freed_bytes),
                       format_count(d.not_freed_blocks, "block", "blocks"));
  }
}

}  // namespace heapql
