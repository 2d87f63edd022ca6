// The files a read of a trace may use beside it without being told to:
// heaptrack's twins and block-identity file, the trace's store, and the live
// journal of a recording of it in progress. The
// sandbox lets a recipe read them with the trace it was given, and refuses a
// trace opened by a recipe whose files lead out of what it may read; it asks
// here, so that the Lua layer knows no file format.
#pragma once

#include <string>
#include <vector>

namespace heapql {

// Every file beside `trace_path` a read of it may use, whether or not it is
// there: nothing is looked at. The store in the per-user cache is not beside
// the trace, and not among them.
std::vector<std::string> files_beside_trace(const std::string& trace_path);

// Whether the trace at `trace_path`, by its name, is read only together
// with one of those files: a raw heaptrack file, with its interpreted twin.
bool read_only_with_a_file_beside(const std::string& trace_path);

}  // namespace heapql
