// heaptrack's own sample files (format version 2, gzip and zstd) read by
// `heapql info`, checked against the expected values in
// shared/data/heaptrack/README.md ("leaked" is the no-suppressions column:
// heapql suppresses nothing).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "tests/support/flat_json.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

// Every JSON leaf as "a.b.c" -> text (strings unquoted, list items by index).
std::string get(const FlatJson& json, const std::string& key) { return json_get(json, key); }

// `heapql info FILE --format json`, flattened; empty after a failure.
FlatJson info_json(const std::string& trace) {
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " info " + shell_quote(trace) + " --format json");
  EXPECT_EQ(r.exit_code, 0) << "heapql info " << trace << "\nstderr: " << r.err;
  if (r.exit_code != 0) return {};
  return flatten_json(r.out);
}

struct Expected {
  const char* file;
  const char* compression;
  const char* blocks;  // README "calls"
  const char* peak_bytes;
  const char* leaked_bytes;  // README "leaked, no suppressions"
  const char* total_bytes;
};

#define SAMPLES_OR_SKIP(dir)                                                                                     \
  const std::string dir = shared_data("heaptrack");                                                             \
  if (dir.empty())                                                                                              \
  GTEST_SKIP() << "heaptrack sample folder " HEAPQL_SHARED_DATA_DIR "/heaptrack is absent (heaptrack's tests/auto " \
                  "files); nothing to check"

FlatJson check_sample(const std::string& dir, const Expected& e) {
  const std::string trace = (std::filesystem::path(dir) / e.file).string();
  SCOPED_TRACE(trace);
  if (!std::filesystem::exists(trace)) {
    ADD_FAILURE() << "the sample folder exists but lacks " << e.file;
    return {};
  }
  const FlatJson info = info_json(trace);
  EXPECT_EQ(get(info, "trace.source"), "heaptrack");
  EXPECT_EQ(get(info, "trace.compression"), e.compression);
  EXPECT_EQ(get(info, "heaptrack.format_version"), "2");
  EXPECT_EQ(get(info, "summary.blocks"), e.blocks) << "calls to allocation functions";
  EXPECT_EQ(get(info, "summary.peak.bytes"), e.peak_bytes);
  EXPECT_EQ(get(info, "summary.leaked.bytes"), e.leaked_bytes) << "leaked, no suppressions";
  EXPECT_EQ(get(info, "summary.total_allocated_bytes"), e.total_bytes);
  return info;
}

TEST(SharedHeaptrackData, DavidGzip) {
  SAMPLES_OR_SKIP(dir);
  check_sample(dir, {"heaptrack.david.18594.gz", "gzip", "2896", "996970", "30463", "132794486"});
}

TEST(SharedHeaptrackData, EmbeddedLsanSuppressions) {
  SAMPLES_OR_SKIP(dir);
  const FlatJson info = check_sample(
      dir, {"heaptrack.embedded_lsan_suppressions.84207.zst", "zstd", "5", "72714", "10", "72714"});
  // The file's two `S` lines, in file order, reported but not applied.
  EXPECT_EQ(get(info, "heaptrack.embedded_suppressions.length"), "2");
  EXPECT_EQ(get(info, "heaptrack.embedded_suppressions.0"), "leak:foobar");
  EXPECT_EQ(get(info, "heaptrack.embedded_suppressions.1"), "leak:^leak*Supp$");
}

TEST(SharedHeaptrackData, HeaptrackGui99454) {
  SAMPLES_OR_SKIP(dir);
  check_sample(dir, {"heaptrack.heaptrack_gui.99454.zst", "zstd", "278534", "12222213", "1047379", "117696682"});
}

TEST(SharedHeaptrackData, HeaptrackGui99529) {
  SAMPLES_OR_SKIP(dir);
  check_sample(dir, {"heaptrack.heaptrack_gui.99529.zst", "zstd", "315255", "64840134", "1046377", "285522803"});
}

}  // namespace
}  // namespace heapql::test
