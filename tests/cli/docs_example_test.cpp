// Examples in the docs that the program must still produce: every number in
// docs/json.md's `heapql info` example is what `heapql info` prints for the
// bundled example trace (examples/traces/memory_test_app.zst).
#include <gtest/gtest.h>

#include <regex>
#include <string>

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
