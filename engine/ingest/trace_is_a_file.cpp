#include "engine/ingest/trace_is_a_file.h"

#include <filesystem>

#include "engine/error.h"

namespace heapql {

void require_trace_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status) || fs::is_regular_file(status) || fs::is_directory(status)) return;
  throw Error(SourceLocation::of_file(path),
              std::string(fs::is_fifo(status) ? "is a pipe" : "is a device or socket") +
                  ", not a file: heapql reads a trace from a file, which it opens more than once (to tell its "
                  "format, to find its store); write the trace to a file first (.zst and .gz are read as they are)");
}

}  // namespace heapql
