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

}  // namespace heapql::test
