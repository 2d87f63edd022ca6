#include "engine/report/html_report.h"

#include "engine/report/json_measures.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/error.h"
#include "engine/query/short_name.h"
#include "engine/report/json_writer.h"
#include "engine/report/reports.h"
#include "engine/units.h"

namespace heapql {

namespace {

// Where report-ui/src/page.html takes the data's script elements.
constexpr std::string_view kDataMarker = "<!--@data-->";

// Bytes a key string takes in the page, at most: JSON quotes and comma,
// escapes, and every '<' written as \u003c (C++ frames are full of them).
std::size_t embedded_size(std::string_view text) {
  std::size_t size = text.size() + 3;
  for (char c : text) {
    if (c == '<' || static_cast<unsigned char>(c) < 0x20) {
      size += 5;
    } else if (c == '"' || c == '\\') {
      size += 1;
    }
  }
  return size;
}

std::size_t embedded_key_size(const std::vector<KeyValue>& key) {
  std::size_t size = 0;
  for (const KeyValue& k : key) {
    if (k.level != GroupBy::kStack) {
      size += embedded_size(k.text);
      continue;
    }
    for (const std::string& frame : k.frames) size += embedded_size(frame);
  }
  return size;
}

bool passes_share(const Measures& row, const Measures& totals, bool realloc_known, std::uint32_t per_million) {
  return share_at_least(row.so, totals.so, per_million) || share_at_least(row.soc, totals.soc, per_million) ||
         share_at_least(row.st, totals.st, per_million) || share_at_least(row.stc, totals.stc, per_million) ||
         (realloc_known && share_at_least(row.src, totals.src, per_million));
}

std::string range_text(std::uint64_t begin, const std::optional<std::uint64_t>& end) {
  return fmt::format("{}..{}", begin, end ? fmt::format("{}", *end) : std::string());
}

std::string duration_range_text(const std::optional<std::int64_t>& begin, const std::optional<std::int64_t>& end) {
  return fmt::format("{}..{}", begin ? format_duration(*begin) : std::string(),
                     end ? format_duration(*end) : std::string());
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ",") + part;
  return out;
}

// What the page adds to the result: how it was pruned, the filters, the names.
std::string page_info_json(const PrunedResult& pruned, const PagePruning& pruning, std::size_t rows_before,
                           const DisplayOptions& display) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("pruning").begin_object();
  write_pruning_counts(w, pruning, rows_before, pruned.result.rows.size(), pruned.rows_pruned,
                       pruned.other_rows_before);
  w.key("pruned").begin_object();
  write_measure_fields(w, pruned.pruned, pruned.result.realloc_known);
  w.end_object();
  w.end_object();
  write_page_filters(w, pruned.result.query);
  write_page_display(w, display, pruned.short_names);
  w.end_object();
  return out;
}

