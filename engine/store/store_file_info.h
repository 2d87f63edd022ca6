// What a store file says about itself (docs/store.md): its format, the files
// it was ingested from, how they were read, and its sections. Plain data, so
// the summary and the reports can show it without knowing the file format.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
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
  std::string reading;              // how (reading_key in engine/session/trace_store_location.h)
  std::vector<StoreSectionInfo> sections;
};

// How the raw twin was asked for, as a reading key begins (then ", as ETL",
// ", symbols PATH"...). The key is kept as written (a store's freshness
// compares it), and the JSON reports it so; people read it in words, since
// "raw twin" means "used where there is one", not that there was one.
inline constexpr std::string_view kReadingRawTwin = "raw twin";
inline constexpr std::string_view kReadingNoRawTwin = "no raw twin";

inline std::string reading_in_words(std::string_view key) {
  if (key.starts_with(kReadingNoRawTwin)) return "--no-raw" + std::string(key.substr(kReadingNoRawTwin.size()));
  if (key.starts_with(kReadingRawTwin)) {
    return "its raw twin where there is one" + std::string(key.substr(kReadingRawTwin.size()));
  }
  return std::string(key);
}

}  // namespace heapql
