// Opens a store file (store_format.h): maps it, checks its header and table
// of contents, decodes the small tables and views the big ones and the
// columns where they lie in the mapping. The big tables, the block columns
// and the accelerators are checked (checksum and records) when a query first
// reads them, so opening touches none of their pages. Anything wrong is an
// Error naming the file and what is wrong; nothing in a file can make the
// reader crash or answer from inconsistent data.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/store/trace_store.h"
#include "engine/binary_file/source_identity.h"
#include "engine/store_file/store_format.h"

namespace heapql::store_file {

struct OpenedStore {
  std::unique_ptr<TraceStore> store;
  StoreFileInfo info;
};

struct ReadOptions {
  // The accelerators read, each at its revision: this build's. Any other one
  // in the file is passed over, and the queries it would answer replay.
  std::span<const Accelerator> accelerators = kAccelerators;
};

// True when the file starts with the store's magic number.
bool is_store_file(const std::string& path);

OpenedStore read_store_file(const std::string& path, const ReadOptions& options = {});

// Only the header and the source section (checked): what the store was read
// from and how, to decide whether it is fresh without reading the rest.
StoreFileInfo peek_store_file(const std::string& path);

// The same from bytes in memory (the fuzz target): `bytes` must be 8-byte
// aligned and stay valid while `owner` lives; `name` is what messages call it.
OpenedStore read_store_bytes(std::shared_ptr<const void> owner, std::string_view bytes, const std::string& name,
                             const ReadOptions& options = {});

}  // namespace heapql::store_file
