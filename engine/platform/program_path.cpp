#include "engine/platform/program_path.h"

#ifdef _WIN32
#include <windows.h>

#include <string>
#endif

namespace heapql {

#ifdef _WIN32
std::optional<std::filesystem::path> program_path() {
  std::wstring name(MAX_PATH, L'\0');
  for (;;) {
    const DWORD length = ::GetModuleFileNameW(nullptr, name.data(), static_cast<DWORD>(name.size()));
    if (length == 0) return std::nullopt;
    if (length < name.size()) {
      name.resize(length);
      return std::filesystem::path(name);
    }
    if (name.size() >= 32768) return std::nullopt;  // longer than any Windows path
    name.resize(name.size() * 2);
  }
}
#else
std::optional<std::filesystem::path> program_path() {
  std::error_code error;
  std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  return program;
}
#endif

}  // namespace heapql
