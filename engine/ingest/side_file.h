// The files heapql reads beside a trace without being told to (its raw or
// interpreted twin, its block-identity file NAME.hqid, its store NAME.hqdb):
// whether one is there. For a recipe's run (`confined`) such a file is read
// only as itself: a link there is refused whatever it points at, and never
// followed, so a recipe bundle cannot lend a trace a file from elsewhere.
#pragma once

#include <string>

namespace heapql {

enum class SideFile { kNone, kFile, kFolder };

// What is at `path`: a regular file, a folder, or nothing heapql opens (a
// FIFO, device or socket is never opened, so looking never blocks). A link
// is followed unless `confined`, which throws Error naming it instead, the
// same for a link to anything or to nothing.
SideFile side_file_at(const std::string& path, bool confined);

// Whether a regular file is at `path` (side_file_at).
inline bool side_file_present(const std::string& path, bool confined) {
  return side_file_at(path, confined) == SideFile::kFile;
}

}  // namespace heapql
