// "Did you mean": the names among a list that a mistyped name most likely
// meant (a recipe, a command, a process or heap of the trace), for messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace heapql {

// Up to `most` of `names`, nearest first: those within a few edits of
// `wanted` (ignoring case; one edit per three characters, at least one), and
// those that contain it or that it contains (a name cut short or run on).
// Empty when none is near.
std::vector<std::string> near_names(std::string_view wanted, const std::vector<std::string>& names,
                                    std::size_t most = 3);

// "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
std::string quoted_alternatives(const std::vector<std::string>& names);

}  // namespace heapql
