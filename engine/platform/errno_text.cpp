#include "engine/platform/errno_text.h"

#include <system_error>

namespace heapql {

// generic_category: errno values. (On Windows system_category is for Win32
// codes, and read ENOENT as "File not found", EISDIR as "Not ready".)
std::string errno_text(int error) { return std::generic_category().message(error); }

}  // namespace heapql
