#include "engine/platform/open_file.h"

#ifdef _WIN32
#include <io.h>
#include <windows.h>
#else
#include <unistd.h>
#endif

#include <cerrno>

#include "engine/error.h"
#include "engine/platform/utf8_wide.h"
#include "engine/platform/windows_errno.h"

namespace heapql {

#ifdef _WIN32

namespace {

// A name that is not UTF-8 names no file: ENOENT, as a missing one.
bool wide_name(const std::string& utf8_path, std::wstring& wide) {
  try {
    wide = wide_from_utf8(utf8_path);
    return true;
  } catch (const Error&) {
    errno = ENOENT;
    return false;
  }
}

DWORD creation_of(int flags) {
  if ((flags & O_CREAT) != 0 && (flags & O_EXCL) != 0) return CREATE_NEW;
  if ((flags & O_CREAT) != 0) return (flags & O_TRUNC) != 0 ? CREATE_ALWAYS : OPEN_ALWAYS;
  return (flags & O_TRUNC) != 0 ? TRUNCATE_EXISTING : OPEN_EXISTING;
}

}  // namespace

int open_file(const std::string& utf8_path, int flags, int mode) {
  std::wstring wide;
  if (!wide_name(utf8_path, wide)) return -1;
  const int access_mode = flags & (O_RDONLY | O_WRONLY | O_RDWR);
  const DWORD access = access_mode == O_WRONLY ? GENERIC_WRITE
                       : access_mode == O_RDWR ? GENERIC_READ | GENERIC_WRITE
                                               : GENERIC_READ;
  const DWORD attributes = (mode & 0200) == 0 && (flags & O_CREAT) != 0 ? FILE_ATTRIBUTE_READONLY : FILE_ATTRIBUTE_NORMAL;
  // Shared for reading, writing and deleting, as any file is on Linux: another
  // heapql may rename a new store over one this one reads. Not inherited.
  const HANDLE handle = ::CreateFileW(wide.c_str(), access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                      nullptr, creation_of(flags), attributes, nullptr);
  if (handle == INVALID_HANDLE_VALUE) {
    const DWORD error = ::GetLastError();
    const DWORD found = ::GetFileAttributesW(wide.c_str());
    // A folder opens on Linux (and fails at its first read): say what that says.
    errno = error == ERROR_ACCESS_DENIED && found != INVALID_FILE_ATTRIBUTES && (found & FILE_ATTRIBUTE_DIRECTORY) != 0
                ? EISDIR
                : errno_from_windows_error(error);
    return -1;
  }
  const int fd = ::_open_osfhandle(reinterpret_cast<intptr_t>(handle),
                                   _O_BINARY | _O_NOINHERIT | (access_mode == O_RDONLY ? _O_RDONLY : 0) |
                                       (flags & O_APPEND));
  if (fd < 0) {
    ::CloseHandle(handle);
    errno = EMFILE;
  }
  return fd;
}

std::FILE* open_stdio_file(const std::string& utf8_path, const char* mode) {
  std::wstring wide;
  if (!wide_name(utf8_path, wide)) return nullptr;
  std::wstring wide_mode;
  for (const char* c = mode; *c != '\0'; ++c) {
    if (*c != 'b' && *c != 't') wide_mode.push_back(static_cast<wchar_t>(*c));
  }
  wide_mode += L"b";
  return ::_wfopen(wide.c_str(), wide_mode.c_str());
}

int close_file(int fd) { return ::_close(fd); }

#else

int open_file(const std::string& utf8_path, int flags, int mode) {
  return ::open(utf8_path.c_str(), flags | O_CLOEXEC, mode);
}

std::FILE* open_stdio_file(const std::string& utf8_path, const char* mode) {
  return std::fopen(utf8_path.c_str(), mode);
}

int close_file(int fd) { return ::close(fd); }

#endif

}  // namespace heapql
