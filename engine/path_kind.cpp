#include "engine/path_kind.h"
#include "engine/platform/utf8_wide.h"

#include <filesystem>

namespace heapql {

PathKind path_kind(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path_from_utf8(path), ec);
  if (!fs::exists(status)) return PathKind::kNothing;
  if (fs::is_regular_file(status)) return PathKind::kFile;
  if (fs::is_directory(status)) return PathKind::kFolder;
  if (fs::is_fifo(status)) return PathKind::kPipe;
  return PathKind::kDevice;
}

}  // namespace heapql
