// Writing a message to stderr from a signal handler or a memory-limit hook,
// where nothing may allocate or take a lock: write(2) until it is all out
// or stderr refuses it.
#pragma once

#include <unistd.h>

#include <cstddef>

namespace heapql {

inline void write_stderr_in_signal(const char* text, std::size_t length) {
  while (length > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, length);
    if (n <= 0) return;
    text += n;
    length -= static_cast<std::size_t>(n);
  }
}

}  // namespace heapql
