// A row's key as a folded stack path: `frame;frame;...`, outermost first
// (grouping levels outermost first, then a stack's frames from the thread's
// entry to the allocating frame), for the single- and two-column folded
// outputs of results and diffs.
#pragma once

#include <string>
#include <vector>

#include "engine/query/result.h"

namespace heapql {

// Empty for an empty key. The format has no quoting: a `;` in a name would
// split a frame and a line break would end the line, so they become `:` and
// a space.
std::string folded_path(const std::vector<KeyValue>& key);

}  // namespace heapql
