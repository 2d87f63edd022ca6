// One CSV field, RFC 4180: quoted when it holds a comma, a quote or a line
// break; for the result, diff and export CSV writers.
#pragma once

#include <string>
#include <string_view>

namespace heapql {

// Whether `text` needs quotes. A loop of its own: find_first_of calls
// memchr over the set for each character, a large share of a long CSV's
// time (docs/one-shot-speed.md).
inline bool csv_needs_quotes(std::string_view text) {
  for (const char c : text) {
    if (c == ',' || c == '"' || c == '\r' || c == '\n') return true;
  }
  return false;
}

inline void append_csv_field(std::string& out, std::string_view text) {
  if (!csv_needs_quotes(text)) {
    out.append(text);
    return;
  }
  out.push_back('"');
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

inline std::string csv_field(std::string_view text) {
  std::string out;
  append_csv_field(out, text);
  return out;
}

}  // namespace heapql
