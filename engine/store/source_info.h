// What a reader learned about its input besides the blocks: where it came
// from, what the source can and cannot tell (semantics.md §1, "Sources differ"),
// and what was odd about it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/store/block_matcher.h"
#include "engine/store/events.h"

namespace heapql {

struct SourceInfo {
  std::string path;              // the file the user named
  std::vector<std::string> files;  // every file read (e.g. a raw twin)
  std::string source;            // "heaptrack"
  std::string format;            // "interpreted", "raw+interpreted"
  std::string compression;       // of the main file: plain | gzip | zstd
  BlockIdentity block_identity = BlockIdentity::kBucketLifo;
  bool realloc_marked = false;
  bool threads = false;
  std::int64_t time_resolution_ns = 0;

  // heaptrack specifics (zero/empty where absent)
  std::uint32_t format_version = 0;
  std::string tracer_version;    // e.g. "1.4.0"
  std::string command;           // the traced command line
  std::uint64_t page_size = 0;
  std::uint64_t physical_pages = 0;
  std::uint64_t peak_rss_bytes = 0;
  bool attached = false;         // started by attaching: earlier allocations unknown
  std::vector<std::string> embedded_suppressions;

  std::uint64_t lines = 0;       // records read (lines of the main file)
  Anomalies anomalies;
  std::int64_t end_ns = 0;       // last timestamp
};

std::string_view block_identity_name(BlockIdentity identity);

}  // namespace heapql
