// The line rules that cull lists and suppression files share: a UTF-8 byte
// order mark at the start is skipped, each line is trimmed of blanks, and
// blank lines and `#` comments are skipped. Each remaining line is handed on
// with its 1-based number, for error locations.
#pragma once

#include <cstdint>
#include <string_view>

namespace heapql {

inline bool is_pattern_line_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

template <typename OnLine>  // void(std::string_view line, std::uint64_t line_number)
void for_each_pattern_line(std::string_view text, OnLine&& on_line) {
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (text.starts_with(kByteOrderMark)) text.remove_prefix(kByteOrderMark.size());
  std::uint64_t line_number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++line_number;
    while (!line.empty() && is_pattern_line_blank(line.front())) line.remove_prefix(1);
    while (!line.empty() && is_pattern_line_blank(line.back())) line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    on_line(line, line_number);
  }
}

}  // namespace heapql
