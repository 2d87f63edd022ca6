// The virtual memory page size (4 KiB on x86-64 Linux and Windows alike; asked, not assumed).
#pragma once

#include <cstddef>

namespace heapql {

std::size_t page_size();

}  // namespace heapql
