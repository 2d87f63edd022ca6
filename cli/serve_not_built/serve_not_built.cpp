// `heapql serve` in a heapql built without cpp-httplib (CMakeLists.txt): it
// says so, as --format html does without the report's libraries. On Windows
// the server is never built (it forks a worker per request): it says that,
// and exits 2, as `heapql record` does there (docs/windows.md).
#include <cstdio>

#include "cli/commands.h"
#include "cli/exit_codes.h"

namespace heapql::cli {

int run_serve(Arguments&) {
#ifdef _WIN32
  std::fputs("heapql serve: not available on Windows (its server forks a worker per request); "
             "use heapql query --format html for a report to open in the browser\n",
             stderr);
  return kExitNotOnThisSystem;
#else
  throw UsageError{"this heapql was built without its HTTP server (cpp-httplib, Debian: libcpp-httplib-dev): "
                   "install it and build again"};
#endif
}

}  // namespace heapql::cli
