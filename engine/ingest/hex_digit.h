// heaptrack's numbers are lowercase hex (formats/heaptrack.md §2): the value
// of one digit, or kNotHexDigit. Shared by the reading thread's fast decode
// and the checked field parser, so both accept exactly the same digits.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

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

// The value of the `digits` (1 to 8) hex digits at `p`, which the caller has
// checked, read as one word: eight bytes from `p` must be readable. A digit
// at a time, the loop's exit mispredicts on numbers of varying length, and a
// trace is nearly all numbers. Inlined: as a call the reading thread's loop
// ran more instructions and mispredicted more branches (docs/one-shot-speed.md).
[[gnu::always_inline]] inline std::uint32_t hex_value(const char* p, unsigned digits) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  // Each byte's digit: its low four bits, plus 9 for 'a'-'f' (bit 6 set).
  std::uint64_t v = (word & 0x0F0F0F0F0F0F0F0Full) + ((word >> 6) & 0x0101010101010101ull) * 9;
  // Little-endian: the first digit is the lowest byte. Drop the bytes past
  // the number, then merge neighbours, the earlier one the higher: each
  // multiply adds a lane's earlier half, shifted up, to its later half, in
  // bits where nothing carries (a pair of digits is at most 0xff).
  v <<= 8 * (8 - digits);
  v = ((v * 0x1001u) >> 8) & 0x00FF00FF00FF00FFull;
  v = ((v * 0x01000001u) >> 16) & 0x0000FFFF0000FFFFull;
  return static_cast<std::uint32_t>((v * 0x0001000000000001ull) >> 32);
}

}  // namespace heapql
