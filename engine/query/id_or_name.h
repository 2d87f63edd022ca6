// How --process and --heap values name a process or heap: its number
// (decimal, or hex with 0x) or its name, case-insensitive.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace heapql {

bool id_or_name_matches(std::string_view wanted, std::uint64_t id, std::string_view name);
// Whether any of `wanted` names it.
bool matches_id_or_name(const std::vector<std::string>& wanted, std::uint64_t id, std::string_view name);

}  // namespace heapql
