#include "engine/ingest/side_file.h"

#include <sys/stat.h>

#include "engine/error.h"

namespace heapql {

bool side_file_present(const std::string& path, bool confined) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return false;
  if (S_ISLNK(st.st_mode)) {
    if (confined) {
      throw Error(SourceLocation::of_file(path),
                  "is a link beside the trace: in a recipe's run heapql reads a trace's twin, block-identity file "
                  "and store only as themselves, never through a link (put the file itself there, or run with "
                  "--trusted)");
    }
    if (::stat(path.c_str(), &st) != 0) return false;
  }
  return S_ISREG(st.st_mode);
}

}  // namespace heapql
