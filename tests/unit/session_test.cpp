// engine/session: a session held open answers many queries as one-shot
// answers do, on several threads at once; a streamed answer and a loaded or
// mapped store agree; a stale store is passed over; the files a read of a
// heaptrack trace with a raw twin leaves and uses beside it are the ones
// files_beside_trace names; a cached store's name does not change.
#include "engine/session/trace_session.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/query/summary.h"
#include "engine/report/reports.h"
#include "engine/session/files_beside_trace.h"
#include "engine/session/ingest_into_store.h"
#include "engine/session/trace_store_location.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

OpenOptions quiet(std::string& warnings) {
  OpenOptions options;
  options.show_progress = false;
  options.warnings = &warnings;
  return options;
}

// The worked example (tests/data), copied where its store may be written.
std::string worked_example_in(const TempDir& dir) {
  const std::string path = dir.file("worked_example.txt");
  write_file(path, read_file(std::string(HEAPQL_TEST_DATA_DIR) + "/worked_example.txt"));
  return path;
}

// Queries that take each of the aggregator's ways through a store: the
// stack view, the bucket sums, a replay of a window, the peak, a series.
std::vector<Query> several_queries() {
  std::vector<Query> queries;
  Query by_stack;
  by_stack.by = {GroupBy::kStack};
  queries.push_back(by_stack);
  Query by_frame = by_stack;
  by_frame.by = {GroupBy::kFrame};
  by_frame.default_cull = false;
  by_frame.top = 2;
  queries.push_back(by_frame);
  Query window = by_frame;
  window.window.begin_ns = 100'000'000;
  window.window.end_ns = 300'000'000;
  window.impacting = {Impacting::kAifo, Impacting::kAifi};
  queries.push_back(window);
  Query at_peak = by_stack;
  at_peak.block_set = BlockSet::kAtPeak;
  queries.push_back(at_peak);
  Query series = by_frame;
  series.series_buckets = 7;
  queries.push_back(series);
  queries.push_back(summary_query());
  return queries;
}

std::string json_of(const Answer& answer) { return result_json(answer.result, answer.source); }

// One query answered by a session of its own, as the command line does.
std::string answered_once(const std::string& path, const Query& query, bool keep_store = false) {
  std::string warnings;
  TraceSession session(path, quiet(warnings));
  const Answer answer = session.answer_once(query, compile_stack_filters(query), keep_store);
  EXPECT_EQ(session.is_open(), keep_store) << "streamed unless the store is kept";
  return json_of(answer);
}

// The worked example, and a session of it held open.
class OpenSession : public ::testing::Test {
 protected:
  void SetUp() override { held_.open(); }

  TempDir dir_;
  const std::string trace_ = worked_example_in(dir_);
  std::string warnings_;
  TraceSession held_{trace_, quiet(warnings_)};
};

TEST_F(OpenSession, AnswersManyQueriesAsOneShotAnswersDo) {
  ASSERT_TRUE(held_.is_open());
  for (int round = 0; round < 2; ++round) {  // asked again, answered again the same
    for (const Query& query : several_queries()) {
      EXPECT_EQ(json_of(held_.answer(query, compile_stack_filters(query))), answered_once(trace_, query));
    }
  }
  EXPECT_EQ(warnings_, "");
}

