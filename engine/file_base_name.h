// The file name at the end of a path written on Windows or POSIX: image paths
// in ETW events (\Device\HarddiskVolume3\Windows\System32\ntdll.dll), PDB
// names in RSDS records (C:\build\foo.pdb), module paths in an event CSV.
#pragma once

#include <string_view>

namespace heapql {

// The text after the last '\' or '/'; the whole text when there is no
// separator or nothing follows the last one.
inline std::string_view file_base_name(std::string_view path) {
  const std::size_t separator = path.find_last_of("\\/");
  if (separator == std::string_view::npos || separator + 1 == path.size()) return path;
  return path.substr(separator + 1);
}

}  // namespace heapql
