// `heapql serve` in a heapql built without cpp-httplib (CMakeLists.txt): it
// says so, as --format html does without the report's libraries.
#include "cli/commands.h"

namespace heapql::cli {

int run_serve(Arguments&) {
  throw UsageError{"this heapql was built without its HTTP server (cpp-httplib, Debian: libcpp-httplib-dev): "
                   "install it and build again"};
}

}  // namespace heapql::cli
