// zstd's memory through operator new, as the rest of the engine allocates,
// so that whatever counts the engine's memory (a recipe's --memory) counts
// every zstd context too (line_reader.cpp routes zstd and zlib the same way).
#pragma once

#ifndef ZSTD_STATIC_LINKING_ONLY
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_createDCtx_advanced (custom allocators)
#endif
#include <zstd.h>

#include <new>

namespace heapql {

inline ZSTD_customMem counted_zstd_memory() {
  return ZSTD_customMem{[](void*, std::size_t size) { return ::operator new(size, std::nothrow); },
                        [](void*, void* block) { ::operator delete(block); }, nullptr};
}

}  // namespace heapql
