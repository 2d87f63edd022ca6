#include "engine/binary_file/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "engine/error.h"
#include "engine/file_to_replace.h"

namespace heapql::store_file {

namespace {

std::string system_reason() { return std::strerror(errno); }

void write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw errno;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace

std::string folder_of(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

int OutputFile::scratch_file(const std::string& folder) {
  int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = folder + "/.heapql-scratch-XXXXXX";
  fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    throw Error("its folder " + folder + " cannot be written: " + system_reason());
  }
  ::unlink(name.c_str());
  return fd;
}

OutputFile::OutputFile(std::string final_path) : final_path_(std::move(final_path)) {
  check_file_to_replace(final_path_);
  const std::string folder = folder_of(final_path_);
  fd_ = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
  if (fd_ >= 0) {
    nameless_ = true;
    return;
  }
  const std::string base = std::filesystem::path(final_path_).filename().string();
  temp_path_ = folder + "/." + base + ".XXXXXX.tmp";
  fd_ = ::mkostemps(temp_path_.data(), 4, O_CLOEXEC);
  if (fd_ < 0) {
    temp_path_.clear();
    throw Error(SourceLocation::of_file(final_path_), "cannot write in its folder: " + system_reason());
  }
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void OutputFile::fail(std::string_view what) const {
  throw Error(SourceLocation::of_file(final_path_), std::string(what) + ": " + system_reason());
}

void OutputFile::write(std::string_view bytes) {
  try {
    write_all(fd_, bytes.data(), bytes.size());
  } catch (int e) {
    errno = e;
    fail("cannot write");
  }
  size_ += bytes.size();
}

void OutputFile::write_zeros(std::uint64_t n) {
  static const char kZeros[4096] = {};
  while (n > 0) {
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(n, sizeof kZeros));
    write(std::string_view(kZeros, chunk));
    n -= chunk;
  }
}

void OutputFile::append_from(int from, std::uint64_t n) {
  loff_t in_at = 0;
  while (n > 0) {
    const ssize_t copied = ::copy_file_range(from, &in_at, fd_, nullptr, n, 0);
    if (copied < 0 && errno == EINTR) continue;
    if (copied < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) break;
    if (copied < 0) fail("cannot write");
    if (copied == 0) fail("a scratch column ends early");
    n -= static_cast<std::uint64_t>(copied);
    size_ += static_cast<std::uint64_t>(copied);
  }
  // Without copy_file_range: read and write.
  std::vector<char> buffer(1 << 20);
  while (n > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(n, buffer.size()));
    const ssize_t got = ::pread(from, buffer.data(), want, in_at);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) fail("cannot read a scratch column back");
    write(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
    in_at += got;
    n -= static_cast<std::uint64_t>(got);
  }
}

void OutputFile::pwrite_at(std::uint64_t offset, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail("cannot write");
    done += static_cast<std::size_t>(w);
  }
}

void OutputFile::commit() {
  if (::fsync(fd_) != 0) fail("cannot sync");
  const std::string folder = folder_of(final_path_);
  if (nameless_) {
    // Link the nameless file under a unique temporary name, then rename:
    // linkat cannot replace an existing store, rename can, atomically.
    const std::string base = std::filesystem::path(final_path_).filename().string();
    for (int attempt = 0;; ++attempt) {
      temp_path_ = folder + "/." + base + "." + std::to_string(::getpid()) + "." + std::to_string(attempt) + ".tmp";
      const std::string self = "/proc/self/fd/" + std::to_string(fd_);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temp_path_.c_str(), AT_SYMLINK_FOLLOW) == 0) break;
      if (errno != EEXIST || attempt > 100) {
        temp_path_.clear();
        fail("cannot link the written file into its folder");
      }
    }
  }
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) fail("cannot rename the written file into place");
  temp_path_.clear();
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace heapql::store_file
