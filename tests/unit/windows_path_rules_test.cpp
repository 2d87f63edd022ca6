// engine/windows_path_rules.h: the Windows path tricks the recipe sandbox
// refuses, as plain string rules (so tested on both systems); the walk that
// applies them on Windows is path_beneath_test's.
#include "engine/windows_path_rules.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace heapql::test {
namespace {

using Parts = std::vector<std::string>;

TEST(WindowsPathRules, DeviceNamesWithAndWithoutExtensionsInAnyCase) {
  for (const char* name : {"CON", "con", "Nul", "NUL.txt", "con.lua", "nul .txt", "AUX", "PRN.x.y", "COM1", "com9.lua",
                           "LPT1", "lpt0", "COM\xC2\xB9", "CONIN$", "conout$.txt"}) {
    EXPECT_TRUE(is_windows_device_name(name)) << name;
    EXPECT_EQ(windows_name_refusal(name), "a reserved device name (CON, NUL, COM1, ...)") << name;
  }
  for (const char* name : {"CONSOLE", "nul1", "COM", "COM10", "LPT", "xnul", "my.con", "aux_data.lua", "cull.txt"}) {
    EXPECT_FALSE(is_windows_device_name(name)) << name;
    EXPECT_EQ(windows_name_refusal(name), "") << name;
  }
}

TEST(WindowsPathRules, StreamsWildcardsAndTrimmedNamesAreRefused) {
  EXPECT_EQ(windows_name_refusal("file.lua:stream"), "an alternate data stream (name:stream)");
  EXPECT_EQ(windows_name_refusal("file.lua::$DATA"), "an alternate data stream (name:stream)");
  EXPECT_NE(windows_name_refusal("secret*"), "");
  EXPECT_NE(windows_name_refusal("a?.lua"), "");
  EXPECT_NE(windows_name_refusal("a\x01"), "");
  EXPECT_EQ(windows_name_refusal("cull.txt."), "a name ending in a dot or space (Windows would open it without them)");
  EXPECT_NE(windows_name_refusal("cull.txt "), "");
  EXPECT_EQ(windows_name_refusal("."), "");
  EXPECT_EQ(windows_name_refusal(".."), "");
  EXPECT_EQ(windows_name_refusal("PROGRA~1"), "");  // a short name is a name: the walk finds where it leads
}

TEST(WindowsPathRules, FormsThatAreNeverBeneathAFolder) {
  EXPECT_EQ(windows_path_form("C:\\recipes\\a.lua"), WindowsPathForm::kPlain);
  EXPECT_EQ(windows_path_form("C:/recipes/a.lua"), WindowsPathForm::kPlain);
  EXPECT_EQ(windows_path_form("\\recipes\\a.lua"), WindowsPathForm::kPlain);
  EXPECT_EQ(windows_path_form("sub/a.lua"), WindowsPathForm::kPlain);
  EXPECT_EQ(windows_path_form("C:a.lua"), WindowsPathForm::kDriveRelative);
  EXPECT_EQ(windows_path_form("c:"), WindowsPathForm::kDriveRelative);
  EXPECT_EQ(windows_path_form("\\\\server\\share\\a.lua"), WindowsPathForm::kUnc);
  EXPECT_EQ(windows_path_form("//server/share/a.lua"), WindowsPathForm::kUnc);
  EXPECT_EQ(windows_path_form("\\/server\\share"), WindowsPathForm::kUnc);  // `/` and `\` mixed
  EXPECT_EQ(windows_path_form("\\\\?\\C:\\recipes\\a.lua"), WindowsPathForm::kDevice);
  EXPECT_EQ(windows_path_form("\\\\.\\C:\\recipes\\a.lua"), WindowsPathForm::kDevice);
  EXPECT_EQ(windows_path_form("//./pipe/x"), WindowsPathForm::kDevice);
  EXPECT_EQ(windows_path_form("\\??\\C:\\x"), WindowsPathForm::kNtObject);
  EXPECT_EQ(windows_path_form_refusal("C:\\x"), "");
  EXPECT_EQ(windows_path_form_refusal("C:x"), "a drive-relative path (C:name, relative to that drive's own working folder)");
}

TEST(WindowsPathRules, APathIsRefusedForItsFormOrAnyName) {
  EXPECT_EQ(windows_path_refusal("C:\\recipes\\sub/cull.txt"), "");
  EXPECT_EQ(windows_path_refusal("C:\\recipes\\NUL\\x.txt"), "a reserved device name (CON, NUL, COM1, ...)");
  EXPECT_EQ(windows_path_refusal("C:\\recipes\\a.lua:evil"), "an alternate data stream (name:stream)");
  EXPECT_EQ(windows_path_refusal("sub\\con.lua"), "a reserved device name (CON, NUL, COM1, ...)");
  EXPECT_EQ(windows_path_refusal("\\\\?\\C:\\recipes\\a.lua"), "a \\\\?\\ or \\\\.\\ device path");
  EXPECT_EQ(windows_path_refusal("\\\\server\\share\\a.lua"), "a UNC path (\\\\server\\share)");
}

TEST(WindowsPathRules, ComponentsKeepAPrefixWhole) {
  EXPECT_EQ(windows_path_components("c:\\a/./b\\\\..\\c"), (Parts{"C:", "a", "b", "..", "c"}));
  EXPECT_EQ(windows_path_components("\\\\server\\share\\a"), (Parts{"\\\\server\\share", "a"}));
  // Neither the device prefix nor its dot may look like a drive's path.
  EXPECT_EQ(windows_path_components("\\\\.\\C:\\a"), (Parts{"\\\\.\\C:", "a"}));
  EXPECT_EQ(windows_path_components("\\\\?\\C:\\a"), (Parts{"\\\\?\\C:", "a"}));
  EXPECT_EQ(windows_path_components("C:a\\b"), (Parts{"C:a", "b"}));
}

TEST(WindowsPathRules, NamesCompareAsNtfsDoes) {
  EXPECT_TRUE(same_windows_name("Recipes", "RECIPES"));
  EXPECT_TRUE(same_windows_name("c:", "C:"));
  EXPECT_FALSE(same_windows_name("recipes", "recipe"));
  EXPECT_FALSE(same_windows_name("a", "b"));
}

}  // namespace
}  // namespace heapql::test
