#include "engine/platform/page_size.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <unistd.h>
#endif

namespace heapql {

std::size_t page_size() {
#ifdef _WIN32
  static const std::size_t size = [] {
    SYSTEM_INFO info{};
    ::GetSystemInfo(&info);
    return static_cast<std::size_t>(info.dwPageSize);
  }();
#else
  static const auto size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
#endif
  return size;
}

}  // namespace heapql
