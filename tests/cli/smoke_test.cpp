// The binary runs and says how to use it.
#include <gtest/gtest.h>

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
// frames it nearly names; one that matches says nothing.
TEST(Cli, APatternMatchingNoFrameSaysSoAndSuggestsFrames) {
  const std::string trace = shell_quote(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.zst");
  const CommandResult r = run_command(shell_quote(heapql_binary()) + " query " + trace +
                                      " --require GrowSteadyState --cull 'nothing!here' --no-progress");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("heapql: warning: --require 'GrowSteadyState' matches no frame of the trace; frames like it: "
                       "memory_test_app!GrowSteadyState()"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("heapql: warning: --cull 'nothing!here' matches no frame of the trace\n"), std::string::npos)
      << r.err;
  const CommandResult good = run_command(shell_quote(heapql_binary()) + " query " + trace +
                                         " --require 'GrowSteadyState*' --cull 'memory_test_app!main' --no-progress");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(good.err, "");
}

}  // namespace heapql::test
