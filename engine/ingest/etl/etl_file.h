// The ETL container: walks an .etl file buffer by buffer (by each buffer's own
// size), decompresses Xpress buffers, and hands every event record to a
// visitor in file order. Streams: holds one buffer at a time, never the file.
// Anything unreadable throws heapql::Error naming the file, the buffer's byte
// offset and what was expected (etw-heap.md §4).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/ingest/etl/etl_record.h"
#include "engine/store/source_info.h"

namespace heapql {

struct EtlContainerStats {
  std::uint64_t buffers = 0;
  std::uint64_t compressed_buffers = 0;
  std::uint64_t records = 0;
  std::uint64_t bytes = 0;  // file size
  std::map<std::string, std::uint64_t> records_by_header_kind;  // "sys64" -> count
  std::uint64_t logfile_headers = 0;  // more than one in merged files
};

struct EtlReadOptions {
  bool show_progress = false;  // a progress bar on stderr when it is a terminal
};

class EtlFile {
 public:
  using Visitor = std::function<void(const EtlRecord&)>;

  explicit EtlFile(std::string path) : path_(std::move(path)) {}
  // Reads `bytes` (which must outlive the reader) as the file `name`.
  EtlFile(std::string name, std::string_view bytes) : path_(std::move(name)), bytes_(bytes) {}

  // True when the first bytes look like an ETL file (a WMI_BUFFER_HEADER whose
  // first record is a SYSTEM32/64 logfile header, hook 0x0000).
  static bool sniff(const std::string& path);

  // Reads the whole file once, calling `visit` for each record in file order.
  // The first logfile-header record is parsed into header() before any record
  // is visited (it is visited too).
  void read(const Visitor& visit, const EtlReadOptions& options = {});

  const EtlLogfileHeader& header() const { return header_; }
  const EtlContainerStats& stats() const { return stats_; }
  const std::string& path() const { return path_; }
  // Set when the file ends early, in a buffer header or inside its last
  // buffer: the complete buffers before it were read (etw-heap.md §4.6).
  const std::optional<TraceCut>& cut() const { return cut_; }

 private:
  std::string path_;
  std::optional<std::string_view> bytes_;
  std::optional<TraceCut> cut_;
  EtlLogfileHeader header_;
  EtlContainerStats stats_;
};

}  // namespace heapql
