#include "engine/platform/utf8_wide.h"

#ifdef _WIN32
#include <windows.h>
#endif

#include <climits>

#include "engine/error.h"

namespace heapql {

#ifdef _WIN32

std::wstring wide_from_utf8(std::string_view utf8) {
  if (utf8.empty()) return {};
  if (utf8.size() > static_cast<std::size_t>(INT_MAX)) throw Error("text too long to convert to UTF-16");
  const int size = static_cast<int>(utf8.size());
  const int wide_size = ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8.data(), size, nullptr, 0);
  if (wide_size <= 0) throw Error(std::string("not valid UTF-8: '") + std::string(utf8) + "'");
  std::wstring wide(static_cast<std::size_t>(wide_size), L'\0');
  ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8.data(), size, wide.data(), wide_size);
  return wide;
}

std::string utf8_from_wide(std::wstring_view wide) {
  if (wide.empty()) return {};
  if (wide.size() > static_cast<std::size_t>(INT_MAX)) throw Error("text too long to convert to UTF-8");
  const int size = static_cast<int>(wide.size());
  const int utf8_size = ::WideCharToMultiByte(CP_UTF8, 0, wide.data(), size, nullptr, 0, nullptr, nullptr);
  std::string utf8(static_cast<std::size_t>(utf8_size > 0 ? utf8_size : 0), '\0');
  if (utf8_size > 0) ::WideCharToMultiByte(CP_UTF8, 0, wide.data(), size, utf8.data(), utf8_size, nullptr, nullptr);
  return utf8;
}

std::filesystem::path path_from_utf8(std::string_view utf8) { return std::filesystem::path(wide_from_utf8(utf8)); }

std::string utf8_from_path(const std::filesystem::path& path) { return utf8_from_wide(path.native()); }

#else

// On Linux a path is its bytes; UTF-8 or not, they name the file.
std::filesystem::path path_from_utf8(std::string_view utf8) { return std::filesystem::path(std::string(utf8)); }

std::string utf8_from_path(const std::filesystem::path& path) { return path.native(); }

#endif

}  // namespace heapql
