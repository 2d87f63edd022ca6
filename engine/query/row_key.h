// Rows' rendered keys, compared and matched across results: the key order of
// semantics.md §6 on rendered keys, and an identity string for matching rows
// with equal keys (a recipe's regrouping, a diff's two sides).
#pragma once

#include <string>
#include <vector>

#include "engine/query/result.h"

namespace heapql {

// Level by level; stacks frame by frame with a prefix first; text by its bytes.
bool key_less(const std::vector<KeyValue>& a, const std::vector<KeyValue>& b);

// The key values joined with separators that cannot be confused: equal for
// equal rendered keys, whatever trace or store they came from.
std::string key_identity(const std::vector<KeyValue>& key);

}  // namespace heapql
