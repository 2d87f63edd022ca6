// Block-identity files (docs/heaptrack.md): `heapql ingest` of a trace read
// with its raw twin writes NAME.hqid; later readings use it instead of the
// twin and answer byte for byte as the twin does, also once the twin is
// gone; a stale one is passed over with a warning; a damaged one is refused
// with exit 2 and a message naming it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <vector>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

// A heaptrack file and its raw twin as heaptrack_interpret would have them:
// one module, four stacks (one frame unsymbolized), eight allocation infos,
// few addresses, so that frees end blocks out of their bucket's order,
// allocations land on live addresses, and some frees find no block.
struct TracePair {
  std::string interpreted, raw;
};

TracePair random_pair(std::uint32_t seed, int events) {
  std::mt19937 rng(seed);
  TracePair p;
  p.interpreted = "v 10400 3\nX ./p\nI 1000 100\ns 8 /bin/p.x\ns 1 f\ns 1 g\n"
                  "i 401010 1 2\nt 1 0\ni 401020 1 3\nt 2 1\ni 401777 1\nt 3 2\nt 3 1\n";
  p.raw = "v 10400 3\nx 8 /bin/p.x\nX ./p\nI 1000 100\nm 8 /bin/p.x 400000 0 10000\n"
          "t 401010 0\nt 401020 1\nt 401777 2\nt 401777 1\n";
  const std::uint64_t sizes[] = {16, 32, 48};
  std::map<int, int> info_of_choice;     // choice -> allocation-info index, once written
  std::map<std::uint64_t, int> live;     // address -> allocation-info index
  std::vector<std::pair<std::uint64_t, int>> infos;  // size, trace
  std::uint64_t ms = 0;
  for (int i = 0; i < events; ++i) {
    if (rng() % 7 == 0) {
      ms += 1 + rng() % 20;
      p.interpreted += fmt::format("c {:x}\n", ms);
      p.raw += fmt::format("c {:x}\n", ms);
    }
    const std::uint64_t address = 0x10000 + 16 * (rng() % 48);
    if (rng() % 9 < 5) {
      const int choice = static_cast<int>(rng() % 8);
      const std::uint64_t size = sizes[choice % 3];
      const int trace = 1 + choice % 4;
      auto [it, added] = info_of_choice.emplace(choice, static_cast<int>(infos.size()));
      if (added) {
        infos.emplace_back(size, trace);
        p.interpreted += fmt::format("a {:x} {:x}\n", size, trace);
      }
      p.interpreted += fmt::format("+ {:x}\n", it->second);
      p.raw += fmt::format("+ {:x} {:x} {:x}\n", size, trace, address);
      live[address] = it->second;
    } else {
      p.raw += fmt::format("- {:x}\n", address);
      if (auto it = live.find(address); it != live.end()) {
        p.interpreted += fmt::format("- {:x}\n", it->second);
        live.erase(it);
      }
    }
  }
  p.interpreted += "\n# strings: 3\n# ips: 3\n";  // heaptrack_interpret's closing lines
  return p;
}

const std::vector<std::string> kShapes = {
    "--by stack --format json",
    "--by frame --sort stc --format csv",
    "--window 40ms..200ms --impacting AIFO,AOFI --by impacting,stack --format csv",
    "--window 40ms.. --by stack --format csv",
    "--at-peak --by frame --format csv",
    "--lifetime 5ms.. --by stack --format csv",
    "--temporary --by frame --format csv",
    "--window 1ms.. --series 7 --totals --format json"};

