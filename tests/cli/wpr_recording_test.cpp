// `heapql record` on Windows prints the WPR commands that record a heap trace
// with the shipped profile (cli/wpr_recording.h) and exits 2; `heapql serve`
// there says it is not available, exit 2. The text is checked on both
// systems, the commands' exits where heapql.exe runs.
#include <gtest/gtest.h>

#include <string>

#include "cli/wpr_recording.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

const std::string kProfile = "C:\\Program Files\\heapql\\queries\\windows\\heapql-heap.wprp";

TEST(WprRecording, NamesTheProgramTheShippedProfileAndTheTrace) {
  const std::string text =
      cli::wpr_recording_instructions({"C:\\apps\\MemoryTestApp.exe", "--size", "10 MB"}, "scenario", kProfile);
  expect_contains(text, "  wpr -heaptracingconfig MemoryTestApp.exe enable\n");
  // The profile path has a space: one quoted word, profile name after the '!'.
  expect_contains(text, "  wpr -start \"" + kProfile + "!Heap\" -filemode\n");
  expect_contains(text, "  C:\\apps\\MemoryTestApp.exe --size \"10 MB\"\n");
  expect_contains(text, "  wpr -stop scenario.etl\n");
  expect_contains(text, "  wpr -heaptracingconfig MemoryTestApp.exe disable\n");
  expect_contains(text, "heapql query scenario.etl\n");
  expect_contains(text, "need a real Windows machine");
}

TEST(WprRecording, WithoutAProgramOrANameItShowsPlaceholders) {
  const std::string text = cli::wpr_recording_instructions({}, "", "heapql-heap.wprp");
  expect_contains(text, "wpr -heaptracingconfig PROGRAM.exe enable\n");
  expect_contains(text, "wpr -start heapql-heap.wprp!Heap -filemode\n");
  expect_contains(text, "  PROGRAM.exe ARGS...\n");
  expect_contains(text, "wpr -stop PROGRAM.etl\n");
}

TEST(WprRecording, AProgramNamedWithoutExeGetsIt) {
  const std::string text = cli::wpr_recording_instructions({"./bin/app"}, "", "p.wprp");
  expect_contains(text, "wpr -heaptracingconfig app.exe enable\n");
  expect_contains(text, "wpr -stop app.etl\n");
}

// The profile the text names is shipped, and has the profile `Heap` in the
// file logging mode that -filemode starts.
TEST(WprRecording, TheShippedProfileDefinesHeapForFileMode) {
  const std::string profile = read_file(std::string(HEAPQL_SOURCE_DIR) + "/queries/windows/heapql-heap.wprp");
  ASSERT_FALSE(profile.empty());
  expect_contains(profile, "Id=\"Heap.Verbose.File\" Name=\"Heap\"");
  expect_contains(profile, "LoggingMode=\"File\"");
  expect_contains(profile, "<HeapEventCollectorId Value=\"HEC_HeapQL\"/>");
  expect_contains(profile, "<Stack Value=\"HeapAllocation\"/>");
  expect_contains(profile, "<Keyword Value=\"VirtualAllocation\"/>");
  expect_contains(profile, "<Stack Value=\"VirtualAllocation\"/>");
  expect_contains(profile, "<CustomEvent Value=\"ImageId\"/>");
}

TEST(WprRecording, OnWindowsRecordPrintsTheCommandsAndExits2) {
#ifndef _WIN32
  GTEST_SKIP() << "on Linux heapql record runs heaptrack (tests/cli/real_program_test.cpp)";
#else
  const CommandResult r = run_heapql("record -o scenario -- MemoryTestApp.exe");
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.out, "wpr -heaptracingconfig MemoryTestApp.exe enable\n");
  expect_contains(r.out, "heapql-heap.wprp!Heap");
  expect_contains(r.out, "wpr -stop scenario.etl\n");
  expect_contains(r.err, "heapql record: not available on Windows");
#endif
}

TEST(WprRecording, OnWindowsServeIsNotAvailableAndExits2) {
#ifndef _WIN32
  GTEST_SKIP() << "on Linux heapql serve serves (tests/serve)";
#else
  const CommandResult r = heapql_on("serve", worked_example());
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, "heapql serve: not available on Windows");
#endif
}

TEST(WprRecording, OnWindowsTopIsNotAvailableAndExits2) {
#ifndef _WIN32
  GTEST_SKIP() << "on Linux heapql top watches recordings (RealProgram.Top*)";
#else
  const CommandResult r = heapql_on("top", worked_example());
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, "heapql top: not available on Windows");
#endif
}

}  // namespace
}  // namespace heapql::test
