// engine/session/open_sessions.h: a session registered open is the one
// session_for gives for its path and reading (same store, answering even
// once the trace file is gone); another path or reading gets a new session.
#include "engine/session/open_sessions.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "engine/query/summary.h"
#include "engine/report/reports.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

class OpenSessions : public ::testing::Test {
 protected:
  void TearDown() override { forget_open_sessions(); }

  OpenOptions quiet() {
    OpenOptions options;
    options.show_progress = false;
    options.warnings = &warnings_;
    return options;
  }

  std::string warnings_;
};

TEST_F(OpenSessions, RegisteredSessionIsTheOneUsedWithoutReadingTheTraceAgain) {
  TempDir dir;
  const std::string path = dir.file("worked_example.txt");
  write_file(path, read_file(std::string(HEAPQL_TEST_DATA_DIR) + "/worked_example.txt"));
  TraceSession opened(path, quiet());
  opened.open();
  register_open_session(opened, quiet());
  const std::string expected = result_json(opened.answer(summary_query(), {}).result, opened.store()->source());

  // Gone from disk: only the registered session can answer now.
  std::filesystem::remove(path);
  OpenOptions confined = quiet();
  confined.show_progress = true;  // not part of the reading
  confined.confined = true;
  TraceSession found = session_for(path, confined);
  ASSERT_TRUE(found.is_open());
  EXPECT_EQ(found.store(), opened.store());
  const Answer a = found.answer_once(summary_query(), {});
  EXPECT_EQ(result_json(a.result, a.source), expected);
}

TEST_F(OpenSessions, AnotherPathOrReadingGetsANewClosedSession) {
  TempDir dir;
  const std::string path = dir.file("worked_example.txt");
  write_file(path, read_file(std::string(HEAPQL_TEST_DATA_DIR) + "/worked_example.txt"));
  TraceSession opened(path, quiet());
  opened.open();
  register_open_session(opened, quiet());

  OpenOptions strict = quiet();
  strict.strict = true;
  EXPECT_FALSE(session_for(path, strict).is_open());
  OpenOptions no_raw = quiet();
  no_raw.use_raw_twin = false;
  EXPECT_FALSE(session_for(path, no_raw).is_open());
  EXPECT_FALSE(session_for("./" + path, quiet()).is_open());
  EXPECT_TRUE(session_for(path, quiet()).is_open());
}

TEST_F(OpenSessions, AClosedSessionIsRefused) {
  TraceSession closed("never_opened.txt", quiet());
  EXPECT_THROW(register_open_session(closed, quiet()), Error);
}

}  // namespace
}  // namespace heapql::test
