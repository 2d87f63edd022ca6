// Unsigned LEB128 numbers: 7 bits a byte, low bits first, the top bit set on
// every byte but the last. Used where most numbers are small (the block
// identity file, the live journal's bucket sums).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace heapql {

inline constexpr std::size_t kMaxVarintBytes = 10;

inline void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Reads one at `at`, moving it past; false when the bytes end inside it or
// it does not fit 64 bits (`at` is then where it went wrong).
inline bool take_varint(std::string_view bytes, std::size_t& at, std::uint64_t& v) {
  v = 0;
  for (std::size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (at >= bytes.size()) return false;
    const auto byte = static_cast<std::uint8_t>(bytes[at]);
    if (i == kMaxVarintBytes - 1 && byte > 1) return false;
    ++at;
    v |= std::uint64_t{byte & 0x7Fu} << (7 * i);
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

inline std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

}  // namespace heapql
