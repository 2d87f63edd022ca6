// Recipes that list every stack (regression diffs them all) on a trace of
// deep stacks with long frame names, as a C++ program's are: the rows share
// one text per frame, in the engine and in Lua. With a copy of each frame's
// text per row, this trace's regression took 248 MB and passed a 64 MiB
// --memory limit; a real C++ trace's passed the default 4 GiB.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

constexpr int kDepth = 30;       // frames of every stack
constexpr int kLeaves = 3'000;   // stacks: a shared chain of kDepth - 1 frames, then a leaf of its own
constexpr int kNameBytes = 300;  // the shared frames' names, as long as a template's

// A heaptrack text trace: one allocation in each of kLeaves stacks.
std::string deep_stacks_trace() {
  std::string t = "v 10250 2\nX ./app\nI 1000 7d554d\ns /usr/lib/libapp.so\n";
  int strings = 1, ips = 0, traces = 0;
  for (int d = 0; d < kDepth - 1; ++d) {
    const std::string name = fmt::format("app::Frame{:02}<", d) + std::string(kNameBytes - 16, 'T') + ">::run()";
    t += fmt::format("s {}\ni {:x} 1 {:x}\nt {:x} {:x}\n", name, 0x1000 + d, ++strings, ++ips, traces);
    ++traces;
  }
  const int chain_top = traces;
  for (int leaf = 0; leaf < kLeaves; ++leaf) {
    t += fmt::format("s leaf{}\ni {:x} 1 {:x}\nt {:x} {:x}\n", leaf, 0x100000 + leaf, ++strings, ++ips, chain_top);
    ++traces;
    t += fmt::format("a {:x} {:x}\n+ {:x}\n", 16 + leaf, traces, leaf);
  }
  return t + "c a\n";
}

TEST(DeepStacks, RegressionOfEveryStackStaysWithinASmallMemoryLimit) {
  TempDir dir;
  const std::string trace = dir.file("deep.txt");
  write_file(trace, deep_stacks_trace());
  const CommandResult r =
      run_command(shell_quote(heapql_binary()) + " run regression " + shell_quote(trace) + " --param baseline=" +
                  shell_quote(trace) + " --memory 64MiB --timeout 60s");
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The trace against itself: every stack in both, none grew.
  EXPECT_NE(r.out.find("[total]"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace heapql::test
