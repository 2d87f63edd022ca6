// Where the running program's file is, to find what ships beside it (the
// queries/ folder).
#pragma once

#include <filesystem>
#include <optional>

namespace heapql {

// Linux: /proc/self/exe's target; Windows: GetModuleFileNameW of the exe.
// Empty when the system does not say.
std::optional<std::filesystem::path> program_path();

}  // namespace heapql
