// A file written under a temporary name and renamed into place only when it
// is complete and synced (or, where the file system has O_TMPFILE, written
// nameless and linked in). Destroyed uncommitted, it leaves nothing behind.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace heapql::store_file {

// Throws Error naming the file and the system's reason.
class OutputFile {
 public:
  explicit OutputFile(std::string final_path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view bytes);
  void write_zeros(std::uint64_t n);
  // Appends `n` bytes of file descriptor `from`, from its start.
  void append_from(int from, std::uint64_t n);
  void pwrite_at(std::uint64_t offset, std::string_view bytes);
  std::uint64_t size() const { return size_; }
  // fsync, then the atomic rename, then fsync of the folder.
  void commit();

  // An unlinked scratch file in `folder` (for columns that grow while a
  // store is built); the caller closes it.
  static int scratch_file(const std::string& folder);

 private:
  [[noreturn]] void fail(std::string_view what) const;
  // Every few MiB written, their writeback is started (start_writeback), so
  // that commit's fsync waits for the last few only, not for the whole file
  // written a moment before (a recording's store: 313 MB, fsynced in 0.45 s).
  void written(std::uint64_t bytes);
  std::string final_path_;
  std::string temp_path_;  // named temporary (no O_TMPFILE), removed unless committed
  int fd_ = -1;
  bool nameless_ = false;
  std::uint64_t size_ = 0;
  std::uint64_t writeback_from_ = 0;  // where the bytes not yet sent to the disk start
};

// The folder of a path ("." for a bare name).
std::string folder_of(const std::string& path);

}  // namespace heapql::store_file
