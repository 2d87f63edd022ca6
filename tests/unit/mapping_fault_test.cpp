// A mapped file that shrinks under its reader is a clear error naming the
// file (exit 2), not a death by SIGBUS; a fault elsewhere is not claimed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>

#include "engine/binary_file/mapped_file.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

char read_after_truncating(const std::string& path) {
  const store_file::MappedFile mapped = store_file::map_file(path, "a test file");
  fs::resize_file(path, 0);
  return *static_cast<volatile const char*>(mapped.bytes.data() + 8192);
}

TEST(MappingFaultDeathTest, AFileThatShrinksWhileMappedIsNamedAndExits2) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TempDir dir;
  const std::string path = dir.file("shrinks.hqdb");
  write_file(path, std::string(3 * 4096, 'x'));
  EXPECT_EXIT(read_after_truncating(path), ::testing::ExitedWithCode(2),
              "heapql: .*shrinks.hqdb: the file shrank while heapql read it \\(another program truncated or rewrote "
              "it in place\\); run the command again");
}

TEST(MappingFaultDeathTest, ABusErrorElsewhereIsNotClaimed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TempDir dir;
  const std::string path = dir.file("stays.hqdb");
  write_file(path, std::string(4096, 'x'));
  const store_file::MappedFile mapped = store_file::map_file(path, "a test file");
  // A SIGBUS at no mapped address goes on to the handler before (ASan's)
  // or the default action: not the exit 2 of a file that shrank.
  const auto not_claimed = [](int status) { return !(WIFEXITED(status) && WEXITSTATUS(status) == 2); };
  EXPECT_EXIT(::raise(SIGBUS), not_claimed, "");
  EXPECT_EQ(mapped.bytes[0], 'x');
}

}  // namespace
}  // namespace heapql::test
