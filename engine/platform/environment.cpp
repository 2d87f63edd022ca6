#include "engine/platform/environment.h"

#include <cstdlib>

#ifdef _WIN32
#include "engine/platform/utf8_wide.h"
#endif

namespace heapql {

std::optional<std::string> environment_variable(const std::string& name) {
#ifdef _WIN32
  const wchar_t* value = ::_wgetenv(wide_from_utf8(name).c_str());
  if (value == nullptr) return std::nullopt;
  return utf8_from_wide(value);
#else
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
#endif
}

}  // namespace heapql
