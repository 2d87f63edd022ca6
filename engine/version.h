// heapql's version: CMakeLists.txt's project(VERSION) is the one place it is
// written; engine/version.cpp is compiled with it, and `heapql --version` and
// the Lua module's hq.version read it from here.
#pragma once

#include <string_view>

namespace heapql {

std::string_view version();

}  // namespace heapql
