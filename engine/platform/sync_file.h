// Making written bytes durable before a rename publishes them.
#pragma once

#include <cstdint>
#include <string>

namespace heapql {

// fsync(2); on Windows FlushFileBuffers. 0, or -1 with errno set.
int sync_file(int fd);
// Asks the system to start writing [offset, offset + bytes) of the file to
// its disk now, without waiting (sync_file_range's SYNC_FILE_RANGE_WRITE):
// a later sync_file then waits only for what is left. A hint: nothing on
// Windows, and a refusal is ignored (sync_file still makes it durable).
void start_writeback(int fd, std::uint64_t offset, std::uint64_t bytes);
// The folder's entries (a rename just made in it) synced, best effort. On
// Windows nothing: a folder cannot be opened for flushing, and NTFS journals
// its entries itself.
void sync_folder(const std::string& utf8_folder);

}  // namespace heapql
