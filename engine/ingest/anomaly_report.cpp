#include "engine/ingest/anomaly_report.h"

#include <fmt/format.h>

#include "engine/warnings.h"

namespace heapql {

void AnomalyReport::note(const SourceLocation& where, std::string_view what) {
  if (strict_) throw Error(where, fmt::format("{}; --strict refuses a trace with an anomaly", what));
  if (++noted_ > kListed) return;
  emit_warning(warnings_, fmt::format("{}{}\n", format_location(where), what));
}

void AnomalyReport::finish(const std::string& path) const {
  if (noted_ <= kListed) return;
  emit_warning(warnings_, fmt::format("{}: {} more anomalies not listed (every one is counted; see `heapql info`)\n",
                                      path, noted_ - kListed));
}

std::string describe_anomaly_counts(const Anomalies& a) {
  if (a.total() == 0) return {};
  std::string kinds;
  const auto add = [&](std::uint64_t count, std::string_view name) {
    if (count == 0) return;
    if (!kinds.empty()) kinds += ", ";
    kinds += fmt::format("{} {}", count, name);
  };
  add(a.unmatched_frees, "unmatched_frees");
  add(a.double_frees, "double_frees");
  add(a.alloc_over_live, "alloc_over_live");
  add(a.decreasing_timestamps, "decreasing_timestamps");
  add(a.skipped_records, "skipped_records");
  return fmt::format("{} anomal{} ({})", a.total(), a.total() == 1 ? "y" : "ies", kinds);
}

void report_anomaly_counts(const Anomalies& anomalies, const std::string& file, bool strict, bool warn,
                           std::string* warnings) {
  const std::string counts = describe_anomaly_counts(anomalies);
  if (counts.empty()) return;
  if (strict) throw Error(SourceLocation::of_file(file), counts + "; --strict refuses a trace with an anomaly");
  if (warn) emit_warning(warnings, fmt::format("{}: {}, counted; the read went on (see `heapql info`)\n", file, counts));
}

}  // namespace heapql