class BlockIdentity : public ::testing::Test {
 protected:
  // The example's pair, or a generated one, in the test's folder.
  std::string example_pair() {
    const std::string trace = dir_.file("memory_test_app.zst");
    fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.zst", trace);
    fs::copy_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.raw.zst",
                  dir_.file("memory_test_app.raw.zst"));
    return trace;
  }
  std::string generated_pair(std::uint32_t seed) {
    const TracePair p = random_pair(seed, 3000);
    const std::string trace = dir_.file(fmt::format("p{}", seed));
    write_file(trace, p.interpreted);
    write_file(trace + ".raw", p.raw);
    return trace;
  }
  std::vector<std::string> answers(const std::string& trace, const std::string& extra = "") {
    std::vector<std::string> out;
    for (const std::string& shape : kShapes) {
      const CommandResult r = run_heapql("query " + shell_quote(trace) + " --no-store " + shape + extra);
      EXPECT_EQ(r.exit_code, 0) << shape << ": " << r.err;
      out.push_back(r.out);
    }
    return out;
  }
  std::string info_json(const std::string& trace) {
    const CommandResult r = run_heapql("info " + shell_quote(trace) + " --no-store --format json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  // The value of "key": ... in a JSON text, up to the next comma or brace.
  static std::string field(const std::string& json, const std::string& key) {
    const std::size_t at = json.find("\"" + key + "\":");
    if (at == std::string::npos) return "(none)";
    const std::size_t from = at + key.size() + 3;
    return json.substr(from, json.find_first_of(",}", from) - from);
  }
  void expect_same_as_the_twin(const std::string& trace) {
    const std::vector<std::string> with_twin = answers(trace);
    const std::string info_twin = info_json(trace);
    ASSERT_FALSE(fs::exists(trace + ".hqid"));
    const CommandResult ingest = run_heapql("ingest " + shell_quote(trace));
    ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
    ASSERT_TRUE(fs::exists(trace + ".hqid")) << "ingest with the raw twin writes the block-identity file";
    const std::string info = info_json(trace);
    expect_contains(info, as_json_text(trace + ".hqid"));
    EXPECT_EQ(info.find(".raw"), std::string::npos) << "the twin is not read beside it:\n" << info;
    EXPECT_EQ(field(info, "block_identity"), "\"exact\"");
    for (const std::string key : {"unmatched_frees", "double_frees", "alloc_over_live", "blocks", "frees", "temporary"}) {
      EXPECT_EQ(field(info, key), field(info_twin, key)) << key;
    }
    EXPECT_EQ(answers(trace), with_twin) << "read with the block-identity file";
    // It travels without the twin.
    const std::string stem = trace.ends_with(".zst") ? trace.substr(0, trace.size() - 4) : trace;
    ASSERT_TRUE(fs::remove(stem + ".raw.zst") || fs::remove(stem + ".raw"));
    EXPECT_EQ(answers(trace), with_twin) << "read with the block-identity file, the twin gone";
    // And a store written from it answers the same.
    const CommandResult again = run_heapql("ingest " + shell_quote(trace) + " -o " + shell_quote(trace + ".again.hqdb"));
    ASSERT_EQ(again.exit_code, 0) << again.err;
    for (std::size_t i = 0; i < kShapes.size(); ++i) {
      const CommandResult r = run_heapql("query " + shell_quote(trace + ".again.hqdb") + " " + kShapes[i]);
      EXPECT_EQ(r.out, with_twin[i]) << kShapes[i] << " from a store written from the block-identity file";
    }
  }
  TempDir dir_;
};

TEST_F(BlockIdentity, AnswersAsTheRawTwinOnTheExample) { expect_same_as_the_twin(example_pair()); }

TEST_F(BlockIdentity, AnswersAsTheRawTwinOnGeneratedPairs) {
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE(seed);
    const std::string trace = generated_pair(seed);
    const std::string info = info_json(trace);
    // The pairs do hold what the file must tell.
    EXPECT_NE(field(info, "alloc_over_live"), "0");
    EXPECT_NE(field(info, "unmatched_frees"), "0");
    expect_same_as_the_twin(trace);
  }
}

TEST_F(BlockIdentity, OnlyAStoreBesideTheTraceBringsOne) {
  const std::string trace = generated_pair(5);
  const CommandResult elsewhere = run_heapql("ingest " + shell_quote(trace) + " -o " + shell_quote(dir_.file("x.hqdb")));
  ASSERT_EQ(elsewhere.exit_code, 0) << elsewhere.err;
  EXPECT_FALSE(fs::exists(trace + ".hqid")) << "-o sends the store elsewhere: nothing is written beside the trace";
  EXPECT_EQ(elsewhere.err.find(".hqid"), std::string::npos) << elsewhere.err;
  const CommandResult beside = run_heapql("ingest " + shell_quote(trace));
  ASSERT_EQ(beside.exit_code, 0) << beside.err;
  EXPECT_TRUE(fs::exists(trace + ".hqid"));
  expect_contains(beside.err, "heapql: wrote " + trace + ".hqid (");
}

// Where the trace's folder cannot be written, the store goes to the cache
// and a warning says the block-identity file is not written (docs/cli.md).
TEST_F(BlockIdentity, AFolderThatCannotBeWrittenGetsAWarningNotAFile) {
  HEAPQL_SKIP_ON_WINDOWS("chattr +i makes the read-only folder");
  const fs::path folder = dir_.path() / "read-only";
  fs::create_directories(folder);
  const std::string trace = (folder / "p").string();
  const TracePair p = random_pair(7, 300);
  write_file(trace, p.interpreted);
  write_file(trace + ".raw", p.raw);
  // chmod does not stop root; an immutable folder (chattr +i) does.
  const std::string folder_arg = shell_quote(folder.string());
  const bool immutable = run_command("chattr +i " + folder_arg + " 2>/dev/null").exit_code == 0;
  if (!immutable) fs::permissions(folder, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                                  fs::perm_options::remove);
  const bool cannot_write = run_command("touch " + shell_quote(trace + ".probe") + " 2>/dev/null").exit_code != 0;
  CommandResult ingest;
  if (cannot_write) {
    ingest = run_command("XDG_CACHE_HOME=" + shell_quote(dir_.file("cache")) + " " + shell_quote(heapql_binary()) +
                         " ingest " + shell_quote(trace));
  }
  if (immutable) run_command("chattr -i " + folder_arg);
  fs::permissions(folder, fs::perms::owner_all, fs::perm_options::add);
  if (!cannot_write) GTEST_SKIP() << "no way to make a folder that cannot be written here";
  expect_no_crash(ingest);
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  expect_contains(ingest.err, "heapql: wrote " + dir_.file("cache") + "/heapql/");
  expect_contains(ingest.err, "heapql: warning: " + trace + ".hqid");
  EXPECT_FALSE(fs::exists(trace + ".hqid"));
}

