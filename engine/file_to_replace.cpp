#include "engine/file_to_replace.h"

#include "engine/error.h"
#include "engine/path_kind.h"

namespace heapql {

void check_file_to_replace(const std::string& path) {
  switch (path_kind(path)) {
    case PathKind::kNothing:
    case PathKind::kFile: return;
    case PathKind::kFolder: throw Error(SourceLocation::of_file(path), "is a folder; name a file");
    case PathKind::kPipe:
    case PathKind::kDevice:
      throw Error(SourceLocation::of_file(path),
                  "is a device, pipe or socket, not a file: writing here would replace it; name a file");
  }
}

}  // namespace heapql
