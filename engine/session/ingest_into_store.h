// `heapql ingest`: a trace read once and written into its store file, beside
// the trace, in the per-user cache, or where -o says (docs/store.md). The one
// place that hands the store writer the query's stack view (the aggregator's
// roll-up), which is why it lives above both ingest and query.
#pragma once

#include <cstdint>
#include <string>

#include "engine/ingest/open_options.h"
#include "engine/store/source_info.h"

namespace heapql {

struct IngestResult {
  std::string store_path;
  std::uint64_t file_bytes = 0;
  std::uint64_t blocks = 0;
  std::uint64_t frees = 0;
  std::uint64_t column_bytes = 0;
  SourceInfo source;
  std::string block_identity_path;  // written beside a heaptrack trace read with its raw twin
};

// Reads the trace once and writes its store. `output` empty: beside the trace,
// or in the cache when the trace's folder cannot be written. Throws Error
// (naming the file) and leaves nothing behind when it fails.
IngestResult ingest_trace(const std::string& trace_path, const std::string& output, const OpenOptions& options);

}  // namespace heapql
