#include "engine/file_begins_with.h"

#include <string>

#include "engine/platform/open_file.h"
#include "engine/platform/positioned_io.h"

namespace heapql {

bool file_begins_with(const std::string& path, std::string_view magic) {
  const int fd = open_file(path, O_RDONLY);
  if (fd < 0) return false;
  std::string head(magic.size(), '\0');
  const std::int64_t got = read_at(fd, head.data(), head.size(), 0);
  close_file(fd);
  return got == static_cast<std::int64_t>(head.size()) && head == magic;
}

}  // namespace heapql
