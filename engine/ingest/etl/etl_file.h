// The ETL container: walks an .etl file buffer by buffer (by each buffer's own
// size), decompresses Xpress buffers, and hands every event record to a
// visitor in time order, merged from all buffers (etw-heap.md §3.4).
//
// How it merges, and what memory that takes: the buffers of one logger on one
// processor (a stream: the buffer header's ClientContext) are each in time
// order and follow one another in the file; streams interleave in any order,
// as the logger flushed them. A first pass reads only the buffer headers and
// lists each stream's buffers (8 bytes a buffer); the second pass merges the
// streams by timestamp with one buffer of each in memory, never the file.
// Equal timestamps go by (session, logger, processor), then file order within
// the stream (a session starts at each header buffer, BufferType 4: files
// concatenated into one), so the same buffers written in another order read the same. A
// record earlier than one already visited (a stream out of time order) is
// visited where it comes and counted (records_out_of_time_order).
//
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
  // Records earlier than one visited before them: a processor's buffers that
  // are not in time order in the file. Visited anyway, where they come.
  std::uint64_t records_out_of_time_order = 0;
};

struct EtlReadOptions {
  bool show_progress = false;  // a progress bar on stderr when it is a terminal
  // The merge holds one buffer per stream. Real traces hold a few MiB (64
  // processors of 64 KiB buffers: 4 MiB); a file of thousands of streams
  // whose small compressed buffers each inflate to megabytes would hold
  // gigabytes, so it is refused (an Error) past this.
  std::size_t max_bytes_held = std::size_t{1} << 30;
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

  // Reads the whole file, calling `visit` for each record in time order (see
  // above). The first logfile-header record is parsed into header() before
  // any record is visited (it is visited too, at its time).
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
