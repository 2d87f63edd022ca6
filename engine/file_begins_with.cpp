#include "engine/file_begins_with.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace heapql {

bool file_begins_with(const std::string& path, std::string_view magic) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::string head(magic.size(), '\0');
  const ssize_t got = ::pread(fd, head.data(), head.size(), 0);
  ::close(fd);
  return got == static_cast<ssize_t>(head.size()) && head == magic;
}

}  // namespace heapql
