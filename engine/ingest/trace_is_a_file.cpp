#include "engine/ingest/trace_is_a_file.h"

#include "engine/error.h"
#include "engine/path_kind.h"

namespace heapql {

void require_trace_file(const std::string& path) {
  const PathKind kind = path_kind(path);
  if (kind != PathKind::kPipe && kind != PathKind::kDevice) return;
  throw Error(SourceLocation::of_file(path),
              std::string(kind == PathKind::kPipe ? "is a pipe" : "is a device or socket") +
                  ", not a file: heapql reads a trace from a file, which it opens more than once (to tell its "
                  "format, to find its store); write the trace to a file first (.zst and .gz are read as they are)");
}

}  // namespace heapql
