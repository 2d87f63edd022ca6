// heaptrack's numbers are lowercase hex (formats/heaptrack.md §2): the value
// of one digit, or kNotHexDigit. Shared by the reading thread's fast decode
// and the checked field parser, so both accept exactly the same digits.
#pragma once

#include <array>
#include <cstdint>

namespace heapql {

inline constexpr std::uint8_t kNotHexDigit = 0xff;

inline constexpr std::array<std::uint8_t, 256> kHexDigitValue = [] {
  std::array<std::uint8_t, 256> table{};
  table.fill(kNotHexDigit);
  for (int c = '0'; c <= '9'; ++c) table[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) table[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - 'a' + 10);
  return table;
}();

inline std::uint8_t hex_digit(char c) { return kHexDigitValue[static_cast<unsigned char>(c)]; }

}  // namespace heapql
