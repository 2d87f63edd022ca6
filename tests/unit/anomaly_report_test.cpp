// semantics.md §1, one rule for every reader: an anomaly is counted and the
// read goes on, with a warning naming the file and place (the first ten,
// then how many more); --strict refuses the trace there. Here: the report
// itself, and a source that knows only its counts (an ETL file).
#include "engine/ingest/anomaly_report.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/error.h"
#include "engine/ingest/open_trace.h"
#include "tests/support/etl_writer.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

TEST(AnomalyReport, ListsTheFirstTenWithTheirPlacesThenCountsTheRest) {
  std::string warnings;
  AnomalyReport report(false, &warnings);
  for (std::uint64_t line = 1; line <= 12; ++line) report.note(SourceLocation{"t", line, {}, {}}, "odd (x)");
  report.finish("t");
  EXPECT_EQ(report.noted(), 12u);
  EXPECT_NE(warnings.find("t:10: odd (x)\n"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("t:11: "), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("t: 2 more anomalies not listed (every one is counted; see `heapql info`)\n"),
            std::string::npos)
      << warnings;
}

TEST(AnomalyReport, StrictRefusesAtTheFirstOne) {
  std::string warnings;
  AnomalyReport report(true, &warnings);
  try {
    report.note(SourceLocation{"t", 7, {}, {}}, "odd (x)");
    ADD_FAILURE() << "--strict let an anomaly through";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "t:7: odd (x); --strict refuses a trace with an anomaly");
  }
  EXPECT_EQ(warnings, "");
}

// The ETL reader counts its anomalies without their places: one warning
// with the counts, naming the file; --strict refuses the file.
TEST(AnomalyReport, AnEtlFilesAnomaliesAreWarnedAboutByCountAndRefusedWhenStrict) {
  TempDir dir;
  constexpr std::uint32_t kPid = 500, kTid = 501;
  constexpr std::uint64_t kHeap = 0x2a0000;
  EtlWriter w;
  ProcessInfo p;
  p.pid = kPid;
  p.image_file_name = "app.exe";
  w.process_start(0, w.ticks_at_ns(0), p);
  w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(1), kHeap, 64, 0x1000);
  w.heap_free(0, kTid, kPid, w.ticks_at_ms(2), kHeap, 0x1000);
  w.heap_free(0, kTid, kPid, w.ticks_at_ms(3), kHeap, 0x1000);  // a double free
  w.heap_free(0, kTid, kPid, w.ticks_at_ms(4), kHeap, 0x9000);  // never allocated
  const std::string path = dir.file("t.etl");
  w.write(path);
  std::string warnings;
  OpenOptions options;
  options.show_progress = false;
  options.warnings = &warnings;
  const auto store = load_trace(path, options);
  EXPECT_EQ(store->source().anomalies.total(), 2u);
  EXPECT_NE(warnings.find(path + ": 2 anomalies (1 unmatched_frees, 1 double_frees), counted; the read went on"),
            std::string::npos)
      << warnings;
  options.strict = true;
  try {
    load_trace(path, options);
    ADD_FAILURE() << "--strict accepted " << path;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": 2 anomalies (1 unmatched_frees, 1 double_frees); --strict refuses a trace with an anomaly");
  }
}

}  // namespace
}  // namespace heapql::test
