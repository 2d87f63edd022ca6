// An errno value's message, the C library's ("No such file or directory"),
// the same text on Linux and on Windows.
#pragma once

#include <string>

namespace heapql {

std::string errno_text(int error);

}  // namespace heapql
