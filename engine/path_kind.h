// What a path names, links followed: the one place heapql tells a file from
// a folder, a pipe or a device (the trace it reads, the files it replaces,
// where a report goes).
#pragma once

#include <string>

namespace heapql {

enum class PathKind {
  kNothing,  // no such path (or it cannot be looked at)
  kFile,     // a regular file
  kFolder,
  kPipe,
  kDevice,  // a character or block device, or a socket
};

PathKind path_kind(const std::string& path);

}  // namespace heapql