TEST_F(OpenSession, AnswersOnSeveralThreadsAtOnce) {
  const std::vector<Query> queries = several_queries();
  std::vector<std::vector<std::string>> answers(2);
  std::vector<std::thread> threads;
  for (std::vector<std::string>& mine : answers) {
    threads.emplace_back([&] {
      for (const Query& query : queries) mine.push_back(json_of(held_.answer(query, compile_stack_filters(query))));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const std::string expected = answered_once(trace_, queries[i]);
    EXPECT_EQ(answers[0][i], expected) << i;
    EXPECT_EQ(answers[1][i], expected) << i;
  }
}

TEST_F(OpenSession, PreparedForManyQueriesAnswersAsOneShotAnswersDo) {
  // What a server does before it forks: then windows are answered from the
  // window index, whole-trace regroups from the session's views.
  held_.prepare_for_many_queries();
  held_.prepare_for_many_queries();  // once: the second call does nothing
  ASSERT_NE(held_.window_index(), nullptr);
  std::vector<Query> queries = several_queries();
  for (const GroupBy level : {GroupBy::kStack, GroupBy::kFrame, GroupBy::kImage, GroupBy::kProcess, GroupBy::kHeap,
                              GroupBy::kThread, GroupBy::kKind}) {
    Query regroup;
    regroup.by = {level};
    regroup.top = 3;
    regroup.sort = Measure::kStc;
    queries.push_back(regroup);
  }
  for (const std::int64_t begin : {0, 50'000'000, 150'000'000, 900'000'000}) {
    Query window;
    window.by = {GroupBy::kStack};
    window.top = 50;
    window.series_buckets = 40;
    window.window.begin_ns = begin;
    window.window.end_ns = begin + 200'000'000;
    queries.push_back(window);
    window.window.end_ns.reset();
    queries.push_back(window);
  }
  std::vector<std::vector<std::string>> answers(2);
  std::vector<std::thread> threads;
  for (std::vector<std::string>& mine : answers) {
    threads.emplace_back([&] {
      for (const Query& query : queries) mine.push_back(json_of(held_.answer(query, compile_stack_filters(query))));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const std::string expected = answered_once(trace_, queries[i]);
    EXPECT_EQ(answers[0][i], expected) << i;
    EXPECT_EQ(answers[1][i], expected) << i;
  }
  EXPECT_EQ(warnings_, "");
}

TEST(Session, StreamedLoadedAndMappedAnswersAreIdentical) {
  TempDir dir;
  const std::string trace = worked_example_in(dir);
  const std::vector<Query> queries = several_queries();
  std::vector<std::string> streamed, loaded;
  for (const Query& query : queries) {
    streamed.push_back(answered_once(trace, query));
    loaded.push_back(answered_once(trace, query, /*keep_store=*/true));
  }
  EXPECT_EQ(streamed, loaded);

  std::string warnings;
  const IngestResult ingested = ingest_trace(trace, "", quiet(warnings));
  EXPECT_EQ(ingested.store_path, trace + ".hqdb");
  TraceSession mapped(trace, quiet(warnings));
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const Query& query = queries[i];
    EXPECT_EQ(json_of(mapped.answer_once(query, compile_stack_filters(query))), streamed[i]) << i;
    ASSERT_TRUE(mapped.store_file().has_value()) << "a fresh store answers";
    EXPECT_EQ(mapped.store_file()->path, ingested.store_path);
  }
  EXPECT_EQ(warnings, "");
}

TEST(Session, TheTracesOwnSuppressionsAreAnsweredFromItsStore) {
  TempDir dir;
  const std::string trace = dir.file("suppressed.txt");
  std::string text = read_file(std::string(HEAPQL_TEST_DATA_DIR) + "/worked_example.txt");
  text.insert(text.find('\n', text.find("\nI ") + 1) + 1, "S leak:load_config\n");  // after the command's end
  write_file(trace, text);
  Query query;
  query.embedded_suppressions = true;
  std::string warnings;
  TraceSession session(trace, quiet(warnings));
  const Answer suppressed = session.answer_once(query, compile_stack_filters(query));
  EXPECT_TRUE(session.is_open()) << "the suppressions are read with the trace, before its first event counts";
  query.embedded_suppressions = false;
  const Answer whole = session.answer_once(query, compile_stack_filters(query));
  EXPECT_EQ(whole.result.totals.so - suppressed.result.totals.so, 256u) << "load_config's buffer";
}

TEST(Session, AStaleStoreIsPassedOverAndTheTraceRead) {
  TempDir dir;
  const std::string trace = worked_example_in(dir);
  std::string warnings;
  ingest_trace(trace, "", quiet(warnings));
  Query by_stack;
  by_stack.by = {GroupBy::kStack};
  TraceSession fresh(trace, quiet(warnings));
  const Answer before = fresh.answer_once(by_stack, compile_stack_filters(by_stack));
  ASSERT_TRUE(fresh.store_file().has_value());

  // The trace grows by a comment: its store no longer answers for it.
  write_file(trace, read_file(trace) + "# read again\n");
  TraceSession session(trace, quiet(warnings));
  const Answer answer = session.answer_once(by_stack, compile_stack_filters(by_stack));
  EXPECT_FALSE(session.store_file().has_value());
  EXPECT_FALSE(session.is_open()) << "streamed from the trace";
  EXPECT_EQ(answer.result.totals.so, before.result.totals.so) << "a comment changes no answer";
  EXPECT_EQ(answer.result.rows.size(), before.result.rows.size());
  EXPECT_NE(warnings.find(trace + ".hqdb: not used, " + trace + " has changed since it was ingested"),
            std::string::npos)
      << warnings;

  // Named, the store is the input: stale is an error, not a fallback.
  TraceSession named(trace + ".hqdb", quiet(warnings));
  try {
    named.open();
    ADD_FAILURE() << "a stale store named as the input answered";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("stale: its trace " + trace + " has changed"), std::string::npos) << e.what();
  }
}

// Heaptrack's interpreted file and its raw twin, in step for t, + and -; the
// interpreted file whole (its closing lines), so that its block-identity file
// is written.
constexpr const char* kInterpreted =
    "v 10400 3\nX ./p\nI 1000 100\ns 8 /bin/p.x\ns 1 f\ni 401010 1 2\nt 1 0\na 10 1\n+ 0\nc a\n+ 0\nc 14\n- 0\n"
    "# strings: 2\n# ips: 1\n";
constexpr const char* kRaw =
    "v 10400 3\nx 8 /bin/p.x\nX ./p\nI 1000 100\nm 8 /bin/p.x 400000 0 10000\nt 401010 0\n"
    "+ 10 1 aaa0\nc a\n+ 10 1 bbb0\nc 14\n- aaa0\n";

TEST(Session, TheFilesBesideAHeaptrackTraceWithARawTwinAreThoseItsReadsUse) {
  TempDir dir;
  const std::string trace = dir.file("p.zst");
  const std::string raw = dir.file("p.raw.zst");
  write_zstd(trace, kInterpreted);
  write_zstd(raw, kRaw);
  const std::vector<std::string> beside = files_beside_trace(trace);
  const auto listed = [&](const std::string& file) {
    return std::find(beside.begin(), beside.end(), file) != beside.end();
  };

  std::string warnings;
  const IngestResult ingested = ingest_trace(trace, "", quiet(warnings));  // the store and the block-identity file
  EXPECT_EQ(ingested.source.format, "raw+interpreted");
  EXPECT_FALSE(ingested.block_identity_path.empty());
  for (const std::string& file : ingested.source.files) {
    EXPECT_TRUE(file == trace || listed(file)) << file << " was read and is not listed";
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(dir.path())) {
    const std::string file = entry.path().string();
    EXPECT_TRUE(file == trace || listed(file)) << file << " is beside the trace and not listed";
  }
  EXPECT_TRUE(listed(raw));

  // Named as the trace, the raw file is read with its interpreted twin.
  const std::vector<std::string> beside_raw = files_beside_trace(raw);
  EXPECT_NE(std::find(beside_raw.begin(), beside_raw.end(), trace), beside_raw.end());
  EXPECT_TRUE(read_only_with_a_file_beside(raw));
  EXPECT_FALSE(read_only_with_a_file_beside(trace));
  TraceSession session(raw, quiet(warnings));
  Query totals;
  const Answer answer = session.answer_once(totals, compile_stack_filters(totals));
  EXPECT_EQ(answer.source.files.front(), trace);
}

// The per-user cache names a trace's store by a hash of its absolute path:
// XXH3, the same in every heapql build, so a cached store is found again
// after heapql is rebuilt (the value is XXH3_64bits of the path).
TEST(Session, TheCachedStoresNameIsTheSameInEveryBuild) {
  HEAPQL_SKIP_ON_WINDOWS("the cache is under %LOCALAPPDATA% there, not XDG_CACHE_HOME");
  const char* was = std::getenv("XDG_CACHE_HOME");
  const std::optional<std::string> saved = was ? std::optional<std::string>(was) : std::nullopt;
  test::set_environment_variable("XDG_CACHE_HOME", "/cache");
  const std::string name = store_in_cache("/traces/prog.zst");
  test::set_environment_variable("XDG_CACHE_HOME", saved);
  EXPECT_EQ(name, "/cache/heapql/917b71cfcc00005a-prog.zst.hqdb");
}

}  // namespace
}  // namespace heapql::test
