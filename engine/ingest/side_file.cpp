#include "engine/ingest/side_file.h"

#include <optional>

#include "engine/error.h"
#include "engine/platform/file_status.h"

namespace heapql {

SideFile side_file_at(const std::string& path, bool confined) {
  std::optional<FileStatus> st = status_of_path(path, false);
  if (!st) return SideFile::kNone;
  if (st->link()) {
    if (confined) {
      throw Error(SourceLocation::of_file(path),
                  "is a link beside the trace: in a recipe's run heapql reads a trace's twin, block-identity file "
                  "and store only as themselves, never through a link (put the file itself there, or run with "
                  "--trusted)");
    }
    st = status_of_path(path, true);
    if (!st) return SideFile::kNone;
  }
  if (st->regular()) return SideFile::kFile;
  return st->directory() ? SideFile::kFolder : SideFile::kNone;
}

}  // namespace heapql
