// Recipes that list every stack (regression diffs them all) on a trace of
// deep stacks with long frame names, as a C++ program's are: the rows share
// one text per frame, in the engine and in Lua. With a copy of each frame's
// text per row, this trace's regression took 248 MB and passed a 64 MiB
// --memory limit; a real C++ trace's passed the default 4 GiB.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

constexpr int kDepth = 30;       // frames of every stack
constexpr int kNameBytes = 300;  // the shared frames' names, as long as a template's

// A heaptrack text trace: one allocation in each of `leaves` stacks, each a
// shared chain of kDepth - 1 frames, then a leaf of its own.
std::string deep_stacks_trace(int leaves) {
  std::string t = "v 10250 2\nX ./app\nI 1000 7d554d\ns /usr/lib/libapp.so\n";
  int strings = 1, ips = 0, traces = 0;
  for (int d = 0; d < kDepth - 1; ++d) {
    const std::string name = fmt::format("app::Frame{:02}<", d) + std::string(kNameBytes - 16, 'T') + ">::run()";
    t += fmt::format("s {}\ni {:x} 1 {:x}\nt {:x} {:x}\n", name, 0x1000 + d, ++strings, ++ips, traces);
    ++traces;
  }
  const int chain_top = traces;
  for (int leaf = 0; leaf < leaves; ++leaf) {
    t += fmt::format("s leaf{}\ni {:x} 1 {:x}\nt {:x} {:x}\n", leaf, 0x100000 + leaf, ++strings, ++ips, chain_top);
    ++traces;
    t += fmt::format("a {:x} {:x}\n+ {:x}\n", 16 + leaf, traces, leaf);
  }
  return t + fmt::format("c a\n\n# strings: {}\n# ips: {}\n", strings, ips);
}

// The regression of a trace against itself under `memory`: it must finish,
// every stack in both sides and none grown.
void expect_regression_within(int leaves, const std::string& memory) {
  TempDir dir;
  const std::string trace = dir.file("deep.txt");
  write_file(trace, deep_stacks_trace(leaves));
  const CommandResult r =
      run_command(shell_quote(heapql_binary()) + " run regression " + shell_quote(trace) +
                  " --param baseline=" + shell_quote(trace) + " --memory " + memory + " --timeout 120s");
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[total]"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(DeepStacks, RegressionOfEveryStackStaysWithinASmallMemoryLimit) { expect_regression_within(3'000, "64MiB"); }

// Many stacks: the diff shares the two results' rows, not copies of them,
// and the recipe gates them with diff:each(), one row's table at a time.
// With copies and every row of rows() at once, 100,000 stacks passed a
// 256 MiB limit (546 MB of RSS); now they need less than 192 MiB.
TEST(DeepStacks, RegressionOfManyStacksStaysWithinAMemoryLimit) { expect_regression_within(100'000, "256MiB"); }

}  // namespace
}  // namespace heapql::test
