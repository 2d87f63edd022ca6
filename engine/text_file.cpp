#include "engine/text_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <system_error>

#include "engine/error.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/open_file.h"

namespace heapql {

std::string read_text_file(const std::string& path, std::string_view what, std::uint64_t max_bytes) {
  const SourceLocation where = SourceLocation::of_file(path);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(open_stdio_file(path, "rb"), &std::fclose);
  if (!file) throw Error(where, fmt::format("cannot open {}: {}", what, errno_text(errno)));
  std::string text;
  char buffer[64 * 1024];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, file.get())) {
    if (text.size() + n > max_bytes) throw Error(where, fmt::format("{} is larger than {} bytes", what, max_bytes));
    text.append(buffer, n);
  }
  if (std::ferror(file.get())) {
    throw Error(where, fmt::format("cannot read {}: {}", what, errno_text(errno)));
  }
  return text;
}

}  // namespace heapql
