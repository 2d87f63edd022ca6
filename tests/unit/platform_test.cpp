// engine/platform: the same answers on Linux and on Windows (run under Wine
// in the Windows build) for what the engine asks of files by UTF-8 name.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "engine/platform/environment.h"
#include "engine/platform/file_status.h"
#include "engine/platform/open_file.h"
#include "engine/platform/positioned_io.h"
#include "engine/platform/replace_file.h"
#include "engine/platform/temporary_file.h"
#include "engine/platform/utf8_wide.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

class Platform : public ::testing::Test {
 protected:
  std::string in_dir(const std::string& utf8_name) const { return utf8_from_path(dir_.path()) + "/" + utf8_name; }

  static void put(const std::string& path, const std::string& bytes) {
    std::FILE* file = open_stdio_file(path, "w");  // binary on Windows whatever the mode says
    ASSERT_NE(file, nullptr) << path;
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
    ASSERT_EQ(std::fclose(file), 0);
  }

  static std::string get(const std::string& path) {
    const int fd = open_file(path, O_RDONLY);
    EXPECT_GE(fd, 0) << path;
    std::string bytes(4096, '\0');
    const std::int64_t got = read_at(fd, bytes.data(), bytes.size(), 0);
    close_file(fd);
    bytes.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    return bytes;
  }

  TempDir dir_;
};

TEST_F(Platform, ANonAsciiNameOpensThatFileAndLineEndsStayLf) {
  const std::string name = in_dir("\xc3\xa9t\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac.txt");  // été-日本.txt
  put(name, "one\ntwo\n");
  EXPECT_EQ(get(name), "one\ntwo\n");
  EXPECT_TRUE(fs::exists(path_from_utf8(name)));
  const std::optional<FileStatus> status = status_of_path(name);
  ASSERT_TRUE(status);
  EXPECT_TRUE(status->regular());
  EXPECT_EQ(status->size, 8u);
}

TEST_F(Platform, AMissingFileIsEnoentAndAFolderIsAFolder) {
  errno = 0;
  EXPECT_LT(open_file(in_dir("missing"), O_RDONLY), 0);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_FALSE(status_of_path(in_dir("missing")));
  const std::optional<FileStatus> folder = status_of_path(utf8_from_path(dir_.path()));
  ASSERT_TRUE(folder);
  EXPECT_TRUE(folder->directory());
}

TEST_F(Platform, WritingAtAnOffsetLeavesTheSequentialPositionAlone) {
  const std::string name = in_dir("positions");
  const int fd = open_file(name, O_RDWR | O_CREAT | O_TRUNC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write_some(fd, "abcdef", 6), 6);
  ASSERT_EQ(write_at(fd, "XY", 2, 1), 2);
  ASSERT_EQ(write_some(fd, "gh", 2), 2);  // after "abcdef", as pwrite leaves it
  char back[3] = {};
  EXPECT_EQ(read_at(fd, back, 2, 6), 2);
  EXPECT_EQ(std::string(back, 2), "gh");
  close_file(fd);
  EXPECT_EQ(get(name), "aXYdefgh");
}

TEST_F(Platform, ARenameReplacesAnExistingFile) {
  const std::string from = in_dir("new"), to = in_dir("\xc3\xbc\x62\x65r");  // über
  put(from, "new");
  put(to, "old");
  const std::optional<FileStatus> before = status_of_path(to);
  ASSERT_EQ(rename_replacing(from, to), 0) << std::strerror(errno);
  EXPECT_EQ(get(to), "new");
  EXPECT_FALSE(status_of_path(from));
  const std::optional<FileStatus> after = status_of_path(to);
  ASSERT_TRUE(before && after);
  EXPECT_NE(after->id, before->id);  // a new file there: what ingest's block-identity check asks
  EXPECT_EQ(remove_file(to), 0);
  EXPECT_FALSE(status_of_path(to));
}

TEST_F(Platform, UniqueFilesAreNewAndScratchFilesHaveNoName) {
  std::string first = in_dir(".out.XXXXXX.tmp"), second = first;
  const int a = create_unique_file(first, 4), b = create_unique_file(second, 4);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_NE(first, second);
  EXPECT_TRUE(first.ends_with(".tmp"));
  EXPECT_EQ(first.find("XXXXXX"), std::string::npos);
  close_file(a);
  close_file(b);
  const int scratch = create_scratch_file(utf8_from_path(dir_.path()));
  ASSERT_GE(scratch, 0);
  ASSERT_EQ(write_some(scratch, "column", 6), 6);
  char back[6] = {};
  EXPECT_EQ(read_at(scratch, back, 6, 0), 6);
  EXPECT_EQ(std::string(back, 6), "column");
  close_file(scratch);
  int names = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_.path())) {
    (void)entry;
    ++names;
  }
  EXPECT_EQ(names, 2);  // the two unique files; the scratch file is gone with its descriptor
}

TEST(PlatformEnvironment, AVariableIsReadAsUtf8) {
  EXPECT_FALSE(environment_variable("HEAPQL_PLATFORM_TEST_UNSET"));
#ifdef _WIN32
  ASSERT_EQ(::_wputenv(L"HEAPQL_PLATFORM_TEST=\u00e9t\u00e9"), 0);
#else
  ASSERT_EQ(::setenv("HEAPQL_PLATFORM_TEST", "\xc3\xa9t\xc3\xa9", 1), 0);
#endif
  EXPECT_EQ(environment_variable("HEAPQL_PLATFORM_TEST"), std::optional<std::string>("\xc3\xa9t\xc3\xa9"));
}

}  // namespace
}  // namespace heapql::test
