#include "engine/binary_file/source_identity.h"

#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#endif

#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "engine/error.h"
#include "engine/binary_file/checksum.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/file_status.h"
#include "engine/platform/open_file.h"
#include "engine/platform/positioned_io.h"
#include "engine/platform/utf8_wide.h"

namespace heapql::store_file {

namespace {

constexpr std::size_t kHashedEnds = 64 * 1024;

std::uint64_t checksum_of_range(int fd, std::uint64_t offset, std::size_t n, const std::string& path) {
  std::vector<unsigned char> buffer(n);
  if (!read_all_at(fd, buffer.data(), n, offset)) throw Error(SourceLocation::of_file(path), "cannot read it to identify it");
  return checksum_of(buffer.data(), n);
}

}  // namespace

FileIdentity identify_file(const std::string& path, bool follow_links) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path_from_utf8(path), ec);
  FileIdentity id;
  id.path = ec ? path : utf8_from_path(absolute.lexically_normal());
  // Looked at before it is opened, and opened without waiting: opening a
  // FIFO for reading would block until a writer came.
  const std::optional<FileStatus> before = status_of_path(path, follow_links);
  if (!before) throw Error(SourceLocation::of_file(path), "cannot open: " + errno_text(errno));
  if (!before->regular()) throw Error(SourceLocation::of_file(path), "is not a regular file");
#ifdef _WIN32
  // No FIFO to block on; a link was refused above (status_of_path saw the
  // reparse point itself), and one put there since is caught below by the
  // file's changed identity.
  const int fd = open_file(path, O_RDONLY);
#else
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow_links ? 0 : O_NOFOLLOW));
#endif
  if (fd < 0) throw Error(SourceLocation::of_file(path), "cannot open: " + errno_text(errno));
  const std::optional<FileStatus> st = status_of_fd(fd);
  if (!st || !st->regular()) {
    close_file(fd);
    throw Error(SourceLocation::of_file(path), "is not a regular file");
  }
#ifdef _WIN32
  if (st->id != before->id || st->device != before->device) {
    close_file(fd);
    throw Error(SourceLocation::of_file(path), "is not a regular file");
  }
#endif
  try {
    id.size = st->size;
    id.mtime_ns = st->mtime_ns;
    const std::size_t head = static_cast<std::size_t>(std::min<std::uint64_t>(id.size, kHashedEnds));
    const std::uint64_t tail_at = id.size > kHashedEnds ? id.size - kHashedEnds : 0;
    id.head_tail_hash = checksum_of_range(fd, 0, head, path) ^
                        std::rotl(checksum_of_range(fd, tail_at, static_cast<std::size_t>(id.size - tail_at), path), 1);
  } catch (...) {
    close_file(fd);
    throw;
  }
  close_file(fd);
  return id;
}

std::string relocated(const std::string& recorded, const std::string& trace_then, const std::string& trace_now) {
  namespace fs = std::filesystem;
  const fs::path beside = path_from_utf8(recorded).lexically_relative(path_from_utf8(trace_then).parent_path());
  return utf8_from_path((path_from_utf8(trace_now).parent_path() / beside).lexically_normal());
}

std::string identity_mismatch(const FileIdentity& recorded, bool follow_links) {
  std::optional<FileStatus> st = status_of_path(recorded.path, false);
  if (!st) return "it is gone";
  if (st->link()) {
    if (!follow_links) return "it is a link";
    st = status_of_path(recorded.path, true);
    if (!st) return "it is gone";
  }
  if (!st->regular()) return "it is not a regular file";
  FileIdentity now;
  try {
    now = identify_file(recorded.path, follow_links);
  } catch (const Error&) {
    return "it cannot be read";
  }
  return identity_change(recorded, now);
}

std::string identity_change(const FileIdentity& recorded, const FileIdentity& now) {
  if (now.size != recorded.size) return "its size changed";
  if (now.mtime_ns != recorded.mtime_ns) return "its modification time changed";
  if (now.head_tail_hash != recorded.head_tail_hash) return "its contents changed";
  return {};
}

}  // namespace heapql::store_file
