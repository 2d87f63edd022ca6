#include "engine/platform/memory_advice.h"

#ifndef _WIN32
#include <sys/mman.h>
#endif

#include <cstdint>

#include "engine/platform/aligned_stretch.h"
#include "engine/platform/page_size.h"

namespace heapql {

void advise_huge_pages(void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  ::madvise(p, bytes, MADV_HUGEPAGE);  // a hint: failing is fine
#else
  (void)p;
  (void)bytes;
#endif
}

void advise_populate_write(void* p, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  static const auto page = static_cast<std::uintptr_t>(page_size());
  const AlignedStretch pages = whole_units_inside(p, bytes, page);
  if (pages.bytes != 0) ::madvise(pages.begin, pages.bytes, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace heapql
