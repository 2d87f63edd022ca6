// What a reader does with an anomaly (semantics.md §1): the reader counts it
// and reads on; this says so, naming the file and place (the first few of a
// reading, then how many more), or, with --strict, refuses the trace there.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/error.h"
#include "engine/store/events.h"

namespace heapql {

class AnomalyReport {
 public:
  // `warnings`: where warnings go (null = stderr, emit_warning).
  AnomalyReport(bool strict, std::string* warnings) : strict_(strict), warnings_(warnings) {}

  // One anomaly at `where`; `what` says what happened and names its counter,
  // e.g. "... (unmatched_frees)". Throws Error at `where` when strict.
  void note(const SourceLocation& where, std::string_view what);
  // After the read: says how many anomalies of `path` were not listed.
  void finish(const std::string& path) const;

  bool strict() const { return strict_; }
  std::uint64_t noted() const { return noted_; }

  // Listed one by one; the rest are only counted (`heapql info` has them all).
  static constexpr std::uint64_t kListed = 10;

 private:
  bool strict_;
  std::string* warnings_;
  std::uint64_t noted_ = 0;
};

// For a source that counts its anomalies without their places (an ETL
// file, a store): "N anomalies (1 double free, ...)". Empty when none.
std::string describe_anomaly_counts(const Anomalies& anomalies);
// With `strict`, refuses a source with anomalies (an Error naming `file`);
// otherwise, with `warn`, says how many there are.
void report_anomaly_counts(const Anomalies& anomalies, const std::string& file, bool strict, bool warn,
                           std::string* warnings);

}  // namespace heapql
