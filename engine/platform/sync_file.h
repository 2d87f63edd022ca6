// Making written bytes durable before a rename publishes them.
#pragma once

#include <string>

namespace heapql {

// fsync(2); on Windows FlushFileBuffers. 0, or -1 with errno set.
int sync_file(int fd);
// The folder's entries (a rename just made in it) synced, best effort. On
// Windows nothing: a folder cannot be opened for flushing, and NTFS journals
// its entries itself.
void sync_folder(const std::string& utf8_folder);

}  // namespace heapql
