// Sums of sizes, checked. Every byte measure (so, st, the impacting size,
// the outstanding level, the peak) is a sum of block sizes; a hostile or
// corrupt trace (a block of 2^63 bytes, three of 2^62) would make it wrap
// and answer a small, wrong number. No address space holds 2^63 bytes, so a
// sum past 2^63-1 is an error, and what stays under it also fits the signed
// impacting measure and a diff's deltas.
#pragma once

#include <cstdint>
#include <limits>

namespace heapql {

constexpr std::uint64_t kMaxBytes = std::numeric_limits<std::int64_t>::max();

// Throws Error (without a place: the caller's reader or store adds it).
[[noreturn, gnu::cold, gnu::noinline]] void bytes_past_limit();

// A block size or a sum, checked against kMaxBytes.
inline std::uint64_t checked_bytes(std::uint64_t bytes) {
  if (bytes > kMaxBytes) [[unlikely]]
    bytes_past_limit();
  return bytes;
}

// n blocks of `size` bytes.
inline std::uint64_t bytes_times(std::uint64_t n, std::uint64_t size) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(n, size, &product)) [[unlikely]]
    bytes_past_limit();
  return checked_bytes(product);
}

// sum += bytes, both at most kMaxBytes (so the addition cannot wrap).
inline void add_bytes(std::uint64_t& sum, std::uint64_t bytes) { sum = checked_bytes(sum + checked_bytes(bytes)); }

}  // namespace heapql
