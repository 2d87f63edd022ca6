#include "engine/platform/temporary_file.h"

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <atomic>
#include <cerrno>
#include <chrono>

#include "engine/error.h"
#include "engine/platform/utf8_wide.h"
#include "engine/platform/windows_errno.h"
#else
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#endif

namespace heapql {

#ifdef _WIN32

namespace {

// Six characters not yet tried in this process: the time, a counter and the
// process id stirred, in letters and digits (case-insensitive names: lowercase only).
void fill_unique(std::string& name, std::size_t at) {
  static std::atomic<std::uint64_t> counter{0};
  std::uint64_t x = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                    (counter.fetch_add(1) * 0x9e3779b97f4a7c15ull) ^ (std::uint64_t{::GetCurrentProcessId()} << 40);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  static constexpr char kDigits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (std::size_t i = 0; i < 6; ++i, x /= 36) name[at + i] = kDigits[x % 36];
}

bool x_placeholder_at(const std::string& name, int suffix_length, std::size_t& at) {
  if (suffix_length < 0 || name.size() < static_cast<std::size_t>(suffix_length) + 6) return false;
  at = name.size() - static_cast<std::size_t>(suffix_length) - 6;
  return name.compare(at, 6, "XXXXXX") == 0;
}

// The C runtime's descriptor of a new file's handle, binary, not inherited;
// -1 with errno set (the handle closed) when the table is full.
int descriptor_of(HANDLE handle) {
  const int fd = ::_open_osfhandle(reinterpret_cast<intptr_t>(handle), _O_BINARY | _O_NOINHERIT);
  if (fd < 0) {
    ::CloseHandle(handle);
    errno = EMFILE;
  }
  return fd;
}

// A new file of that name, shared as open_file shares files: its descriptor,
// or -1 with errno set (EEXIST when the name is taken).
int create_new_file(const std::string& utf8_name, DWORD access, DWORD attributes) {
  std::wstring wide;
  try {
    wide = wide_from_utf8(utf8_name);
  } catch (const Error&) {
    errno = ENOENT;
    return -1;
  }
  const HANDLE handle = ::CreateFileW(wide.c_str(), access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                      nullptr, CREATE_NEW, attributes, nullptr);
  if (handle == INVALID_HANDLE_VALUE) {
    if (::GetLastError() == ERROR_FILE_EXISTS) {
      errno = EEXIST;
      return -1;
    }
    return fail_with_last_windows_error();
  }
  return descriptor_of(handle);
}

}  // namespace

int create_unique_file(std::string& utf8_template, int suffix_length) {
  std::size_t at = 0;
  if (!x_placeholder_at(utf8_template, suffix_length, at)) {
    errno = EINVAL;
    return -1;
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    fill_unique(utf8_template, at);
    // DELETE access, for delete_when_closed.
    const int fd = create_new_file(utf8_template, GENERIC_READ | GENERIC_WRITE | DELETE, FILE_ATTRIBUTE_NORMAL);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

bool delete_when_closed(int fd, bool yes) {
  const auto handle = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  FILE_DISPOSITION_INFO disposition{};
  disposition.DeleteFile = yes ? TRUE : FALSE;
  if (handle == INVALID_HANDLE_VALUE ||
      !::SetFileInformationByHandle(handle, FileDispositionInfo, &disposition, sizeof disposition)) {
    fail_with_last_windows_error();
    return false;
  }
  return true;
}

int create_scratch_file(const std::string& utf8_folder) {
  std::string name = utf8_folder + "/.heapql-scratch-XXXXXX";
  for (int attempt = 0; attempt < 100; ++attempt) {
    fill_unique(name, name.size() - 6);
    const int fd = create_new_file(name, GENERIC_READ | GENERIC_WRITE, FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}
#else

int create_unique_file(std::string& utf8_template, int suffix_length) {
  return ::mkostemps(utf8_template.data(), suffix_length, O_CLOEXEC);
}

int create_scratch_file(const std::string& utf8_folder) {
  int fd = ::open(utf8_folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = utf8_folder + "/.heapql-scratch-XXXXXX";
  fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(name.c_str());
  return fd;
}

#endif

}  // namespace heapql
