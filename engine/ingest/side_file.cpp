#include "engine/ingest/side_file.h"

#include <sys/stat.h>

#include "engine/error.h"

namespace heapql {

SideFile side_file_at(const std::string& path, bool confined) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return SideFile::kNone;
  if (S_ISLNK(st.st_mode)) {
    if (confined) {
      throw Error(SourceLocation::of_file(path),
                  "is a link beside the trace: in a recipe's run heapql reads a trace's twin, block-identity file "
                  "and store only as themselves, never through a link (put the file itself there, or run with "
                  "--trusted)");
    }
    if (::stat(path.c_str(), &st) != 0) return SideFile::kNone;
  }
  if (S_ISREG(st.st_mode)) return SideFile::kFile;
  return S_ISDIR(st.st_mode) ? SideFile::kFolder : SideFile::kNone;
}

}  // namespace heapql
