// resolve_beneath (engine/path_beneath.h): the recipe sandbox's one path
// check, walked as openat2's RESOLVE_BENEATH walks a path. Every way out is
// refused the same whether or not its target exists. The Linux table first;
// then Windows' own tricks (docs/windows.md, "Recipes and the sandbox"),
// which run under Wine too.
#include "engine/path_beneath.h"

#include <gtest/gtest.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <sys/stat.h>
#endif

#include <filesystem>

#include "engine/platform/utf8_wide.h"
#include "tests/support/symbolic_links.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

#ifndef _WIN32

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

TEST_F(PathBeneath, OnlyAPlainFileReachedWithoutALinkIsOne) {
  link("a.txt", "to-a.txt");
  EXPECT_FALSE(is_there_but_not_a_plain_file(at("a.txt")));
  EXPECT_FALSE(is_there_but_not_a_plain_file(at("missing.txt")));
  EXPECT_TRUE(is_there_but_not_a_plain_file(at("to-a.txt")));
  EXPECT_TRUE(is_there_but_not_a_plain_file(at("sub")));
}

#else  // _WIN32

class PathBeneath : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.file("in\\sub"));
    write_file(dir_.file("in\\a.txt"), "a");
    write_file(dir_.file("in\\sub\\b.txt"), "b");
    write_file(dir_.file("in\\a_file_with_a_long_name.txt"), "long");
    fs::create_directories(outside_.file("a_folder_outside"));
    write_file(outside_.file("secret.txt"), "secret");
  }
  std::string in() const { return dir_.file("in"); }
  std::string at(const std::string& name) const { return in() + "\\" + name; }
  std::optional<std::string> resolve(const std::string& name) const { return resolve_beneath(in(), at(name)); }
  // The path as resolve_beneath returns it: the folder as named, then the
  // stored names (their own case, long names).
  std::string stored(const std::string& name) const { return at(name); }

  TempDir dir_;
  TempDir outside_;
};

TEST_F(PathBeneath, FilesBeneathAreThemselvesInAnyCaseWithEitherSeparator) {
  EXPECT_EQ(resolve("a.txt"), stored("a.txt"));
  EXPECT_EQ(resolve("sub/b.txt"), stored("sub\\b.txt"));
  EXPECT_EQ(resolve("sub\\..\\a.txt"), stored("a.txt"));
  EXPECT_EQ(resolve("SUB/B.TXT"), stored("sub\\b.txt"));
  EXPECT_EQ(resolve("missing.txt"), stored("missing.txt"));
  EXPECT_EQ(resolve_beneath(in(), in()), in());
  // The folder named in another case, or with `/`: beneath it still.
  std::string upper = in();
  for (char& c : upper) c = c == '\\' ? '/' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(resolve_beneath(in(), upper + "/SUB\\b.txt"), stored("sub\\b.txt"));
}

TEST_F(PathBeneath, ADrivesRootMayBeTheFolder) {
  const std::string root = in().substr(0, 3);  // the drive root, "C:\\" as a C string
  ASSERT_EQ(root.substr(1), ":\\");
  EXPECT_EQ(resolve_beneath(root, at("sub\\b.txt")), at("sub\\b.txt"));
  EXPECT_EQ(resolve_beneath(root, root + "..\\x"), std::nullopt);
}

TEST_F(PathBeneath, EveryWindowsTrickIsRefused) {
  const std::string tail = in().substr(2);  // the folder without its drive: \...\in
  const std::string tricks[] = {
      at("NUL"), at("nul.txt"), at("con.lua"), at("CON"), at("AUX"), at("COM1"), at("LPT1.lua"), at("sub\\PRN"),
      at("a.txt:stream"), at("a.txt::$DATA"), at("sub:evil\\b.txt"),
      at("a.txt."), at("a.txt "), at("a*.txt"),
      at("..\\in\\a.txt"), at("sub/../../in/a.txt"), at("sub\\..\\..\\x"),
      "\\\\?\\" + at("a.txt"), "\\\\.\\" + at("a.txt"), "//?/" + at("a.txt"), "\\??\\" + at("a.txt"),
      "\\\\localhost\\" + in().substr(0, 1) + "$" + tail + "\\a.txt",  // the folder through an admin share
      in().substr(0, 2) + "a.txt",                                        // drive-relative
      outside_.file("secret.txt"),
  };
  for (const std::string& trick : tricks) EXPECT_EQ(resolve_beneath(in(), trick), std::nullopt) << trick;
}

