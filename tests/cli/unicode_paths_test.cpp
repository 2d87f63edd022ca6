// Non-ASCII paths, as UTF-8 on the command line, name the same files on Linux
// and on Windows (where heapql.exe takes its words through wmain and opens
// files through the wide API: cli/main.cpp, engine/platform/open_file.h): a
// trace read, a report written with -o, a store ingested, mapped and answered
// from, all under names with accents and CJK characters.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "engine/platform/utf8_wide.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

// The file helpers of test_support take narrow paths, which Windows reads in
// its ANSI code page: these take UTF-8.
void write_utf8_named(const std::string& utf8_path, const std::string& bytes) {
  std::ofstream out(path_from_utf8(utf8_path), std::ios::binary);
  out << bytes;
  ASSERT_TRUE(out) << "cannot write " << utf8_path;
}

std::string read_utf8_named(const std::string& utf8_path) {
  std::ifstream in(path_from_utf8(utf8_path), std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool exists_utf8_named(const std::string& utf8_path) {
  std::error_code ec;
  return std::filesystem::exists(path_from_utf8(utf8_path), ec);
}

class UnicodePaths : public ::testing::Test {
 protected:
  std::string in_dir(const std::string& utf8_name) const { return utf8_from_path(dir_.path()) + "/" + utf8_name; }
  TempDir dir_;
};

TEST_F(UnicodePaths, ATraceAndAReportWithNonAsciiNamesAreReadAndWritten) {
  const std::string trace = in_dir("trace-\xc3\xa9t\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac.txt");  // trace-été-日本.txt
  const std::string report = in_dir("r\xc3\xa9sultat-\xe2\x82\xac.json");                      // résultat-€.json
  write_utf8_named(trace, read_file(worked_example()));
  const CommandResult to_stdout = heapql_on("query", trace, "--format json --no-store");
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
  const CommandResult to_file = heapql_on("query", trace, "--format json --no-store -o " + shell_quote(report));
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  ASSERT_TRUE(exists_utf8_named(report));
  EXPECT_EQ(read_utf8_named(report), to_stdout.out);
  // The path is reported as given, in UTF-8.
  expect_contains(to_stdout.out, "trace-\xc3\xa9t\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac.txt");
}

TEST_F(UnicodePaths, AStoreWithANonAsciiNameIsWrittenMappedAndAnswersAsTheTrace) {
  const std::string trace = in_dir("\xc3\xbc\x62\x65r.txt");             // über.txt
  const std::string store = in_dir("\xd0\xb4\xd0\xb0\xd0\xbd\xd0\xbd\xd1\x8b\xd0\xb5.hqdb");  // данные.hqdb
  write_utf8_named(trace, read_file(worked_example()));
  const CommandResult ingested = heapql_on("ingest", trace, "--no-progress -o " + shell_quote(store));
  ASSERT_EQ(ingested.exit_code, 0) << ingested.err;
  ASSERT_TRUE(exists_utf8_named(store));
  const CommandResult from_trace = heapql_on("query", trace, "--format csv --by stack --no-store");
  const CommandResult from_store = heapql_on("query", store, "--format csv --by stack");
  ASSERT_EQ(from_trace.exit_code, 0) << from_trace.err;
  ASSERT_EQ(from_store.exit_code, 0) << from_store.err;
  EXPECT_EQ(from_store.out, from_trace.out);
}

}  // namespace
}  // namespace heapql::test
