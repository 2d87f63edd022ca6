// heapql writes a store or an export database whole, under a temporary
// name, and renames it over the path it was given. A rename replaces
// whatever has that name, so the path must name a file or nothing: as root,
// `-o /dev/null` would otherwise put a regular file where the device was.
#pragma once

#include <string>

namespace heapql {

// Throws Error naming `path` when it names a folder, a device, a pipe or a
// socket (a link is followed).
void check_file_to_replace(const std::string& path);

}  // namespace heapql
