// The files heapql reads beside a trace without being told to (its raw or
// interpreted twin, its block-identity file NAME.hqid, its store NAME.hqdb):
// whether one is there. For a recipe's run (`confined`) such a file is read
// only as itself: a link there is refused whatever it points at, and never
// followed, so a recipe bundle cannot lend a trace a file from elsewhere.
#pragma once

#include <string>

namespace heapql {

// Whether a regular file is at `path` (a FIFO, device or folder is not one:
// it is never opened). A link is followed unless `confined`, which throws
// Error naming it instead, the same for a link to anything or to nothing.
bool side_file_present(const std::string& path, bool confined);

}  // namespace heapql
