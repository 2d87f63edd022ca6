// Sets every checksum of a store file's bytes right (docs/store.md), as far
// as its header and table of contents let them be found: for tests and the
// fuzz target that craft stores the reader must judge by their contents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/binary_file/checksum.h"
#include "engine/store_file/store_format.h"

namespace heapql::test {

inline void set_store_checksums(char* bytes, std::size_t size) {
  using namespace heapql::store_file;
  const auto get = [&](std::size_t at) {
    std::uint64_t v;
    std::memcpy(&v, bytes + at, sizeof v);
    return v;
  };
  const auto put = [&](std::size_t at, std::uint64_t v) { std::memcpy(bytes + at, &v, sizeof v); };
  if (size < kHeaderBytes) return;
  const std::uint64_t toc = get(header_at::kTocOffset);
  std::uint32_t count;
  std::memcpy(&count, bytes + header_at::kSectionCount, sizeof count);
  if (toc >= kHeaderBytes && toc <= size && std::uint64_t{count} * kTocEntryBytes <= size - toc) {
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::size_t entry = toc + i * kTocEntryBytes;
      const std::uint64_t offset = get(entry + 16);
      const std::uint64_t length = get(entry + 24);
      if (offset <= size && length <= size - offset) put(entry + 8, checksum_of(bytes + offset, length));
    }
    put(header_at::kTocChecksum, checksum_of(bytes + toc, size - toc));
  }
  put(header_at::kFileBytes, size);
  put(header_at::kHeaderChecksum, checksum_of(bytes, header_at::kHeaderChecksum));
}

}  // namespace heapql::test
