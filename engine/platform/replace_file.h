// Renaming a file over another atomically: how every file heapql writes is
// published (a reader sees the old file or the new, never half of one).
#pragma once

#include <string>

namespace heapql {

// rename(2); on Windows MoveFileExW with MOVEFILE_REPLACE_EXISTING (plain
// rename refuses an existing target there). 0, or -1 with errno set.
int rename_replacing(const std::string& utf8_from, const std::string& utf8_to);
// unlink(2); on Windows DeleteFileW. 0, or -1 with errno set.
int remove_file(const std::string& utf8_path);

}  // namespace heapql
