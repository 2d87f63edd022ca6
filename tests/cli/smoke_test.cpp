// The binary runs and says how to use it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/flat_json.h"
#include "tests/support/test_support.h"

namespace heapql::test {

TEST(Cli, HelpExitsZeroAndListsCommands) {
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("heapql query"), std::string::npos);
  EXPECT_NE(r.out.find("heapql record"), std::string::npos);
}

TEST(Cli, UnknownCommandIsAQueryError) {
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " frobnicate");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos);
}

// A --require or --cull pattern that matches no frame says so, with the
// frames it nearly names; one that matches says nothing. A pattern copied
// from a table (short names: `GrowSteadyState` for `GrowSteadyState()`)
// matches its frame.
TEST(Cli, APatternMatchingNoFrameSaysSoAndSuggestsFrames) {
  const std::string trace = shell_quote(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.zst");
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " query " + trace +
                                      " --require GrowSteadyStat --cull 'nothing!here' --no-progress");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("heapql: warning: --require 'GrowSteadyStat' matches no frame of the trace; frames like it: "
                       "memory_test_app!GrowSteadyState()"),
            std::string::npos)
      << r.err;
  const CommandResult copied = run_command(shell_quote(heapql_binary()) + " query " + trace +
                                           " --require GrowSteadyState --totals --format json --no-progress");
  EXPECT_EQ(copied.exit_code, 0) << copied.err;
  EXPECT_EQ(copied.err, "");
  EXPECT_NE(copied.out.find("\"so\":10485760,\"soc\":10,"), std::string::npos) << copied.out;
  EXPECT_NE(r.err.find("heapql: warning: --cull 'nothing!here' matches no frame of the trace\n"), std::string::npos)
      << r.err;
  const CommandResult good = run_command(shell_quote(heapql_binary()) + " query " + trace +
                                         " --require 'GrowSteadyState*' --cull 'memory_test_app!main' --no-progress");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(good.err, "");
}

// A raw file named alone is read with its interpreted twin, which info names
// (text and JSON); the raw file is the trace, not also an extra file.
TEST(Cli, ALoneRawFileNamesTheInterpretedFileItRead) {
  TempDir dir;
  for (const char* name : {"memory_test_app.zst", "memory_test_app.raw.zst"}) {
    std::filesystem::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/" + name, dir.file(name));
  }
  const std::string raw = shell_quote(dir.file("memory_test_app.raw.zst"));
  const CommandResult text = run_command(shell_quote(heapql_binary()) + " info " + raw + " --no-progress");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("also read          " + dir.file("memory_test_app.zst") + "\n"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("also read          " + dir.file("memory_test_app.raw.zst")), std::string::npos)
      << text.out;
  const CommandResult json = run_command(shell_quote(heapql_binary()) + " info " + raw + " --format json");
  const FlatJson files = flatten_json(json.out);
  EXPECT_EQ(json_get(files, "files.length"), "2") << json.out;
  EXPECT_EQ(json_get(files, "files.0"), dir.file("memory_test_app.raw.zst"));
  EXPECT_EQ(json_get(files, "files.1"), dir.file("memory_test_app.zst"));
}

}  // namespace heapql::test
