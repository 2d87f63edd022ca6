// --format folded and --format pprof (docs/reports.md): every measure's
// values add up to the result's totals, [other] included; pprof is checked by
// decoding it with protoc against engine/report/profile.proto.
#include <gtest/gtest.h>

#include <array>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/flat_json.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

const std::string kTrace = HEAPQL_SOURCE_DIR "/tests/data/worked_example.txt";
constexpr std::array<const char*, 4> kMeasures = {"so", "soc", "st", "stc"};

CommandResult query(const std::string& options) {
  const CommandResult r =
      run_command(shell_quote(heapql_binary()) + " query " + shell_quote(kTrace) + " --no-progress " + options);
  expect_no_crash(r);
  return r;
}

std::uint64_t total(const std::string& options, const std::string& measure) {
  const CommandResult r = query(options + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return std::stoull(json_get(flatten_json(r.out), "totals." + measure));
}

TEST(FoldedFormat, EachMeasureAddsUpToTheTotals) {
  for (const char* options : {"--by stack", "--by stack --top 2", "--by image,stack --top 3", "--totals", "--by frame"}) {
    for (const char* m : kMeasures) {
      const std::string with_sort = std::string(options) + " --sort " + m;
      SCOPED_TRACE(with_sort);
      const CommandResult r = query(with_sort + " --format folded");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      std::uint64_t sum = 0;
      std::istringstream lines(r.out);
      for (std::string line; std::getline(lines, line);) {
        const std::size_t space = line.rfind(' ');
        ASSERT_NE(space, std::string::npos) << line;
        ASSERT_GT(space, 0u) << "a line with no frames: " << line;
        const std::uint64_t value = std::stoull(line.substr(space + 1));
        EXPECT_GT(value, 0u) << line;
        sum += value;
      }
      EXPECT_EQ(sum, total(options, m));
    }
  }
}

TEST(FoldedFormat, FramesGoOutermostFirstAndOtherIsALine) {
  const CommandResult r = query("--by stack --sort st --top 1 --format folded");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string first, second, extra;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_FALSE(std::getline(lines, extra)) << "one row and [other]";
  // The biggest st is libstdc++'s 72,704-byte emergency pool, reached from ld.so's init.
  EXPECT_TRUE(first.starts_with("ld-linux-x86-64.so.2!")) << first;
  EXPECT_TRUE(first.ends_with(";libstdc++.so.6!0x7f3c2a0a57b9 72704")) << first;
  EXPECT_TRUE(second.starts_with("[other] ")) << second;
}

// Decodes `--format pprof` output with protoc; empty when protoc is absent.
std::string decoded_profile(const std::string& options, const TempDir& dir) {
  const std::string file = dir.file("p.pb.gz");
  const CommandResult r = query(options + " --format pprof -o " + shell_quote(file));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // In a subshell: run_command gives the whole command /dev/null as stdin.
  const CommandResult decoded = run_command("(gzip -dc < " + shell_quote(file) +
                                            " | protoc --decode perftools.profiles.Profile -I " +
                                            shell_quote(HEAPQL_SOURCE_DIR "/engine/report") + " profile.proto)");
  EXPECT_EQ(decoded.exit_code, 0) << decoded.err;
  return decoded.out;
}

struct DecodedProfile {
  std::vector<std::string> strings;
  std::vector<std::vector<std::int64_t>> samples;  // values per sample
  int locations = 0, functions = 0, mappings = 0;
};

DecodedProfile parse_text_format(const std::string& text) {
  DecodedProfile p;
  std::istringstream lines(text);
  bool in_sample = false;
  for (std::string line; std::getline(lines, line);) {
    if (line == "sample {") {
      in_sample = true;
      p.samples.emplace_back();
    } else if (line == "}") {
      in_sample = false;
    } else if (in_sample && line.starts_with("  value: ")) {
      p.samples.back().push_back(std::stoll(line.substr(9)));
    } else if (line.starts_with("string_table: \"")) {
      p.strings.push_back(line.substr(15, line.size() - 16));
    } else if (line == "location {") {
      ++p.locations;
    } else if (line == "function {") {
      ++p.functions;
    } else if (line == "mapping {") {
      ++p.mappings;
    }
  }
  return p;
}

TEST(PprofFormat, GoHeapSampleTypesAddUpToTheTotals) {
  HEAPQL_SKIP_ON_WINDOWS("gzip and protoc (Linux programs) decode the profile; windows.same_json_as_linux requires the Linux bytes");
  if (run_command("command -v protoc").exit_code != 0) GTEST_SKIP() << "protoc is absent (protobuf-compiler)";
  for (const char* options : {"--by stack", "--by stack --top 2", "--by image,stack", "--totals"}) {
    SCOPED_TRACE(options);
    TempDir dir;
    const DecodedProfile p = parse_text_format(decoded_profile(options, dir));
    ASSERT_GE(p.strings.size(), 5u);
    EXPECT_EQ(p.strings[0], "");
    EXPECT_EQ(p.strings[1], "alloc_objects");
    EXPECT_EQ(p.strings[2], "count");
    EXPECT_EQ(p.strings[3], "alloc_space");
    EXPECT_EQ(p.strings[4], "bytes");
    // alloc_objects, alloc_space, inuse_objects, inuse_space = stc, st, soc, so.
    const std::array<std::string, 4> order = {"stc", "st", "soc", "so"};
    std::array<std::int64_t, 4> sums{};
    for (const auto& values : p.samples) {
      ASSERT_EQ(values.size(), 4u);
      for (std::size_t i = 0; i < 4; ++i) sums[i] += values[i];
    }
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(static_cast<std::uint64_t>(sums[i]), total(options, order[i])) << order[i];
    }
  }
}

TEST(PprofFormat, FramesBecomeLocationsFunctionsAndMappings) {
  HEAPQL_SKIP_ON_WINDOWS("gzip and protoc (Linux programs) decode the profile; windows.same_json_as_linux requires the Linux bytes");
  if (run_command("command -v protoc").exit_code != 0) GTEST_SKIP() << "protoc is absent (protobuf-compiler)";
  TempDir dir;
  const DecodedProfile p = parse_text_format(decoded_profile("--by stack --no-default-cull", dir));
  // The worked example's modules: demo, libc, ld.so and libstdc++.
  EXPECT_GE(p.locations, 10);
  EXPECT_EQ(p.mappings, 4);
  EXPECT_LE(p.functions, p.locations);
  bool has_main = false;
  for (const std::string& s : p.strings) has_main = has_main || s == "main";
  EXPECT_TRUE(has_main) << "function names are the symbol, without the module";
}

}  // namespace
}  // namespace heapql::test
