// One CSV field, RFC 4180: quoted when it holds a comma, a quote or a line
// break; for the result, diff and export CSV writers.
#pragma once

#include <string>
#include <string_view>

namespace heapql {

inline void append_csv_field(std::string& out, std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
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
