// What the result and diff tables share: a window as they show it, and a
// row's key: the non-stack levels joined with " > ", then the stack's frames
// one per line (at most kFramesShown), indented past the measure columns.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/query/result.h"

namespace heapql {

constexpr std::size_t kFramesShown = 16;

// "1s..3s", "0s..end".
std::string window_text(const TimeWindow& window);

// Appends the key (from its first line's text on) and its frame lines.
void append_table_key(std::string& out, const std::vector<KeyValue>& key, std::size_t indent);

}  // namespace heapql
