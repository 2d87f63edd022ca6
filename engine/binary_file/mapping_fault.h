// A mapped file that shrinks while it is read (another program truncates or
// rewrites a store in place; heapql's own writers always rename a new file
// over it) makes the next read of a page past its new end a SIGBUS (on
// Windows an EXCEPTION_IN_PAGE_ERROR, caught by a vectored exception
// handler). Where the fault is inside a registered mapping, heapql says which
// file changed and exits 2, instead of dying of the signal; any other SIGBUS
// (exception) goes on to the handler that was there before.
#pragma once

#include <cstddef>
#include <string>

namespace heapql::store_file {

class MappingFaultGuard {
 public:
  // Registers [address, address + length) as the mapping of `path`.
  MappingFaultGuard(const void* address, std::size_t length, const std::string& path);
  ~MappingFaultGuard();
  MappingFaultGuard(const MappingFaultGuard&) = delete;
  MappingFaultGuard& operator=(const MappingFaultGuard&) = delete;

 private:
  int slot_ = -1;  // -1 when every slot was taken: that mapping goes unguarded
};

}  // namespace heapql::store_file
