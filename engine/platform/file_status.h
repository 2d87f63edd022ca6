// What heapql asks of a file's metadata, on both systems: its kind, size,
// modification time and identity (the inode, or Windows' file index), by
// path (following a link or not) or of an open descriptor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace heapql {

struct FileStatus {
  enum class Kind : std::uint8_t { kRegular, kDirectory, kLink, kOther };
  Kind kind = Kind::kOther;
  std::uint64_t size = 0;
  // Nanoseconds since 1970 on both systems (Windows keeps 100 ns steps).
  std::int64_t mtime_ns = 0;
  // Which file it is on its volume: two paths with the same id (and device)
  // are one file. A file replaced by a rename has a new one.
  std::uint64_t device = 0;
  std::uint64_t id = 0;

  bool regular() const { return kind == Kind::kRegular; }
  bool directory() const { return kind == Kind::kDirectory; }
  bool link() const { return kind == Kind::kLink; }
};

// The file at `utf8_path`; with follow_links false a link (a symbolic link,
// or on Windows any reparse point: a junction too) is itself kLink. nullopt
// with errno set when there is none or it cannot be looked at.
std::optional<FileStatus> status_of_path(const std::string& utf8_path, bool follow_links = true);
// The open file `fd`; nullopt with errno set when it cannot be looked at.
std::optional<FileStatus> status_of_fd(int fd);

}  // namespace heapql
