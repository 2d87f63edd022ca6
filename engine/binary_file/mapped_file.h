// A whole file mapped read-only (a store file, whose columns are used in
// place; a block-identity file is read in pieces instead): the
// mapping lives as long as its owner pointer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace heapql::store_file {

// Copies `size` bytes at `offset` of a file into `to`; false when it cannot
// (a read error, or the file is shorter now).
using ReadFileAt = std::function<bool(std::uint64_t offset, char* to, std::size_t size)>;

struct MappedFile {
  std::shared_ptr<const void> owner;
  std::string_view bytes;
  // The same file read by positioned reads, the file kept open as long as
  // the mapping: a pass over many megabytes that are then not used in place
  // (a checksum) copies them several times faster than it first touches the
  // mapping's pages (the kernel copies through its own mapping, of huge
  // pages; on a virtual machine every 4 KiB page of ours costs a walk).
  // None on Windows, where the open file would keep a new store from being
  // renamed over this one.
  ReadFileAt read_at;
};

// Throws Error naming the file: it cannot be opened or mapped, or it is a
// directory or no regular file ("a directory, not a `kind`").
MappedFile map_file(const std::string& path, std::string_view kind);

}  // namespace heapql::store_file
