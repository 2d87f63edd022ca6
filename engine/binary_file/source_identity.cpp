#include "engine/binary_file/source_identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "engine/error.h"
#include "engine/binary_file/checksum.h"

namespace heapql::store_file {

namespace {

constexpr std::size_t kHashedEnds = 64 * 1024;

std::uint64_t checksum_of_range(int fd, std::uint64_t offset, std::size_t n, const std::string& path) {
  std::vector<unsigned char> buffer(n);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, buffer.data() + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw Error(SourceLocation::of_file(path), "cannot read it to identify it");
    got += static_cast<std::size_t>(r);
  }
  return checksum_of(buffer.data(), n);
}

}  // namespace

FileIdentity identify_file(const std::string& path, bool follow_links) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  FileIdentity id;
  id.path = ec ? path : absolute.lexically_normal().string();
  // Looked at before it is opened, and opened without waiting: opening a
  // FIFO for reading would block until a writer came.
  struct stat st {};
  if ((follow_links ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) {
    throw Error(SourceLocation::of_file(path), std::string("cannot open: ") + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) throw Error(SourceLocation::of_file(path), "is not a regular file");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow_links ? 0 : O_NOFOLLOW));
  if (fd < 0) throw Error(SourceLocation::of_file(path), std::string("cannot open: ") + std::strerror(errno));
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(SourceLocation::of_file(path), "is not a regular file");
  }
  try {
    id.size = static_cast<std::uint64_t>(st.st_size);
    id.mtime_ns = std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
    const std::size_t head = static_cast<std::size_t>(std::min<std::uint64_t>(id.size, kHashedEnds));
    const std::uint64_t tail_at = id.size > kHashedEnds ? id.size - kHashedEnds : 0;
    id.head_tail_hash = checksum_of_range(fd, 0, head, path) ^
                        std::rotl(checksum_of_range(fd, tail_at, static_cast<std::size_t>(id.size - tail_at), path), 1);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return id;
}

std::string relocated(const std::string& recorded, const std::string& trace_then, const std::string& trace_now) {
  namespace fs = std::filesystem;
  const fs::path beside = fs::path(recorded).lexically_relative(fs::path(trace_then).parent_path());
  return (fs::path(trace_now).parent_path() / beside).lexically_normal().string();
}

std::string identity_mismatch(const FileIdentity& recorded, bool follow_links) {
  struct stat st {};
  if (::lstat(recorded.path.c_str(), &st) != 0) return "it is gone";
  if (S_ISLNK(st.st_mode)) {
    if (!follow_links) return "it is a link";
    if (::stat(recorded.path.c_str(), &st) != 0) return "it is gone";
  }
  if (!S_ISREG(st.st_mode)) return "it is not a regular file";
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