// JSON inside a <script> element: no '<' at all, so no "</script>" or "<!--"
// can end or bend it (frame names come from the traced program).
std::string script_safe(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

void require_html_report() {
  if (!html_report_built()) {
    throw Error("this heapql was built without the HTML report (configured with -DHEAPQL_HTML_REPORT=OFF)");
  }
}

bool share_at_least(std::uint64_t value, std::uint64_t total, std::uint32_t per_million) {
  // In integers: both sides stay far below 2^128.
  return value > 0 &&
         static_cast<unsigned __int128>(value) * 1'000'000 >= static_cast<unsigned __int128>(total) * per_million;
}

bool PageRowKeeper::keep(const std::vector<KeyValue>& key, bool passes_share) {
  const bool wanted = kept_ < pruning_.rows_always_kept || passes_share;
  if (budget_spent_ || !wanted) return false;
  // The frames this row brings to the page, with the short names they add.
  std::vector<std::pair<const std::string*, std::string>> fresh;
  std::size_t size = embedded_key_size(key);
  for (const KeyValue& k : key) {
    if (k.level != GroupBy::kStack) continue;
    for (const std::string& frame : k.frames) {
      if (seen_frames_.contains(frame)) continue;
      if (std::any_of(fresh.begin(), fresh.end(), [&](const auto& f) { return *f.first == frame; })) continue;
      std::string short_name = short_frame_name(frame);
      if (short_name != frame) size += embedded_size(frame) + embedded_size(short_name);
      fresh.emplace_back(&frame, std::move(short_name));
    }
  }
  if (text_ + size > pruning_.key_text_budget) {
    budget_spent_ = true;
    return false;
  }
  text_ += size;
  ++kept_;
  for (auto& [frame, short_name] : fresh) {
    seen_frames_.insert(*frame);
    if (short_name != *frame) short_names_.emplace(*frame, std::move(short_name));
  }
  return true;
}

// The query's options that result_json does not carry (it has the window,
// by, sort, top and block set), as the command line would say them: each
// option once, with its values. A recipe's cull set is named by the lists
// it was made of (its patterns run to dozens).
void write_page_filters(JsonWriter& w, const Query& q) {
  w.key("filters").begin_array();
  const auto options = [&](std::string_view name, const std::vector<std::string>& values) {
    if (values.empty()) return;
    w.begin_object().field("option", name).key("values").begin_array();
    for (const std::string& value : values) w.value(value);
    w.end_array().end_object();
  };
  const auto option = [&](std::string_view name, const std::string& value) { options(name, {value}); };
  if (q.size_min > 0 || q.size_end) option("--size", range_text(q.size_min, q.size_end));
  if (q.lifetime_min_ns || q.lifetime_end_ns) {
    option("--lifetime", duration_range_text(q.lifetime_min_ns, q.lifetime_end_ns));
  }
  if (!q.processes.empty()) option("--process", joined(q.processes));
  if (!q.heaps.empty()) option("--heap", joined(q.heaps));
  if (!q.kinds.empty()) {
    std::vector<std::string> kinds;
    for (BlockKind k : q.kinds) kinds.emplace_back(k == BlockKind::kHeap ? "heap" : "virtual");
    option("--kind", joined(kinds));
  }
  if (!q.threads.empty()) {
    std::vector<std::string> threads;
    for (std::uint32_t t : q.threads) threads.push_back(fmt::format("{}", t));
    option("--thread", joined(threads));
  }
  if (!q.impacting.empty()) {
    std::vector<std::string> types;
    for (Impacting t : q.impacting) types.emplace_back(impacting_name(t));
    option("--impacting", joined(types));
  }
  options("--require", q.require);
  options("--exclude", q.exclude);
  options("suppressions", q.suppressions);  // a recipe's `suppressions` field
  options("--suppressions", q.suppression_files);
  if (q.embedded_suppressions) option("--embedded-suppressions", "");
  if (q.cull_origin.empty()) {
    options("--cull", q.cull);
    if (!q.default_cull) option("--no-default-cull", "");
  } else if (q.cull_origin != "defaults") {  // the defaults alone are what no option says
    option("cull", q.cull_origin);
  }
  options("--cull-list", q.cull_files);
  if (q.temporary_only) option("--temporary", "");
  if (q.series_buckets > 0) option("--series", fmt::format("{}", q.series_buckets));
  w.end_array();
}

void write_pruning_counts(JsonWriter& w, const PagePruning& pruning, std::size_t rows_before, std::size_t rows_kept,
                          std::uint64_t rows_pruned, std::uint64_t other_rows_before) {
  w.field("rows_before", static_cast<std::uint64_t>(rows_before));
  w.field("rows_kept", static_cast<std::uint64_t>(rows_kept));
  w.field("rows_pruned", rows_pruned);
  w.field("rows_always_kept", static_cast<std::uint64_t>(pruning.rows_always_kept));
  w.field("other_rows_before", other_rows_before);
  w.field("min_share_per_million", pruning.min_share_per_million);
  w.field("key_text_budget", static_cast<std::uint64_t>(pruning.key_text_budget));
}

void write_page_display(JsonWriter& w, const DisplayOptions& display, const ShortNames& short_names) {
  w.field("full_names", display.full_names);
  w.key("short_names").begin_object();
  for (const auto& [full, short_name] : short_names) w.field(full, short_name);
  w.end_object();
}

PrunedResult prune_for_page(const Result& result, const PagePruning& pruning) {
  PrunedResult pruned;
  pruned.other_rows_before = result.other_rows;
  Result& kept = pruned.result;
  // Everything but the rows, whole: a field added to the summary reaches the page.
  static_cast<ResultSummary&>(kept) = result;
  PageRowKeeper keeper(pruning);
  for (const Row& row : result.rows) {
    if (keeper.keep(row.key,
                    passes_share(row.measures, result.totals, result.realloc_known, pruning.min_share_per_million))) {
      kept.rows.push_back(row);
      continue;
    }
    pruned.pruned.add(row.measures);
    ++pruned.rows_pruned;
  }
  if (pruned.rows_pruned > 0) {
    if (!kept.other) kept.other = Measures{};
    kept.other->add(pruned.pruned);
    kept.other_rows += pruned.rows_pruned;
  }
  pruned.short_names = keeper.take_short_names();
  return pruned;
}

std::string html_page(std::string_view data_json, std::string_view page_json) {
  require_html_report();
  const std::string_view page = html_page_template();
  const std::size_t marker = page.find(kDataMarker);
  if (marker == std::string_view::npos) throw Error("the HTML report's page has no place for the data");
  std::string out;
  out.reserve(page.size() + data_json.size() + page_json.size() + 64 * 1024);
  out += page.substr(0, marker);
  out += "<script type=\"application/json\" id=\"heapql-data\">";
  out += script_safe(data_json);
  out += "</script>\n<script type=\"application/json\" id=\"heapql-page\">";
  out += script_safe(page_json);
  out += "</script>";
  out += page.substr(marker + kDataMarker.size());
  return out;
}

std::string result_html(const Result& result, const SourceInfo& source, const DisplayOptions& display) {
  require_html_report();
  const PagePruning pruning;
  const PrunedResult pruned = prune_for_page(result, pruning);
  return html_page(result_json(pruned.result, source), page_info_json(pruned, pruning, result.rows.size(), display));
}

}  // namespace heapql
