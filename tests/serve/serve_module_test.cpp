// The server as a module of its own (docs/serve.md, "The module"): no other
// command loads the HTTP library, and a module that does not load is named.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

TEST(ServeModule, NoOtherCommandLoadsTheHttpLibrary) {
  // glibc's loader names every library it loads on stderr under LD_DEBUG=libs.
  const CommandResult query = run_heapql("query " + shell_quote(example_trace()) + " --top 1", "LD_DEBUG=libs");
  ASSERT_EQ(query.exit_code, 0) << query.err;
  expect_contains(query.err, "libfmt.so");  // the loader did name what it loaded
  EXPECT_EQ(query.err.find("httplib"), std::string::npos) << query.err;
  EXPECT_EQ(query.err.find("libssl"), std::string::npos) << query.err;
}

TEST(ServeModule, ServeLoadsTheHttpLibrary) {
  // A port that cannot be bound ends it once the module has run.
  const CommandResult serve =
      run_heapql("serve " + shell_quote(example_trace()) + " --bind 203.0.113.1 --port 1", "LD_DEBUG=libs");
  expect_contains(serve.err, "heapql-serve.so");
  expect_contains(serve.err, "libcpp-httplib.so");
  expect_contains(serve.err, "cannot listen on 203.0.113.1:1");
  EXPECT_NE(serve.exit_code, 0);
}

TEST(ServeModule, AModuleThatDoesNotLoadIsNamed) {
  // An installed heapql looks beside itself first (HEAPQL_INSTALLED_SERVE_MODULE
  // is the path from bin/ to it): a file there that is no shared object
  // is an error naming it, not the build folder's module.
  const TempDir dir;
  const fs::path program = dir.path() / "bin" / "heapql";
  fs::create_directories(program.parent_path());
  fs::copy_file(heapql_binary(), program);
  const fs::path module = (program.parent_path() / HEAPQL_INSTALLED_SERVE_MODULE).lexically_normal();
  fs::create_directories(module.parent_path());
  write_file(module.string(), "not a shared object\n");
  const CommandResult serve =
      run_command(shell_quote(program.string()) + " serve " + shell_quote(example_trace()) + " --port 0");
  EXPECT_EQ(serve.exit_code, 2) << serve.err;
  expect_contains(serve.err, "cannot load heapql's HTTP server " + module.string());
  EXPECT_EQ(serve.out, "");
}

}  // namespace
}  // namespace heapql::test
