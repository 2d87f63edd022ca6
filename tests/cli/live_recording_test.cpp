// Queries on a recording in progress from other processes: while this test
// writes a live journal (a LiveJournalWriter fed by a real trace's reader,
// slowed down to last a few seconds), `heapql query`, `info` and `run` read
// it over and over: every answer says it is of a recording in progress, none
// fails, and what they count only grows. Once the writer is gone the journal
// is passed over with a warning and the trace is read.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>

#include "engine/ingest/open_trace.h"
#include "engine/session/live_journal.h"
#include "engine/store/trace_store.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

// A consumer that takes its time, as a program recorded would: a
// millisecond every 200 events.
class Slowly final : public EventConsumer {
 public:
  explicit Slowly(EventConsumer& next) : next_(next) {}
  void on_alloc(const LiveBlock& b) override {
    next_.on_alloc(b);
    pause();
  }
  void on_free(const LiveBlock& b, std::uint64_t seq, std::int64_t ns, bool temporary) override {
    next_.on_free(b, seq, ns, temporary);
    pause();
  }
  void on_still_alive(const LiveBlock& b) override { next_.on_still_alive(b); }
  void on_finish(std::int64_t end_ns) override { next_.on_finish(end_ns); }

 private:
  void pause() {
    if (++events_ % 200 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EventConsumer& next_;
  std::uint64_t events_ = 0;
};

std::uint64_t number_after(const std::string& text, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("\"" + key + "\":([0-9]+)"))) return 0;
  return std::stoull(m[1]);
}

TEST(LiveRecording, QueriesFromOtherProcessesAnswerTheRecordingSoFar) {
  const std::string gui = shared_data("heaptrack/heaptrack.heaptrack_gui.99454.zst");
  const std::string trace = !gui.empty() && fs::exists(gui) ? gui : example_trace();
  TempDir dir;
  const std::string recording = dir.file("live.zst");
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    TraceStore built;
    TraceStore::Builder builder(built);
    LiveJournalWriter journal(recording, built.tables(), SourceInfo{}, builder, &builder.sums_so_far(), std::chrono::milliseconds(50));
    Slowly slowly(journal);
    OpenOptions options;
    options.show_progress = false;
    std::string warnings;
    options.warnings = &warnings;
    read_trace(trace, built.tables(), slowly, options);
    writing = false;
  });
  while (!fs::exists(live_journal_beside(recording))) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  int runs = 0, live_runs = 0;
  std::uint64_t last_blocks = 0;
  while (writing.load() || runs < 3) {
    const char* command = runs % 3 == 0 ? "query" : runs % 3 == 1 ? "info" : "query";
    const CommandResult r = heapql_on(command, runs % 3 == 2 ? live_journal_beside(recording) : recording,
                                      "--format json");
    ++runs;
    if (!writing.load() && r.err.find("left by a recording") != std::string::npos) break;  // ended meanwhile
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ++live_runs;
    expect_contains(r.err, recording + ": recording in progress, up to ");
    expect_contains(r.out, "\"recording_in_progress\":{\"up_to_ns\":");
    const std::uint64_t blocks = number_after(r.out, runs % 3 == 2 ? "blocks" : "stc");
    EXPECT_GE(blocks, last_blocks) << r.out;
    last_blocks = blocks;
  }
  writer.join();
  EXPECT_GE(live_runs, 2);
  // The table reports and a recipe's run say it too while it is live.
  {
    TraceStore built;
    TraceStore::Builder builder(built);
    LiveJournalWriter journal(recording, built.tables(), SourceInfo{}, builder, &builder.sums_so_far());
    const CommandResult table = heapql_on("query", recording, "--top 3");
    ASSERT_EQ(table.exit_code, 0) << table.err;
    expect_contains(table.out, "note     recording in progress, up to 0s: the answer covers the part recorded so far");
    const CommandResult info = heapql_on("info", recording);
    ASSERT_EQ(info.exit_code, 0) << info.err;
    expect_contains(info.out, "RECORDING          in progress, up to 0s");
    const CommandResult run = run_heapql("run leaks " + shell_quote(recording));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    expect_contains(run.err, "recording in progress, up to 0s");
  }
  // The writer gone: the journal is left, the trace (here a copy) is read.
  fs::copy_file(trace, recording);
  const CommandResult after = heapql_on("query", recording, "--format json");
  ASSERT_EQ(after.exit_code, 0) << after.err;
  expect_contains(after.err, live_journal_beside(recording) + ": left by a recording that did not finish");
  EXPECT_EQ(after.out.find("recording_in_progress"), std::string::npos);
}

}  // namespace
}  // namespace heapql::test
