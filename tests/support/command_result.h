// What a command the tests ran did: its exit code and what it wrote.
#pragma once

#include <string>

namespace heapql::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

}  // namespace heapql::test
