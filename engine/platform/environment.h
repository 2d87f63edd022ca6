// An environment variable's value as UTF-8 (Windows keeps the environment in
// UTF-16; getenv there would give the ANSI code page's guess).
#pragma once

#include <optional>
#include <string>

namespace heapql {

// nullopt when it is not set.
std::optional<std::string> environment_variable(const std::string& name);

}  // namespace heapql
