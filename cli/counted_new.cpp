// The heapql executable's operator new and delete: malloc and free, with
// every byte reported to the run limits, so that a recipe's --memory counts
// what the engine allocates on its behalf (lua/host/run_limits.h). When no
// recipe runs, the cost is one relaxed load per call.
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "engine/platform/aligned_stretch.h"
#include "engine/platform/memory_advice.h"
#include "lua/host/run_limits.h"

namespace {

#ifdef _WIN32
// msvcrt's name for it.
std::size_t malloc_usable_size(void* p) { return _msize(p); }
#endif

// A big block's whole 2 MiB stretches are backed by huge pages where the
// kernel offers them: a table or a column of tens of megabytes is then
// faulted in a 2 MiB page at a time, not 4 KiB (on a virtual machine a
// fault costs microseconds: 90 K of them were a third of a live query).
// No stretch holds bytes of another block, so nothing else is faulted in.
void advise_huge(void* p, std::size_t size) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  if (size < 2 * kHuge) return;
  const heapql::AlignedStretch huge = heapql::whole_units_inside(p, size, kHuge);
  if (huge.bytes != 0) heapql::advise_huge_pages(huge.begin, huge.bytes);
}

void* allocate(std::size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  advise_huge(p, size);
  if (heapql::lua::counting_allocations()) heapql::lua::count_allocation(static_cast<std::int64_t>(malloc_usable_size(p)));
  return p;
}

#ifdef _WIN32

// msvcrt's _aligned_malloc blocks cannot be measured: an aligned block is
// carved out of a counted malloc block, whose address is kept just before it.
void* allocate_aligned(std::size_t size, std::align_val_t alignment) {
  const auto align = std::max(static_cast<std::size_t>(alignment), sizeof(void*));
  auto* base = static_cast<char*>(allocate(size + align + sizeof(void*)));
  void* p = heapql::round_up_to(base + sizeof(void*), align);
  static_cast<void**>(p)[-1] = base;
  return p;
}

#else

void* allocate_aligned(std::size_t size, std::align_val_t alignment) {
  void* p = nullptr;
  const auto align = std::max(static_cast<std::size_t>(alignment), sizeof(void*));
  if (posix_memalign(&p, align, size == 0 ? 1 : size) != 0) throw std::bad_alloc();
  if (heapql::lua::counting_allocations()) heapql::lua::count_allocation(static_cast<std::int64_t>(malloc_usable_size(p)));
  return p;
}

#endif

void release(void* p) noexcept {
  if (p == nullptr) return;
  if (heapql::lua::counting_allocations()) heapql::lua::count_allocation(-static_cast<std::int64_t>(malloc_usable_size(p)));
  std::free(p);
}

#ifdef _WIN32
void release_aligned(void* p, std::align_val_t) noexcept {
  if (p != nullptr) release(static_cast<void**>(p)[-1]);
}
#else
// glibc frees an aligned block as any other.
void release_aligned(void* p, std::align_val_t) noexcept { release(p); }
#endif

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t size, std::align_val_t alignment) { return allocate_aligned(size, alignment); }
void* operator new[](std::size_t size, std::align_val_t alignment) { return allocate_aligned(size, alignment); }

void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::align_val_t alignment) noexcept { release_aligned(p, alignment); }
void operator delete[](void* p, std::align_val_t alignment) noexcept { release_aligned(p, alignment); }
void operator delete(void* p, std::size_t, std::align_val_t alignment) noexcept { release_aligned(p, alignment); }
void operator delete[](void* p, std::size_t, std::align_val_t alignment) noexcept { release_aligned(p, alignment); }
