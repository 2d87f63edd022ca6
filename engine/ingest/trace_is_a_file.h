// A trace is read from a file: heapql opens it more than once (to tell its
// format, to find and check its store, then to read it), which a pipe or a
// terminal cannot give, each read taking bytes the next one needed.
#pragma once

#include <string>

namespace heapql {

// Throws Error naming `path` when it is a pipe, a device or a socket (a link
// is followed; /dev/stdin given a pipe is a pipe). A missing path or a folder
// is left to the readers, which say so.
void require_trace_file(const std::string& path);

}  // namespace heapql
