// read_text_file (engine/text_file.h): a file named in UTF-8 is opened as
// itself on both systems (on Windows through the wide API, not the ANSI code
// page), and its bytes come back as they are: CRLF stays for the readers,
// which read it as LF (tests/cli/crlf_test.cpp).
#include "engine/text_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "engine/error.h"
#include "engine/platform/utf8_wide.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

TEST(TextFile, ANonAsciiNameOpensItselfAndTheBytesComeBackAsTheyAre) {
  TempDir dir;
  const std::string path = utf8_from_path(dir.path() / path_from_utf8("cull-\xC3\xBC\xC3\x9F-\xE6\x97\xA5.txt"));
  const std::string text = "# crt\r\nmalloc\r\n";
  std::ofstream(path_from_utf8(path), std::ios::binary) << text;
  EXPECT_EQ(read_text_file(path, "cull list"), text);
}

TEST(TextFile, AMissingFileNamesItAndWhatItWasFor) {
  TempDir dir;
  const std::string path = utf8_from_path(dir.path() / "missing.txt");
  try {
    read_text_file(path, "cull list");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().file, path);
    EXPECT_EQ(e.message().rfind("cannot open cull list: ", 0), 0u) << e.message();
  }
}

}  // namespace
}  // namespace heapql::test
