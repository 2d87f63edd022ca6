// An allocator for the big arrays read at random (hash index slots): at 2 MiB
// and more, memory aligned to 2 MiB and advised for transparent huge pages,
// so that probes across tens of megabytes do not each miss the TLB as well
// as the cache. Smaller arrays, and kernels without THP, get ordinary memory.
// Only whole 2 MiB stretches are advised, so no huge page holds bytes past
// the array's end (the hash tables' sizes are powers of two: all of them).
#pragma once

#include <cstddef>
#include <new>

#include "engine/platform/memory_advice.h"

namespace heapql {

template <class T>
class HugePageAllocator {
 public:
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <class U>
  explicit HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes));
    void* p = ::operator new(bytes, std::align_val_t{kHugePage});
    advise_huge_pages(p, bytes / kHugePage * kHugePage);
    return static_cast<T*>(p);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) {
      ::operator delete(p);
    } else {
      ::operator delete(p, std::align_val_t{kHugePage});
    }
  }

  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace heapql
