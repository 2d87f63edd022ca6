// UTF-8 is heapql's one text encoding, inside and out. Windows speaks UTF-16
// ("wide") at its API; these convert at that boundary, once, and nowhere else.
// A path is built from UTF-8 with path_from_utf8 so that a non-ASCII name
// opens the same file on both systems.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace heapql {

// The file system path a UTF-8 name denotes. Throws heapql::Error when the
// name is not valid UTF-8 on Windows (a lossy conversion would open another file).
std::filesystem::path path_from_utf8(std::string_view utf8);
// A path's name as UTF-8, for messages and output.
std::string utf8_from_path(const std::filesystem::path& path);

#ifdef _WIN32
std::wstring wide_from_utf8(std::string_view utf8);  // throws heapql::Error on invalid UTF-8
std::string utf8_from_wide(std::wstring_view wide);  // unpaired surrogates become U+FFFD
#endif

}  // namespace heapql
