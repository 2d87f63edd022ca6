#include "engine/binary_file/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/error.h"
#include "engine/binary_file/mapping_fault.h"

namespace heapql::store_file {

namespace {

struct Mapping {
  void* address = nullptr;
  std::size_t length = 0;
  std::unique_ptr<MappingFaultGuard> guard;
  ~Mapping() {
    guard.reset();
    if (address != nullptr) ::munmap(address, length);
  }
};

}  // namespace

MappedFile map_file(const std::string& path, std::string_view kind) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(SourceLocation::of_file(path), std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(SourceLocation::of_file(path), (S_ISDIR(st.st_mode) ? "a directory, not " : "not a regular file, so not ") +
                                                   std::string(kind));
  }
  auto mapping = std::make_shared<Mapping>();
  if (st.st_size > 0) {
    mapping->length = static_cast<std::size_t>(st.st_size);
    mapping->address = ::mmap(nullptr, mapping->length, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping->address == MAP_FAILED) {
      mapping->address = nullptr;
      ::close(fd);
      throw Error(SourceLocation::of_file(path), std::string("cannot map: ") + std::strerror(errno));
    }
    mapping->guard = std::make_unique<MappingFaultGuard>(mapping->address, mapping->length, path);
  }
  ::close(fd);
  const std::string_view bytes(static_cast<const char*>(mapping->address), mapping->length);
  return MappedFile{std::move(mapping), bytes};
}

}  // namespace heapql::store_file
