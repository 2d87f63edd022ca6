// What a store file says about itself (docs/store.md): its format, the files
// it was ingested from, how they were read, and its sections. Plain data, so
// the summary and the reports can show it without knowing the file format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace heapql {

// A file as it was when ingested: size, modification time, and a hash of its
// first and last 64 KiB.
struct FileIdentity {
  std::string path;  // absolute
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::uint64_t head_tail_hash = 0;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

struct StoreSectionInfo {
  std::string name;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  std::uint64_t items = 0;
};

struct StoreFileInfo {
  std::string path;
  std::uint32_t format_version = 0;
  std::uint64_t file_bytes = 0;
  std::vector<FileIdentity> files;  // what it was ingested from, the trace first
  std::string reading;              // how (reading_key in engine/ingest/trace_store_file.h)
  std::vector<StoreSectionInfo> sections;
};

}  // namespace heapql