TEST_F(PathBeneath, ShortNamesLeadToTheLongNames) {
  wchar_t short_name[MAX_PATH];
  const DWORD n = GetShortPathNameW(wide_from_utf8(at("a_file_with_a_long_name.txt")).c_str(), short_name, MAX_PATH);
  const std::string short_path = n > 0 && n < MAX_PATH ? utf8_from_wide(short_name) : "";
  if (short_path.empty() || short_path == at("a_file_with_a_long_name.txt")) {
    GTEST_SKIP() << "this volume makes no 8.3 names";
  }
  const std::string short_file = short_path.substr(short_path.find_last_of('\\') + 1);
  EXPECT_EQ(resolve(short_file), stored("a_file_with_a_long_name.txt")) << short_file;
  // A short name outside, reached by climbing, is still outside.
  const DWORD m = GetShortPathNameW(wide_from_utf8(outside_.file("a_folder_outside")).c_str(), short_name, MAX_PATH);
  ASSERT_GT(m, 0u);
  const std::string outside_short = utf8_from_wide(short_name);
  EXPECT_EQ(resolve_beneath(in(), outside_short + "\\x"), std::nullopt);
  EXPECT_EQ(resolve("..\\..\\" + outside_short.substr(outside_short.find_last_of('\\') + 1)), std::nullopt);
}

TEST_F(PathBeneath, LinksThatLeaveAreRefusedAndLinksThatStayAreResolved) {
  Links links;
  if (!links.make(outside_.file("secret.txt"), at("abs.txt"))) GTEST_SKIP() << "no symbolic link can be made here";
  ASSERT_TRUE(links.make(outside_.path().string(), at("out")));
  ASSERT_TRUE(links.make("sub\\b.txt", at("rel.txt")));
  ASSERT_TRUE(links.make("sub", at("dir")));
  ASSERT_TRUE(links.make("..\\..\\" + outside_.path().filename().string() + "\\secret.txt", at("up.txt")));
  EXPECT_EQ(resolve("abs.txt"), std::nullopt);
  EXPECT_EQ(resolve("out\\secret.txt"), std::nullopt);
  EXPECT_EQ(resolve("OUT/secret.txt"), std::nullopt);
  EXPECT_EQ(resolve("up.txt"), std::nullopt);
  EXPECT_EQ(resolve("rel.txt"), stored("sub\\b.txt"));
  EXPECT_EQ(resolve("dir\\b.txt"), stored("sub\\b.txt"));
  EXPECT_TRUE(is_there_but_not_a_plain_file(at("abs.txt")));
  EXPECT_TRUE(is_there_but_not_a_plain_file(at("rel.txt")));
  ASSERT_TRUE(links.make(outside_.file("missing.txt"), at("dangling.txt")));
  if (missing_link_targets_are_hidden()) {
    // Wine hides a Linux link whose target is missing: the name reads as
    // missing (opening it fails), not as a link. Windows' own links are
    // reparse points, refused whether or not their target exists.
    EXPECT_EQ(resolve("dangling.txt"), stored("dangling.txt"));
  } else {
    EXPECT_EQ(resolve("dangling.txt"), std::nullopt);
  }
}

TEST_F(PathBeneath, DevicesAndFoldersAreNotPlainFiles) {
  EXPECT_FALSE(is_there_but_not_a_plain_file(at("a.txt")));
  EXPECT_FALSE(is_there_but_not_a_plain_file(at("SUB/B.TXT")));
  // The file's folder named by its short name: the file is still itself.
  wchar_t short_name[MAX_PATH];
  const DWORD n = GetShortPathNameW(wide_from_utf8(dir_.path().string()).c_str(), short_name, MAX_PATH);
  ASSERT_GT(n, 0u);
  EXPECT_FALSE(is_there_but_not_a_plain_file(utf8_from_wide(short_name) + "\\in\\a.txt")) << utf8_from_wide(short_name);
  EXPECT_FALSE(is_there_but_not_a_plain_file(at("missing.txt")));
  EXPECT_TRUE(is_there_but_not_a_plain_file(at("sub")));
  EXPECT_TRUE(is_there_but_not_a_plain_file(at("NUL")));
  EXPECT_TRUE(is_there_but_not_a_plain_file(at("a.txt:stream")));
}

TEST(AbsoluteAsGiven, OnWindowsADriveFirstAndBackslashes) {
  EXPECT_EQ(absolute_as_given("c:/a/./b//c/../d"), "C:\\a\\b\\c\\..\\d");
  const std::string here = utf8_from_path(fs::current_path());
  EXPECT_EQ(absolute_as_given("x/y"), here + (here.back() == '\\' ? "" : "\\") + "x\\y");
  EXPECT_EQ(absolute_as_given("\\x"), here.substr(0, 2) + "\\x");
  EXPECT_EQ(absolute_as_given("C:x"), "C:x");  // drive-relative: as given, and never beneath a folder
  EXPECT_EQ(absolute_as_given("\\\\?\\C:\\x"), "\\\\?\\C:\\x");
}

#endif  // _WIN32

}  // namespace
}  // namespace heapql::test
