// A column that grows at its end, kept in an unlinked scratch file beside
// the file being written, with its checksum computed on the way; copied
// into that file at its commit (OutputFile::append_from). The store's block
// columns and a block-identity file's compressed columns are written so.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/binary_file/checksum.h"
#include "engine/binary_file/output_file.h"
#include "engine/platform/open_file.h"
#include "engine/platform/positioned_io.h"

namespace heapql::store_file {

template <class T>
class ScratchColumn {
 public:
  explicit ScratchColumn(const std::string& folder) : fd_(OutputFile::scratch_file(folder)) {
    buffer_.reserve(kBuffered);
  }
  ~ScratchColumn() { close_file(fd_); }
  ScratchColumn(const ScratchColumn&) = delete;
  ScratchColumn& operator=(const ScratchColumn&) = delete;

  void push_back(const T& value) {
    buffer_.push_back(value);
    if (buffer_.size() == kBuffered) flush();
  }
  void append(std::span<const T> values) {
    buffer_.insert(buffer_.end(), values.begin(), values.end());
    if (buffer_.size() >= kBuffered) flush();
  }
  void flush() {
    const char* data = reinterpret_cast<const char*>(buffer_.data());
    std::size_t n = buffer_.size() * sizeof(T);
    checksum_.add(data, n);
    while (n > 0) {
      const std::int64_t w = write_some(fd_, data, n);
      if (w <= 0) throw Error(std::string("cannot write a scratch column: ") + std::strerror(errno));
      data += w;
      n -= static_cast<std::size_t>(w);
    }
    count_ += buffer_.size();
    buffer_.clear();
  }
  int fd() const { return fd_; }
  std::uint64_t count() const { return count_; }
  std::uint64_t checksum() const { return checksum_.value(); }

 private:
  static constexpr std::size_t kBuffered = 64 * 1024 / sizeof(T);
  int fd_;
  std::vector<T> buffer_;
  std::uint64_t count_ = 0;
  Checksum checksum_;
};

}  // namespace heapql::store_file
