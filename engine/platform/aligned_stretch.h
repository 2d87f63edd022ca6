// Address arithmetic for memory hints and aligned carving: rounding an
// address to a power-of-two boundary, and the whole aligned stretch (pages,
// huge pages) inside a block of memory.
#pragma once

#include <cstddef>
#include <cstdint>

namespace heapql {

// `at` rounded up to a multiple of `alignment`, a power of two.
inline std::uintptr_t round_up_to(std::uintptr_t at, std::uintptr_t alignment) {
  return (at + alignment - 1) & ~(alignment - 1);
}

template <class T = void>
T* round_up_to(void* at, std::uintptr_t alignment) {
  return reinterpret_cast<T*>(round_up_to(reinterpret_cast<std::uintptr_t>(at), alignment));
}

// The whole `unit`-aligned units inside [p, p + bytes): a hint given for
// them touches no byte outside the block. Empty (bytes 0) when none fits.
struct AlignedStretch {
  void* begin = nullptr;
  std::size_t bytes = 0;
};

inline AlignedStretch whole_units_inside(void* p, std::size_t bytes, std::uintptr_t unit) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = round_up_to(at, unit);
  const std::uintptr_t end = (at + bytes) & ~(unit - 1);
  if (end <= begin) return {};
  return {reinterpret_cast<void*>(begin), static_cast<std::size_t>(end - begin)};
}

}  // namespace heapql
