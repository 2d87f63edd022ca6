#include "engine/query/id_or_name.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace heapql {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

std::optional<std::uint64_t> parse_number(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

bool id_or_name_matches(std::string_view wanted, std::uint64_t id, std::string_view name) {
  if (auto n = parse_number(wanted); n && *n == id) return true;
  return iequals(wanted, name);
}

bool matches_id_or_name(const std::vector<std::string>& wanted, std::uint64_t id, std::string_view name) {
  for (const std::string& w : wanted) {
    if (id_or_name_matches(w, id, name)) return true;
  }
  return false;
}

}  // namespace heapql
