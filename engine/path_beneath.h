// Where a path leads when it may not leave a folder: the path is walked
// component by component from the folder, as openat2 with RESOLVE_BENEATH
// walks it, so the answer never depends on what lies outside the folder.
// A link beneath the folder is followed while it stays beneath (a relative
// one, or an absolute one into the folder itself); `..` may not climb above
// the folder; a link that leaves it, or a chain of more than 40 links,
// refuses the whole path, whether or not its target exists.
//
// On Windows (docs/windows.md, "Recipes and the sandbox") the same walk runs
// with handles: each component is opened without following reparse points
// (FILE_FLAG_OPEN_REPARSE_POINT), a symbolic link's or junction's target is
// read and walked as a Linux link's is, and the final path of every handle
// (GetFinalPathNameByHandleW) must lie beneath the folder's own final path,
// compared as NTFS compares names; device and NT namespaces (\\?\, \\.\),
// drive-relative paths, streams, device names and names Windows trims are
// refused (engine/windows_path_rules.h).
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
// On Windows: with `\` between components, a drive first; device, NT and
// drive-relative paths are returned as given (never beneath any folder).
std::string absolute_as_given(const std::string& path);

// The folder with every link in its own path resolved (fs::canonical; on
// Windows the final path of its handle), or nullopt when it cannot be opened.
std::optional<std::string> canonical_folder(const std::string& folder);

// Whether something is at `path` that is not a regular file reached without
// any link: a link, folder, FIFO or device (lstat's answer; on Windows a
// reparse point, folder or device, or a file whose final path is not the
// path itself, which a link the system follows unseen led to). Nothing
// there: false.
bool is_there_but_not_a_plain_file(const std::string& path);

}  // namespace heapql