TEST_F(BlockIdentity, AStaleOneIsPassedOverWithAWarning) {
  const std::string trace = generated_pair(7);
  const std::vector<std::string> with_twin = answers(trace);
  ASSERT_EQ(run_heapql("ingest " + shell_quote(trace)).exit_code, 0);
  // The interpreted file changes (a comment more): the file no longer speaks for it.
  write_file(trace, read_file(trace) + "# edited\n");
  const CommandResult r = run_heapql("query " + shell_quote(trace) + " --no-store --by stack --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, with_twin[0]);
  expect_contains(r.err, trace + ".hqid: not used, " + trace + " has changed since it was written");
  expect_contains(r.err, "reading the raw twin");
  fs::remove(trace + ".raw");
  const CommandResult lifo = run_heapql("info " + shell_quote(trace) + " --no-store --format json");
  EXPECT_EQ(lifo.exit_code, 0);
  EXPECT_EQ(field(lifo.out, "block_identity"), "\"bucket-lifo\"");
  expect_contains(lifo.err, "blocks are paired bucket-lifo");
  // One written for another trace is passed over too.
  const std::string other = generated_pair(8);
  ASSERT_EQ(run_heapql("ingest " + shell_quote(other)).exit_code, 0);
  // Removed first: mingw's copy_file takes two files for one (no inode numbers) and refuses to overwrite.
  fs::remove(trace + ".hqid");
  fs::copy_file(other + ".hqid", trace + ".hqid");
  const CommandResult foreign = run_heapql("info " + shell_quote(trace) + " --no-store");
  EXPECT_EQ(foreign.exit_code, 0);
  expect_contains(foreign.err, "it was written for " + fs::absolute(other).lexically_normal().string());
}

class BadInputBlockIdentity : public BlockIdentity {
 protected:
  void SetUp() override {
    trace_ = generated_pair(11);
    ASSERT_EQ(run_heapql("ingest " + shell_quote(trace_)).exit_code, 0);
    bytes_ = read_file(trace_ + ".hqid");
    ASSERT_GT(bytes_.size(), 200u);
  }
  void expect_refused(const std::string& bytes, const std::string& message) {
    write_file(trace_ + ".hqid", bytes);
    const CommandResult r = run_heapql("query " + shell_quote(trace_) + " --no-store --by stack");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    expect_contains(r.err, "heapql: " + trace_ + ".hqid");
    expect_contains(r.err, message);
  }
  std::string trace_;
  std::string bytes_;
};

TEST_F(BadInputBlockIdentity, Truncated) {
  for (const std::size_t keep : {std::size_t{10}, std::size_t{64}, bytes_.size() / 2, bytes_.size() - 1}) {
    SCOPED_TRACE(keep);
    expect_refused(bytes_.substr(0, keep), keep < 64 ? "not a heapql block-identity file" : "truncated");
  }
}

TEST_F(BadInputBlockIdentity, FlippedBytesAnywhereAreCaught) {
  for (std::size_t at = 0; at < bytes_.size(); at += 37) {
    SCOPED_TRACE(at);
    std::string bad = bytes_;
    bad[at] = static_cast<char>(bad[at] ^ 0x04);
    expect_refused(bad, at < 8 ? "no HEAPQLBI magic" : "damaged");
  }
}

TEST_F(BadInputBlockIdentity, WrongMagicNewerVersionEmptyAndDirectory) {
  std::string bad = bytes_;
  bad[0] = 'X';
  expect_refused(bad, "not a heapql block-identity file (no HEAPQLBI magic)");
  expect_refused("", "an empty file, not a block-identity file");
  bad = bytes_;
  bad[8] = 2;  // the version is read before the header's checksum, which a newer layout may move
  expect_refused(bad, "block-identity format version 2; this heapql reads version 1");
  fs::remove(trace_ + ".hqid");
  fs::create_directory(trace_ + ".hqid");
  const CommandResult r = run_heapql("query " + shell_quote(trace_) + " --no-store");
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, trace_ + ".hqid: a directory, not a block-identity file");
}

}  // namespace
}  // namespace heapql::test
