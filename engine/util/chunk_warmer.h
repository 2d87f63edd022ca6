// Memory for the big chunks of the tables that grow while a trace streams
// in, its pages faulted in ahead on a thread of its own. A read's parser is
// the wall of a one-shot query, and first touching the pages of its tables
// (a kernel fault every 4 KiB: a tenth of its time on a trace with millions
// of stacks) is work that needs none of its data: the warmer keeps three
// chunks of each size in use ready, so the parser takes pages already in
// place.
#pragma once

#include <cstddef>

namespace heapql {

// A chunk of `bytes` bytes from ::operator new (freed with ::operator
// delete), its pages already in place when one was ready; asks for the next.
void* take_warm_chunk(std::size_t bytes);

}  // namespace heapql
