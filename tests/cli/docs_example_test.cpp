// Examples in the docs that the program must still produce: every number in
// docs/json.md's `heapql info` example is what `heapql info` prints for the
// bundled example trace (examples/traces/memory_test_app.zst).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/flat_json.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

// The first ```json block after `heading` in `markdown`.
std::string json_block_after(const std::string& markdown, const std::string& heading) {
  const std::size_t at = markdown.find(heading);
  if (at == std::string::npos) return "";
  const std::size_t start = markdown.find("```json\n", at);
  const std::size_t end = markdown.find("```", start + 8);
  return start == std::string::npos || end == std::string::npos ? "" : markdown.substr(start + 8, end - start - 8);
}

bool is_number(const std::string& text) { return !text.empty() && text.find_first_not_of("0123456789.-") == std::string::npos; }

TEST(DocsExamples, JsonInfoExampleNumbersAreTheBundledExamples) {
  std::string block = json_block_after(read_file(std::string(HEAPQL_SOURCE_DIR) + "/docs/json.md"), "## `heapql info`");
  ASSERT_FALSE(block.empty());
  // The example abridges with {...} and ...: make it JSON.
  block = std::regex_replace(block, std::regex(R"(\{\.\.\.\})"), "{}");
  block = std::regex_replace(block, std::regex(R"(\.\.\.)"), "null");
  const FlatJson documented = flatten_json(block);
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " info " +
                                      shell_quote(std::string(HEAPQL_SOURCE_DIR) +
                                                  "/examples/traces/memory_test_app.zst") +
                                      " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FlatJson actual = flatten_json(r.out);
  int compared = 0;
  for (const auto& [key, value] : documented) {
    if (!is_number(value) || key.starts_with("store.")) continue;  // store: only with --load
    EXPECT_EQ(json_get(actual, key), value) << "docs/json.md says " << key << " = " << value;
    ++compared;
  }
  EXPECT_GT(compared, 20);
}

}  // namespace
}  // namespace heapql::test

