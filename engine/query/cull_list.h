// Cull lists (semantics.md §5, §6): reading cull list files and text, and the
// built-in default list of allocator frames. Owns the file format and the
// one reviewed copy of the default patterns; how culling uses them (the
// longest all-matching prefix) belongs to the aggregator.
//
// File format: one frame pattern per line (see frame_pattern.h); leading and
// trailing white space is trimmed; blank lines and lines whose first
// non-blank character is `#` are ignored. A UTF-8 byte order mark at the
// start is skipped.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/query/frame_pattern.h"

namespace heapql {

// Throws heapql::Error naming the file (and the line, for a bad pattern).
FramePatternSet read_cull_list(const std::string& path);

// `name_for_errors` stands in for the file name in error locations.
FramePatternSet parse_cull_list(std::string_view text, const std::string& name_for_errors);

// One entry of the built-in list and why it is there. docs/default-cull-list.md
// lists the same entries, and a test keeps the two equal.
struct DefaultCullEntry {
  std::string_view pattern;
  std::string_view why;
};

std::span<const DefaultCullEntry> default_cull_entries();
const std::vector<std::string>& default_cull_pattern_texts();
const FramePatternSet& default_cull_patterns();
// Names the built-in list and how frames are matched against it, never 0: a
// store's stack view (stack_view.h) answers only a heapql whose fingerprint
// is the one it was made with.
std::uint64_t default_cull_fingerprint();

}  // namespace heapql
