// How many bits of a word are set, for the loops that count once per event
// or per bucket (dense numbering, runs of ids). std::popcount compiles to a
// call into libgcc when the target may lack the POPCNT instruction, as a
// packager's generic x86-64 build does; the same bit trick inline saves the
// call.
#pragma once

#include <bit>
#include <cstdint>

namespace heapql {

inline std::uint32_t count_set_bits(std::uint64_t x) {
#if defined(__x86_64__) && !defined(__POPCNT__)
  x -= (x >> 1) & 0x5555555555555555u;
  x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Fu;
  return static_cast<std::uint32_t>((x * 0x0101010101010101u) >> 56);
#else
  return static_cast<std::uint32_t>(std::popcount(x));
#endif
}

}  // namespace heapql
