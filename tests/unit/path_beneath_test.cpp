// resolve_beneath (engine/path_beneath.h): the recipe sandbox's one path
// check, walked as openat2's RESOLVE_BENEATH walks a path. Every way out is
// refused the same whether or not its target exists.
#include "engine/path_beneath.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

class PathBeneath : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.file("in/sub"));
    write_file(dir_.file("in/a.txt"), "a");
    write_file(dir_.file("in/sub/b.txt"), "b");
    write_file(outside_.file("secret.txt"), "secret");
  }
  std::string in() const { return dir_.file("in"); }
  std::string at(const std::string& name) const { return in() + "/" + name; }
  void link(const std::string& target, const std::string& name) const { fs::create_symlink(target, at(name)); }
  std::optional<std::string> resolve(const std::string& name) const { return resolve_beneath(in(), at(name)); }

  TempDir dir_;
  TempDir outside_;
};

TEST_F(PathBeneath, FilesAndFoldersBeneathAreThemselves) {
  EXPECT_EQ(resolve("a.txt"), at("a.txt"));
  EXPECT_EQ(resolve("sub/b.txt"), at("sub/b.txt"));
  EXPECT_EQ(resolve("sub/../a.txt"), at("a.txt"));
  EXPECT_EQ(resolve_beneath(in(), in()), in());
  EXPECT_EQ(resolve("missing.txt"), at("missing.txt"));
}

TEST_F(PathBeneath, LinksThatStayBeneathAreResolved) {
  link("sub/b.txt", "rel.txt");
  link(at("a.txt"), "abs.txt");
  link("sub", "dir");
  link("../a.txt", "sub/up.txt");
  EXPECT_EQ(resolve("rel.txt"), at("sub/b.txt"));
  EXPECT_EQ(resolve("abs.txt"), at("a.txt"));
  EXPECT_EQ(resolve("dir/b.txt"), at("sub/b.txt"));
  EXPECT_EQ(resolve("sub/up.txt"), at("a.txt"));
  // `..` after a link goes up from where the link led, as the kernel does.
  EXPECT_EQ(resolve("dir/../a.txt"), at("a.txt"));
}

TEST_F(PathBeneath, EveryWayOutIsRefusedWhetherOrNotItsTargetExists) {
  for (const std::string& target : {outside_.file("secret.txt"), outside_.file("missing.txt")}) {
    const std::string name = fs::path(target).filename().string();
    link(target, "abs-" + name);
    link("../../" + fs::path(outside_.path()).filename().string() + "/" + name, "rel-" + name);
    EXPECT_EQ(resolve("abs-" + name), std::nullopt) << target;
    EXPECT_EQ(resolve("rel-" + name), std::nullopt) << target;
  }
  link(outside_.path().string(), "out");  // a link to a folder outside, then a name in it
  EXPECT_EQ(resolve("out/secret.txt"), std::nullopt);
  EXPECT_EQ(resolve("out/missing.txt"), std::nullopt);
  link("sub/../..", "mid");  // a link in the middle of the path that climbs out
  EXPECT_EQ(resolve("mid/x"), std::nullopt);
  EXPECT_EQ(resolve("../x"), std::nullopt);
  EXPECT_EQ(resolve("sub/../../in/a.txt"), std::nullopt);
  EXPECT_EQ(resolve("missing/../../x"), std::nullopt);  // climbs out in words past a missing name
  EXPECT_EQ(resolve_beneath(in(), outside_.file("secret.txt")), std::nullopt);
  EXPECT_EQ(resolve_beneath(in(), "/proc/self/root/etc/passwd"), std::nullopt);
  link("/proc/self/root", "proc");
  EXPECT_EQ(resolve("proc/etc/passwd"), std::nullopt);
  link("/dev/zero", "zero");
  EXPECT_EQ(resolve("zero"), std::nullopt);
}

TEST_F(PathBeneath, LinkLoopsFifosAndDevicesAreRefused) {
  link("loop2", "loop1");
  link("loop1", "loop2");
  EXPECT_EQ(resolve("loop1"), std::nullopt);
  ASSERT_EQ(::mkfifo(at("fifo").c_str(), 0600), 0);
  EXPECT_EQ(resolve("fifo"), std::nullopt);
  link("fifo", "to-fifo");
  EXPECT_EQ(resolve("to-fifo"), std::nullopt);
}

TEST_F(PathBeneath, TheFoldersOwnPathMayHoldLinks) {
  const std::string via = dir_.file("via");
  fs::create_symlink(in(), via);
  EXPECT_EQ(resolve_beneath(via, via + "/sub/b.txt"), via + "/sub/b.txt");
  EXPECT_EQ(resolve_beneath(via, via + "/../in/a.txt"), std::nullopt);
}

TEST_F(PathBeneath, HardLinksBeneathAreFiles) {
  fs::create_hard_link(at("a.txt"), at("hard.txt"));
  EXPECT_EQ(resolve("hard.txt"), at("hard.txt"));
}

TEST(AbsoluteAsGiven, DropsDotsAndKeepsDotDots) {
  EXPECT_EQ(absolute_as_given("/a/./b//c/../d"), "/a/b/c/../d");
  EXPECT_EQ(absolute_as_given("x"), fs::current_path().string() + "/x");
}

}  // namespace
}  // namespace heapql::test
