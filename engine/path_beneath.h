// Where a path leads when it may not leave a folder: the path is walked
// component by component from the folder, as openat2 with RESOLVE_BENEATH
// walks it, so the answer never depends on what lies outside the folder.
// A link beneath the folder is followed while it stays beneath (a relative
// one, or an absolute one into the folder itself); `..` may not climb above
// the folder; a link that leaves it, or a chain of more than 40 links,
// refuses the whole path, whether or not its target exists.
#pragma once

#include <optional>
#include <string>

namespace heapql {

// `folder` and `path` are absolute; `folder` is taken as it is (its own
// path may hold links, chosen by whoever named it). Returns the path with
// every link beneath the folder resolved (a missing component ends the walk:
// what is left is appended as written), or nullopt when `path` does not
// start with `folder` or leads out of it. Only a regular file, a folder or
// a missing name may end the path (never a FIFO, device or socket).
std::optional<std::string> resolve_beneath(const std::string& folder, const std::string& path);

// The path made absolute against the working directory, with "." and empty
// components dropped and nothing else resolved: `..` and links stay, as the
// kernel would walk them.
std::string absolute_as_given(const std::string& path);

}  // namespace heapql
