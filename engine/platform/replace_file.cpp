#include "engine/platform/replace_file.h"

#ifdef _WIN32
#include <windows.h>

#include <cerrno>

#include "engine/error.h"
#include "engine/platform/utf8_wide.h"
#include "engine/platform/windows_errno.h"
#else
#include <cstdio>

#include <unistd.h>
#endif

namespace heapql {

#ifdef _WIN32

int rename_replacing(const std::string& utf8_from, const std::string& utf8_to) {
  try {
    const std::wstring from = wide_from_utf8(utf8_from);
    const std::wstring to = wide_from_utf8(utf8_to);
    return ::MoveFileExW(from.c_str(), to.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)
               ? 0
               : fail_with_last_windows_error();
  } catch (const Error&) {
    errno = ENOENT;
    return -1;
  }
}

int remove_file(const std::string& utf8_path) {
  try {
    return ::DeleteFileW(wide_from_utf8(utf8_path).c_str()) ? 0 : fail_with_last_windows_error();
  } catch (const Error&) {
    errno = ENOENT;
    return -1;
  }
}

#else

int rename_replacing(const std::string& utf8_from, const std::string& utf8_to) {
  return std::rename(utf8_from.c_str(), utf8_to.c_str());
}

int remove_file(const std::string& utf8_path) { return ::unlink(utf8_path.c_str()); }

#endif

}  // namespace heapql
