// Whether a file's first bytes are a given magic: how heapql's own binary
// files (a store, a block-identity file) are told from traces.
#pragma once

#include <string>
#include <string_view>

namespace heapql {

// False when the file cannot be opened or is shorter than `magic`.
bool file_begins_with(const std::string& path, std::string_view magic);

}  // namespace heapql
