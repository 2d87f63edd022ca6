#include "engine/file_to_replace.h"

#include <filesystem>

#include "engine/error.h"

namespace heapql {

void check_file_to_replace(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status) || fs::is_regular_file(status)) return;
  if (fs::is_directory(status)) throw Error(SourceLocation::of_file(path), "is a folder; name a file");
  throw Error(SourceLocation::of_file(path),
              "is a device, pipe or socket, not a file: writing here would replace it; name a file");
}

}  // namespace heapql