namespace heapql::test {
namespace {

// docs/getting-started.md: each ```sh block of one `build/heapql ...` command
// followed by a ```text block is run from the source folder, and must print
// that text.
TEST(DocsExamples, GettingStartedOutputsAreWhatHeapqlPrints) {
  const std::string page = read_file(std::string(HEAPQL_SOURCE_DIR) + "/docs/getting-started.md");
  const std::regex pair(R"(```sh\nbuild/heapql ([^\n]*)\n```\n\n```text\n([\s\S]*?)```)");
  int checked = 0;
  for (std::sregex_iterator it(page.begin(), page.end(), pair), end; it != end; ++it) {
    const std::string arguments = (*it)[1];
    const CommandResult r = run_command("cd " + shell_quote(HEAPQL_SOURCE_DIR) + " && " +
                                        shell_quote(heapql_binary()) + " " + arguments);
    EXPECT_EQ(r.exit_code, 0) << arguments << "\n" << r.err;
    EXPECT_EQ(r.out, (*it)[2].str()) << "docs/getting-started.md shows other output for: heapql " << arguments;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace heapql::test

namespace heapql::test {
namespace {

std::string source_file(const std::string& relative) { return read_file(std::string(HEAPQL_SOURCE_DIR) + "/" + relative); }

std::vector<std::string> pages() {
  std::vector<std::string> found = {"README.md"};
  for (const auto& entry : std::filesystem::directory_iterator(std::string(HEAPQL_SOURCE_DIR) + "/docs")) {
    if (entry.path().extension() == ".md") found.push_back("docs/" + entry.path().filename().string());
  }
  return found;
}

// The docs stand on their own: every link to a file goes to one in the
// repository, and none sends the reader to the sample-data folder beside it
// (shared/...), which a clone does not have.
TEST(DocsExamples, LinksGoToFilesInTheRepository) {
  const std::regex link(R"(\]\(([^)#\s]+)(#[^)]*)?\))");
  int checked = 0;
  for (const std::string& page : pages()) {
    const std::string text = source_file(page);
    EXPECT_EQ(text.find("shared/"), std::string::npos) << page << " names a shared/ path";
    const std::filesystem::path folder = std::filesystem::path(HEAPQL_SOURCE_DIR) / page;
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      const std::string target = (*it)[1];
      if (target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:")) continue;
      EXPECT_TRUE(std::filesystem::exists(folder.parent_path() / target)) << page << " links to " << target;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

// docs/reports.md quotes the HTML page's Content-Security-Policy: it is the
// one a page carries.
TEST(DocsExamples, ReportsQuotesThePagesContentSecurityPolicy) {
  const std::string page = source_file("docs/reports.md");
  const std::size_t heading = page.find("Content-Security-Policy blocks any load");
  ASSERT_NE(heading, std::string::npos);
  const std::size_t start = page.find("```text\n", heading);
  ASSERT_NE(start, std::string::npos);
  const std::size_t end = page.find("\n```", start + 8);
  const std::string policy = page.substr(start + 8, end - start - 8);
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " query " +
                                      shell_quote(std::string(HEAPQL_SOURCE_DIR) +
                                                  "/examples/traces/memory_test_app.zst") +
                                      " --format html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("http-equiv=\"Content-Security-Policy\" content=\"" + policy + "\""), std::string::npos)
      << "docs/reports.md quotes: " << policy;
}

// docs/heaptrack.md's record table says what heapql does with a trace's
// `S` records: listed, and applied when asked with the option `heapql help`
// lists.
TEST(DocsExamples, HeaptrackSaysHowEmbeddedSuppressionsApply) {
  const std::string page = source_file("docs/heaptrack.md");
  const std::size_t row = page.find("| `S` |");
  ASSERT_NE(row, std::string::npos);
  const std::string line = page.substr(row, page.find('\n', row) - row);
  EXPECT_NE(line.find("applied with `--embedded-suppressions`"), std::string::npos) << line;
  const CommandResult help = run_command(shell_quote(heapql_binary()) + " help");
  EXPECT_NE(help.out.find("--embedded-suppressions"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace heapql::test

namespace heapql::test {
namespace {

// docs/scale.md's map-reduce example: the map over the bundled example
// (twice) and the two test traces, then examples/fleet's reduce, prints the
// ```text block the page shows.
TEST(DocsExamples, ScaleReduceOutputIsWhatTheScriptPrints) {
  HEAPQL_SKIP_ON_WINDOWS("the docs' reduce script runs in python3");
  const std::string page = read_file(std::string(HEAPQL_SOURCE_DIR) + "/docs/scale.md");
  const std::size_t at = page.find("examples/fleet/reduce_leaks_by_stack.py --top 4");
  ASSERT_NE(at, std::string::npos);
  const std::size_t start = page.find("```text\n", at);
  ASSERT_NE(start, std::string::npos);
  const std::string shown = page.substr(start + 8, page.find("```", start + 8) - start - 8);
  TempDir fleet;
  const std::string source = std::string(HEAPQL_SOURCE_DIR) + "/";
  for (const char* trace : {"examples/traces/memory_test_app.zst", "tests/data/worked_example.txt",
                            "tests/data/two_phase.txt"}) {
    const std::string name = std::filesystem::path(trace).filename().string();
    const CommandResult map = run_command(shell_quote(heapql_binary()) + " query " + shell_quote(source + trace) +
                                          " --by stack --top 100000 --format json -o " +
                                          shell_quote(fleet.file(name + ".json")));
    ASSERT_EQ(map.exit_code, 0) << map.err;
  }
  std::filesystem::copy_file(fleet.file("memory_test_app.zst.json"), fleet.file("memory_test_app-2.json"));
  const CommandResult reduce = run_command("cd " + shell_quote(fleet.path().string()) + " && python3 " +
                                           shell_quote(source + "examples/fleet/reduce_leaks_by_stack.py") +
                                           " --top 4 *.json");
  ASSERT_EQ(reduce.exit_code, 0) << reduce.err;
  EXPECT_EQ(reduce.out, shown);
}

// docs/scale.md quotes the fleet's SQL files whole, each in a block of its
// own; exports.fleet_duckdb runs the files themselves on DuckDB.
TEST(DocsExamples, ScaleFleetSqlIsTheExamplesFiles) {
  const std::string page = read_file(std::string(HEAPQL_SOURCE_DIR) + "/docs/scale.md");
  for (const char* file : {"csv_tables.sql", "leaks_by_stack.sql", "csv_to_parquet.sql", "parquet_tables.sql"}) {
    const std::string sql = read_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/fleet/" + file);
    EXPECT_NE(page.find("```sql\n" + sql + "```\n"), std::string::npos) << file << " is not quoted as it is";
  }
}

}  // namespace
}  // namespace heapql::test

namespace heapql::test {
namespace {

// docs/json.md's `store_file` example: its format version, the trace's size
// and the frees section are those of the bundled example's store.
TEST(DocsExamples, JsonStoreFileExampleIsTheBundledExamplesStore) {
  const std::string page = read_file(std::string(HEAPQL_SOURCE_DIR) + "/docs/json.md");
  const std::size_t at = page.find("`store_file` is present when");
  ASSERT_NE(at, std::string::npos);
  std::string example = page.substr(at, page.find("\n\n", at) - at);
  std::replace(example.begin(), example.end(), '\n', ' ');
  TempDir dir;
  const std::string trace = dir.file("memory_test_app.zst");
  std::filesystem::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.zst", trace);
  std::filesystem::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.raw.zst",
                             dir.file("memory_test_app.raw.zst"));
  ASSERT_EQ(run_command(shell_quote(heapql_binary()) + " ingest --no-progress " + shell_quote(trace)).exit_code, 0);
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " info " + shell_quote(trace) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The page spaces its JSON; the program does not.
  const auto compact = [](std::string text) { return std::regex_replace(text, std::regex(R"(([:,]) )"), "$1"); };
  for (const char* pattern : {R"("format_version": \d+)", R"("read_with": "[^"]*")", R"("size": \d+)",
                              R"("bytes": \d+, "items": \d+)"}) {
    std::smatch documented;
    ASSERT_TRUE(std::regex_search(example, documented, std::regex(pattern))) << pattern;
    EXPECT_NE(r.out.find(compact(documented.str())), std::string::npos)
        << "docs/json.md says " << documented.str() << "; heapql info: " << r.out.substr(r.out.find("\"store_file\""), 600);
  }
}

}  // namespace
}  // namespace heapql::test
