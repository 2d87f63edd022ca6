#include "engine/binary_file/mapped_file.h"

#ifdef _WIN32
#include <io.h>
#include <windows.h>
#else
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <cerrno>
#include <cstring>

#include "engine/error.h"
#include "engine/binary_file/mapping_fault.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/file_status.h"
#include "engine/platform/open_file.h"
#include "engine/platform/positioned_io.h"
#include "engine/platform/windows_errno.h"

namespace heapql::store_file {

namespace {

struct Mapping {
  void* address = nullptr;
  std::size_t length = 0;
  int fd = -1;  // kept open for MappedFile::read_at
  std::unique_ptr<MappingFaultGuard> guard;
  ~Mapping() {
    if (fd >= 0) close_file(fd);
    guard.reset();
#ifdef _WIN32
    if (address != nullptr) ::UnmapViewOfFile(address);
#else
    if (address != nullptr) ::munmap(address, length);
#endif
  }
};

[[noreturn]] void not_a_file(const std::string& path, bool directory, std::string_view kind) {
  throw Error(SourceLocation::of_file(path),
              (directory ? "a directory, not " : "not a regular file, so not ") + std::string(kind));
}

// The whole of the open file `fd`, `length` bytes, mapped read-only; nullptr
// with errno set when it cannot be.
void* map_whole(int fd, std::size_t length) {
#ifdef _WIN32
  // The view outlives the mapping object and the file handle: closing them
  // now leaves the view, which holds the file, as munmap's mapping does.
  const auto file = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  const HANDLE mapping = ::CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
  if (mapping == nullptr) {
    fail_with_last_windows_error();
    return nullptr;
  }
  void* view = ::MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, length);
  if (view == nullptr) fail_with_last_windows_error();
  ::CloseHandle(mapping);
  return view;
#else
  void* address = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, 0);
  return address == MAP_FAILED ? nullptr : address;
#endif
}

}  // namespace

MappedFile map_file(const std::string& path, std::string_view kind) {
  const int fd = open_file(path, O_RDONLY);
  // Windows opens no folder as a file (Linux does, and fstat says what it is).
  if (fd < 0 && errno == EISDIR) not_a_file(path, true, kind);
  if (fd < 0) throw Error(SourceLocation::of_file(path), "cannot open: " + errno_text(errno));
  const std::optional<FileStatus> status = status_of_fd(fd);
  if (!status || !status->regular()) {
    close_file(fd);
    not_a_file(path, status && status->directory(), kind);
  }
  auto mapping = std::make_shared<Mapping>();
  if (status->size > 0) {
    mapping->length = static_cast<std::size_t>(status->size);
    mapping->address = map_whole(fd, mapping->length);
    if (mapping->address == nullptr) {
      const int error = errno;
      close_file(fd);
      throw Error(SourceLocation::of_file(path), "cannot map: " + errno_text(error));
    }
    mapping->guard = std::make_unique<MappingFaultGuard>(mapping->address, mapping->length, path);
  }
  const std::string_view bytes(static_cast<const char*>(mapping->address), mapping->length);
#ifdef _WIN32
  // An open handle would keep another heapql from renaming a new store over
  // this one; the view alone does not.
  close_file(fd);
  return MappedFile{std::move(mapping), bytes, {}};
#else
  mapping->fd = fd;
  const ReadFileAt read_at = [file = mapping](std::uint64_t offset, char* to, std::size_t size) {
    return read_all_at(file->fd, to, size, offset);
  };
  return MappedFile{std::move(mapping), bytes, read_at};
#endif
}

}  // namespace heapql::store_file
