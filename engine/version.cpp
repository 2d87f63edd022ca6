#include "engine/version.h"

namespace heapql {

// HEAPQL_VERSION comes from CMake (this file's compile definition), so no
// other object is rebuilt when the version changes.
std::string_view version() { return HEAPQL_VERSION; }

}  // namespace heapql
