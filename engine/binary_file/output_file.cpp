#include "engine/binary_file/output_file.h"

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "engine/error.h"
#include "engine/file_to_replace.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/open_file.h"
#include "engine/platform/positioned_io.h"
#include "engine/platform/replace_file.h"
#include "engine/platform/sync_file.h"
#include "engine/platform/temporary_file.h"
#include "engine/platform/utf8_wide.h"

namespace heapql::store_file {

namespace {

void write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const std::int64_t w = write_some(fd, data, n);
    if (w <= 0) throw errno;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace

std::string folder_of(const std::string& path) {
  const std::string parent = utf8_from_path(path_from_utf8(path).parent_path());
  return parent.empty() ? "." : parent;
}

int OutputFile::scratch_file(const std::string& folder) {
  const int fd = create_scratch_file(folder);
  if (fd < 0) throw Error("its folder " + folder + " cannot be written: " + errno_text(errno));
  return fd;
}

OutputFile::OutputFile(std::string final_path) : final_path_(std::move(final_path)) {
  check_file_to_replace(final_path_);
  const std::string folder = folder_of(final_path_);
#ifndef _WIN32
  fd_ = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
  if (fd_ >= 0) {
    nameless_ = true;
    return;
  }
#endif
  const std::string base = utf8_from_path(path_from_utf8(final_path_).filename());
  temp_path_ = folder + "/." + base + ".XXXXXX.tmp";
  fd_ = create_unique_file(temp_path_, 4);
  if (fd_ < 0) {
    temp_path_.clear();
    throw Error(SourceLocation::of_file(final_path_), "cannot write in its folder: " + errno_text(errno));
  }
#ifdef _WIN32
  // Gone with the last handle if heapql dies before the rename, as a nameless
  // file is on Linux; where the system refuses, a killed writer leaves the
  // .tmp file (which no reader takes for a store).
  delete_when_closed(fd_, true);
#else
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
#endif
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) close_file(fd_);
  if (!temp_path_.empty()) remove_file(temp_path_);
}

void OutputFile::fail(std::string_view what) const {
  throw Error(SourceLocation::of_file(final_path_), std::string(what) + ": " + errno_text(errno));
}

void OutputFile::write(std::string_view bytes) {
  try {
    write_all(fd_, bytes.data(), bytes.size());
  } catch (int e) {
    errno = e;
    fail("cannot write");
  }
  written(bytes.size());
}

void OutputFile::written(std::uint64_t bytes) {
  constexpr std::uint64_t kWritebackBytes = std::uint64_t{8} << 20;
  size_ += bytes;
  if (size_ - writeback_from_ < kWritebackBytes) return;
  start_writeback(fd_, writeback_from_, size_ - writeback_from_);
  writeback_from_ = size_;
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
  std::uint64_t in_at = 0;
#ifndef _WIN32
  loff_t copy_at = 0;
  while (n > 0) {
    const ssize_t copied = ::copy_file_range(from, &copy_at, fd_, nullptr, n, 0);
    if (copied < 0 && errno == EINTR) continue;
    if (copied < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) break;
    if (copied < 0) fail("cannot write");
    if (copied == 0) fail("a scratch column ends early");
    n -= static_cast<std::uint64_t>(copied);
    written(static_cast<std::uint64_t>(copied));
  }
  in_at = static_cast<std::uint64_t>(copy_at);
#endif
  // Without copy_file_range (and on Windows): read and write.
  std::vector<char> buffer(1 << 20);
  while (n > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(n, buffer.size()));
    const std::int64_t got = read_at(from, buffer.data(), want, in_at);
    if (got <= 0) fail("cannot read a scratch column back");
    write(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
    in_at += static_cast<std::uint64_t>(got);
    n -= static_cast<std::uint64_t>(got);
  }
}

void OutputFile::pwrite_at(std::uint64_t offset, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const std::int64_t w = write_at(fd_, bytes.data() + done, bytes.size() - done, offset + done);
    if (w <= 0) fail("cannot write");
    done += static_cast<std::size_t>(w);
  }
}

void OutputFile::commit() {
  if (sync_file(fd_) != 0) fail("cannot sync");
  const std::string folder = folder_of(final_path_);
#ifndef _WIN32
  if (nameless_) {
    // Link the nameless file under a unique temporary name, then rename:
    // linkat cannot replace an existing store, rename can, atomically.
    const std::string base = utf8_from_path(path_from_utf8(final_path_).filename());
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
#else
  // A file open (here: its own descriptor) cannot be renamed over another on
  // Windows unless every handle allows it; closing it first is simplest.
  if (!delete_when_closed(fd_, false)) fail("cannot keep the written file");
  close_file(fd_);
  fd_ = -1;
#endif
  if (rename_replacing(temp_path_, final_path_) != 0) fail("cannot rename the written file into place");
  temp_path_.clear();
  sync_folder(folder);
}

}  // namespace heapql::store_file
