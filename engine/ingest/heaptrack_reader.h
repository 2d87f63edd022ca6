// Reads heaptrack traces (../shared/formats/heaptrack.md): the interpreted
// file (format versions 0-3, plain/gzip/zstd), alone or together with its raw
// twin from `heaptrack --raw`, which gives exact block identity and module
// bases. Streams: interns into TraceTables and feeds events to a consumer as
// it reads, holding only live blocks and the tables.
#pragma once

#include <future>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ingest/byte_stream.h"
#include "engine/store/events.h"
#include "engine/store/source_info.h"
#include "engine/store/trace_tables.h"

namespace heapql {

struct HeaptrackReadOptions {
  bool show_progress = true;
  // A trace that ends early or has an anomaly is refused (exit 2) instead
  // of answered from its complete part, or the anomaly counted, with a warning.
  bool strict = false;
  // Look for the raw twin beside the file (NAME.raw.zst / .raw.gz / .raw for
  // NAME.zst / NAME.gz / NAME) and use it when present.
  bool use_raw_twin = true;
  // A reading with the raw twin also writes the block-identity file beside
  // the interpreted file (block_identity_file.h), for later exact readings
  // without the twin (heapql ingest, heapql record).
  bool write_block_identity = false;
  // When given, that file is made durable and renamed into place on a thread
  // of its own, and this future says when (rethrowing its error): the caller
  // waits for it before it looks at the file. A recording's store is written
  // meanwhile, so the two files' syncs overlap.
  std::future<void>* block_identity_committed = nullptr;
  // Warnings (anomalies, a cut) go here; null = stderr.
  std::string* warnings = nullptr;
  // For a recipe's run: the files beside the trace are read only as
  // themselves, never through a link (side_file.h).
  bool confined = false;
};

// The file pair heapql reads for `path`: the interpreted file, and the raw
// twin if there is one. Throws Error when `path` is a raw file whose
// interpreted twin is missing.
struct HeaptrackFiles {
  std::string interpreted;
  std::optional<std::string> raw;
  // In-memory inputs (tests, fuzzing): the files' bytes, read instead of
  // opening them; the names above stay the names in messages.
  std::optional<std::string_view> interpreted_bytes;
  std::optional<std::string_view> raw_bytes;
  // Or streams, read as they arrive (`heapql record`: a recording in
  // progress), the names above naming them. The interpreted stream ends only
  // once the file `interpreted` holds all of it: the block-identity file
  // written at the end of the reading records that file's identity.
  ByteStream* interpreted_stream = nullptr;
  ByteStream* raw_stream = nullptr;
  // Instead of the raw twin: its block-identity file (NAME.hqid), written
  // for this very interpreted file. `identity_passed_over`: why one beside
  // it was not used (a warning), if one was not.
  std::optional<std::string> identity;
  std::optional<std::string_view> identity_bytes;
  std::string identity_passed_over;

  // The files read: the interpreted one, then the raw twin or the
  // block-identity file if there is one.
  std::vector<std::string> paths() const {
    std::vector<std::string> all{interpreted};
    if (raw) all.push_back(*raw);
    if (identity) all.push_back(*identity);
    return all;
  }
};
// With the twin in use, a fresh block-identity file beside the interpreted
// file is read instead of it; a damaged one is an Error.
HeaptrackFiles find_heaptrack_files(const std::string& path, bool use_raw_twin, bool confined = false);

// Every name find_heaptrack_files may read beside `path` (its twins, its
// block-identity file), whether or not it is there: nothing is looked at.
std::vector<std::string> heaptrack_side_file_names(const std::string& path);
// Whether `path` names a raw heaptrack file (NAME.raw, .raw.zst, .raw.gz),
// which is read only with its interpreted twin beside it.
bool is_heaptrack_raw_file_name(const std::string& path);

// Reads the trace into `tables`, feeding `consumer`; returns what was learned.
// Throws Error (file, line, what was expected) on malformed input.
SourceInfo read_heaptrack(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                          const HeaptrackReadOptions& options = {});
// The same for a file pair given as it is (in memory, or found elsewhere).
SourceInfo read_heaptrack(const HeaptrackFiles& files, TraceTables& tables, EventConsumer& consumer,
                          const HeaptrackReadOptions& options = {});

}  // namespace heapql
