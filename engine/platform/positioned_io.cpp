#include "engine/platform/positioned_io.h"

#ifdef _WIN32
#include <io.h>
#include <windows.h>

#include "engine/platform/windows_errno.h"
#else
#include <unistd.h>
#endif

#include <algorithm>
#include <cerrno>
#include <climits>

namespace heapql {

#ifdef _WIN32

namespace {

// ReadFile and WriteFile with an offset move a synchronous handle's position:
// it is put back, so that a write_at between two sequential writes does not
// move where the next one goes, as pwrite does not.
template <class Transfer>
std::int64_t transfer_at(int fd, std::size_t n, std::uint64_t offset, Transfer transfer) {
  const auto handle = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  if (handle == INVALID_HANDLE_VALUE) {
    errno = EBADF;
    return -1;
  }
  LARGE_INTEGER zero{}, position{};
  if (!::SetFilePointerEx(handle, zero, &position, FILE_CURRENT)) return fail_with_last_windows_error();
  OVERLAPPED at{};
  at.Offset = static_cast<DWORD>(offset);
  at.OffsetHigh = static_cast<DWORD>(offset >> 32);
  DWORD done = 0;
  const auto chunk = static_cast<DWORD>(std::min<std::size_t>(n, 1u << 30));
  const bool ok = transfer(handle, chunk, &done, &at);
  const DWORD error = ::GetLastError();
  ::SetFilePointerEx(handle, position, nullptr, FILE_BEGIN);
  if (!ok) {
    if (error == ERROR_HANDLE_EOF) return 0;
    errno = errno_from_windows_error(error);
    return -1;
  }
  return done;
}

}  // namespace

std::int64_t read_at(int fd, void* into, std::size_t n, std::uint64_t offset) {
  return transfer_at(fd, n, offset, [into](HANDLE h, DWORD chunk, DWORD* done, OVERLAPPED* at) {
    return ::ReadFile(h, into, chunk, done, at) != 0;
  });
}

std::int64_t write_at(int fd, const void* from, std::size_t n, std::uint64_t offset) {
  return transfer_at(fd, n, offset, [from](HANDLE h, DWORD chunk, DWORD* done, OVERLAPPED* at) {
    return ::WriteFile(h, from, chunk, done, at) != 0;
  });
}

std::int64_t write_some(int fd, const void* from, std::size_t n) {
  return ::_write(fd, from, static_cast<unsigned>(std::min<std::size_t>(n, INT_MAX)));
}

std::int64_t read_some(int fd, void* into, std::size_t n) {
  return ::_read(fd, into, static_cast<unsigned>(std::min<std::size_t>(n, INT_MAX)));
}

#else

std::int64_t read_at(int fd, void* into, std::size_t n, std::uint64_t offset) {
  for (;;) {
    const ssize_t got = ::pread(fd, into, n, static_cast<off_t>(offset));
    if (got >= 0 || errno != EINTR) return got;
  }
}

std::int64_t write_at(int fd, const void* from, std::size_t n, std::uint64_t offset) {
  for (;;) {
    const ssize_t put = ::pwrite(fd, from, n, static_cast<off_t>(offset));
    if (put >= 0 || errno != EINTR) return put;
  }
}

std::int64_t write_some(int fd, const void* from, std::size_t n) {
  for (;;) {
    const ssize_t put = ::write(fd, from, n);
    if (put >= 0 || errno != EINTR) return put;
  }
}

std::int64_t read_some(int fd, void* into, std::size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd, into, n);
    if (got >= 0 || errno != EINTR) return got;
  }
}

#endif

bool read_all_at(int fd, void* into, std::size_t n, std::uint64_t offset) {
  auto* to = static_cast<char*>(into);
  while (n > 0) {
    const std::int64_t got = read_at(fd, to, n, offset);
    if (got <= 0) return false;
    to += got, offset += static_cast<std::uint64_t>(got), n -= static_cast<std::size_t>(got);
  }
  return true;
}

}  // namespace heapql
