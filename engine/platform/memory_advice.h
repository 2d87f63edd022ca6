// Hints to the kernel about memory heapql is about to use; each may do
// nothing (an older kernel; Windows, where the hint does not exist:
// large pages there need a privilege users do not have, and pages are
// faulted in on first touch), and never changes a result.
#pragma once

#include <cstddef>

namespace heapql {

// Back whole 2 MiB stretches of [p, p + bytes) with transparent huge pages.
void advise_huge_pages(void* p, std::size_t bytes);
// Fault in the whole pages of [p, p + bytes) writable now, in one call.
void advise_populate_write(void* p, std::size_t bytes);

}  // namespace heapql
