// A whole file mapped read-only (a store file, whose columns are used in
// place; a block-identity file is read in pieces instead): the
// mapping lives as long as its owner pointer.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace heapql::store_file {

struct MappedFile {
  std::shared_ptr<const void> owner;
  std::string_view bytes;
};

// Throws Error naming the file: it cannot be opened or mapped, or it is a
// directory or no regular file ("a directory, not a `kind`").
MappedFile map_file(const std::string& path, std::string_view kind);

}  // namespace heapql::store_file
