// The cull lists heapql ships (queries/cull/): named from the command line
// as from a recipe, wherever heapql runs, and named, not expanded, where a
// report says what the query culled.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

// `heapql query` run in `folder`, which holds no cull list.
CommandResult query_in(const std::string& folder, const std::string& options) {
  return run_heapql("query " + shell_quote(example_trace()) + " --no-progress " + options,
                    "cd " + shell_quote(folder) + " &&");
}

// `--cull-list stl` reads queries/cull/stl.txt from any folder, as
// `--suppressions heaptrack-builtin` does (before, only a path did, which
// an installed heapql's user has no reason to know).
TEST(CullLists, AShippedListIsNamedFromAnyFolder) {
  TempDir elsewhere;
  const CommandResult by_name = query_in(elsewhere.path().string(), "--cull-list stl --format json");
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  const CommandResult by_path = query_in(
      elsewhere.path().string(), "--cull-list " + shell_quote(std::string(HEAPQL_SOURCE_DIR) + "/queries/cull/stl.txt") +
                                     " --format json");
  ASSERT_EQ(by_path.exit_code, 0) << by_path.err;
  EXPECT_EQ(by_name.out, by_path.out);
  // A name that is neither a file here nor a shipped list is still named as missing.
  const CommandResult missing = query_in(elsewhere.path().string(), "--cull-list no-such-list");
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("no-such-list"), std::string::npos) << missing.err;
}

// A file of that name in the current folder comes first.
TEST(CullLists, AFileHereComesBeforeTheShippedList) {
  TempDir here;
  write_file(here.file("stl"), "memory_test_app!main\n");
  const CommandResult mine = query_in(here.path().string(), "--cull-list stl --format csv");
  const CommandResult shipped = query_in(here.path().string(),
                                         "--cull-list " +
                                             shell_quote(std::string(HEAPQL_SOURCE_DIR) + "/queries/cull/stl.txt") +
                                             " --format csv");
  ASSERT_EQ(mine.exit_code, 0) << mine.err;
  ASSERT_EQ(shipped.exit_code, 0) << shipped.err;
  EXPECT_NE(mine.out, shipped.out);
}

CommandResult heapql_in_source(const std::string& arguments) {
  return run_heapql(arguments, "cd " + shell_quote(HEAPQL_SOURCE_DIR) + " &&");
}

// The HTML page names a recipe's cull set by the lists it was made of, not
// by its patterns (the leaks recipe's ran to 90 `--cull` values and a
// `--no-default-cull`).
TEST(CullLists, TheHtmlPageNamesARecipesListsNotTheirPatterns) {
  const CommandResult leaks = heapql_in_source("run leaks examples/traces/memory_test_app.zst --format html");
  ASSERT_EQ(leaks.exit_code, 0) << leaks.err;
  EXPECT_NE(leaks.out.find(R"({"option":"cull","values":["defaults + shipped libc-linux"]})"), std::string::npos);
  EXPECT_EQ(leaks.out.find(R"("option":"--cull")"), std::string::npos);
  EXPECT_EQ(leaks.out.find(R"("option":"--no-default-cull")"), std::string::npos);
  const CommandResult extra =
      heapql_in_source("run leaks examples/traces/memory_test_app.zst --format html --param 'cull=mine!a,mine!b'");
  ASSERT_EQ(extra.exit_code, 0) << extra.err;
  EXPECT_NE(extra.out.find(R"({"option":"cull","values":["defaults + shipped libc-linux + 2 patterns"]})"),
            std::string::npos);
}

// docs/recipes-canned.md: xperf-default's output in every format is `heapql
// query --by stack --sort so`'s, the HTML page too (its cull set is the
// defaults alone, which the command line says by saying nothing).
TEST(CullLists, XperfDefaultIsTheQueryInEveryFormat) {
  for (const char* format : {"table", "json", "csv", "html"}) {
    SCOPED_TRACE(format);
    const CommandResult recipe = heapql_in_source(
        std::string("run xperf-default examples/traces/memory_test_app.zst --format ") + format);
    const CommandResult query = heapql_in_source(
        std::string("query examples/traces/memory_test_app.zst --by stack --sort so --format ") + format);
    ASSERT_EQ(recipe.exit_code, 0) << recipe.err;
    ASSERT_EQ(query.exit_code, 0) << query.err;
    EXPECT_TRUE(recipe.out == query.out) << "they differ";
  }
}

}  // namespace
}  // namespace heapql::test
