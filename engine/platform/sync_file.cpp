#include "engine/platform/sync_file.h"

#ifdef _WIN32
#include <io.h>
#include <windows.h>

#include <cerrno>

#include "engine/platform/windows_errno.h"
#else
#include <fcntl.h>
#include <unistd.h>
#endif

namespace heapql {

#ifdef _WIN32

int sync_file(int fd) {
  const auto handle = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  if (handle == INVALID_HANDLE_VALUE) {
    errno = EBADF;
    return -1;
  }
  return ::FlushFileBuffers(handle) ? 0 : fail_with_last_windows_error();
}

void start_writeback(int, std::uint64_t, std::uint64_t) {}

void sync_folder(const std::string&) {}

#else

int sync_file(int fd) { return ::fsync(fd); }

void start_writeback(int fd, std::uint64_t offset, std::uint64_t bytes) {
  ::sync_file_range(fd, static_cast<off64_t>(offset), static_cast<off64_t>(bytes), SYNC_FILE_RANGE_WRITE);
}

void sync_folder(const std::string& utf8_folder) {
  const int dir = ::open(utf8_folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

#endif

}  // namespace heapql
