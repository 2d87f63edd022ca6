#include "engine/platform/file_lock.h"

#ifdef _WIN32
#include <io.h>
#include <windows.h>
#else
#include <sys/file.h>
#endif

#include <cerrno>

#include "engine/platform/open_file.h"

namespace heapql {

#ifdef _WIN32

namespace {

// The locked byte: past the end of any file heapql writes.
constexpr DWORD kLockedByteHigh = 0x7FFFFFFF;

bool lock(int fd, DWORD flags) {
  const HANDLE handle = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  if (handle == INVALID_HANDLE_VALUE) return false;
  OVERLAPPED at{};
  at.OffsetHigh = kLockedByteHigh;
  return ::LockFileEx(handle, flags | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at) != 0;
}

void unlock(int fd) {
  const HANDLE handle = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  if (handle == INVALID_HANDLE_VALUE) return;
  OVERLAPPED at{};
  at.OffsetHigh = kLockedByteHigh;
  ::UnlockFileEx(handle, 0, 1, 0, &at);
}

}  // namespace

bool lock_file_exclusively(int fd) { return lock(fd, LOCKFILE_EXCLUSIVE_LOCK); }

void unlock_file(int fd) { unlock(fd); }

bool file_lock_is_held(const std::string& utf8_path) {
  const int fd = open_file(utf8_path, O_RDONLY);
  if (fd < 0) return false;
  const bool taken = lock(fd, 0);
  if (taken) unlock(fd);
  close_file(fd);
  return !taken;
}

#else

bool lock_file_exclusively(int fd) {
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

void unlock_file(int fd) { ::flock(fd, LOCK_UN); }

bool file_lock_is_held(const std::string& utf8_path) {
  const int fd = open_file(utf8_path, O_RDONLY);
  if (fd < 0) return false;
  int status = 0;
  while ((status = ::flock(fd, LOCK_SH | LOCK_NB)) != 0 && errno == EINTR) {
  }
  const bool held = status != 0 && errno == EWOULDBLOCK;
  if (status == 0) ::flock(fd, LOCK_UN);
  close_file(fd);
  return held;
}

#endif

}  // namespace heapql
