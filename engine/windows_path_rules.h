// The names Windows reads as something other than a file beneath a folder,
// which have no business in a recipe's path: device and NT namespaces
// (\\?\, \\.\, \??\), UNC shares, a drive's own working directory (C:foo),
// alternate data streams (file.lua:stream), reserved device names (CON,
// NUL.txt), and names Windows trims (a trailing dot or space). Plain string
// rules, so that they are tested on every system; the sandbox applies them
// on Windows only (on Linux `con.lua` is an ordinary name).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace heapql {

inline bool is_windows_separator(char c) { return c == '\\' || c == '/'; }

// How a path starts, as Windows reads it.
enum class WindowsPathForm {
  kPlain,          // a drive's absolute path (C:\x), from the current drive's root (\x), or relative (x)
  kUnc,            // \\server\share\x
  kDevice,         // \\?\C:\x, \\.\C:\x, \\.\pipe\x: the device namespaces, which skip Windows' own checks
  kNtObject,       // \??\C:\x
  kDriveRelative,  // C:x, relative to the working folder Windows keeps for that drive
};
WindowsPathForm windows_path_form(std::string_view path);

// Why `path` as a whole is refused ("a UNC path", "a drive-relative path",
// ...), or "" when its form is kPlain.
std::string windows_path_form_refusal(std::string_view path);

// Why one component of a path is refused ("a reserved device name", "an
// alternate data stream", a wildcard or control character, ...), or "".
// "." and ".." are plain.
std::string windows_name_refusal(std::string_view name);

// The first refusal of either kind for `path` and each of its components, or "".
std::string windows_path_refusal(std::string_view path);

// Whether `name` is one of the names Windows opens as a device in any
// folder: CON, PRN, AUX, NUL, COM0-9, LPT0-9 (and their superscript-digit
// forms), CONIN$, CONOUT$, case-insensitively, with or without an extension
// or trailing spaces before it ("nul.txt", "Con .lua").
bool is_windows_device_name(std::string_view name);

// `path` split at both separators, empty and "." components dropped, ".."
// kept. A path that starts with a drive ("C:\x", "C:x") has "C:" first; one
// that starts with two separators keeps them, and the next two components,
// as its first ("\\server\share", "\\?\C:"), so that no such prefix can
// look like a drive's path.
std::vector<std::string> windows_path_components(std::string_view path);

// Whether two names are the same to NTFS, which compares case-insensitively
// (ASCII folding here; the Windows build compares with the system's own
// upper-case table through CompareStringOrdinal).
bool same_windows_name(std::string_view a, std::string_view b);

}  // namespace heapql
