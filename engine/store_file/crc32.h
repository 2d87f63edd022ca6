// The store's checksum: zlib's CRC-32, over any bytes, continued from `crc`.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>

namespace heapql::store_file {

inline std::uint32_t crc32_of(const void* data, std::size_t n, std::uint32_t crc = 0) {
  return static_cast<std::uint32_t>(crc32_z(crc, static_cast<const unsigned char*>(data), n));
}

}  // namespace heapql::store_file
