// Reading and writing at an offset without moving the descriptor's own
// position (pread/pwrite), on both systems.
#pragma once

#include <cstddef>
#include <cstdint>

namespace heapql {

// Bytes read (0 at the end), or -1 with errno set; EINTR is retried inside.
std::int64_t read_at(int fd, void* into, std::size_t n, std::uint64_t offset);
// All `n` bytes at `offset`, read_at() again until they are in; false when
// the file ends first or a read fails (errno set).
bool read_all_at(int fd, void* into, std::size_t n, std::uint64_t offset);
// Bytes written, or -1 with errno set; EINTR is retried inside.
std::int64_t write_at(int fd, const void* from, std::size_t n, std::uint64_t offset);
// Like write(2), EINTR retried: bytes written, or -1 with errno set.
std::int64_t write_some(int fd, const void* from, std::size_t n);
// Like read(2), EINTR retried: bytes read, or -1 with errno set.
std::int64_t read_some(int fd, void* into, std::size_t n);

}  // namespace heapql
