// What a reader learned about its input besides the blocks: where it came
// from, what the source can and cannot tell (semantics.md §1, "Sources differ"),
// and what was odd about it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/store/events.h"
#include "engine/store/source_details.h"

namespace heapql {

// How a source tells its blocks apart (semantics.md §1): by address, each
// block itself; or only by bucket, a free ending its bucket's latest block.
enum class BlockIdentity { kExact, kBucketLifo };

// Where a trace that ends early stopped (a recording killed with its program,
// a file copied while it was written): everything before is answered.
struct TraceCut {
  std::string file;                   // the file that ends early
  std::uint64_t at_byte = 0;          // its offset where the complete data ends
  std::uint64_t left_over_bytes = 0;  // bytes after the last complete record, not read as records
  std::string what;                   // how it ends: "the zstd stream ends inside a frame", ...
};

// A recording in progress answered from its live journal (docs/store-format.md,
// "The live journal"): the part recorded so far, up to `up_to_ns`.
struct LiveProgress {
  std::string journal;        // the journal read
  std::int64_t up_to_ns = 0;  // the time the recording had reached
};

struct SourceInfo {
  std::string path;              // the file the user named
  std::vector<std::string> files;  // every file read (e.g. a raw twin)
  std::string source;            // "heaptrack", "etw", "csv"
  std::string format;            // "interpreted", "raw+interpreted"
  std::string compression;       // of the main file: plain | gzip | zstd
  BlockIdentity block_identity = BlockIdentity::kBucketLifo;
  bool realloc_marked = false;
  bool threads = false;
  std::int64_t time_resolution_ns = 0;

  std::string command;           // the traced command line, where the source has it
  std::uint64_t peak_rss_bytes = 0;  // the traced process's, where the source has it
  std::vector<std::string> embedded_suppressions;  // heaptrack's `S` records (semantics §11)

  SourceDetails details;         // the reader's own format's details, for `info`

  std::uint64_t lines = 0;       // records read (lines of the main file; events of an ETL file)
  Anomalies anomalies;
  std::int64_t end_ns = 0;       // last timestamp
  std::optional<TraceCut> cut;   // the trace ends early: the answers cover 0..end_ns
  // Set only for an answer from a live journal; never in a store (a store
  // is written once the recording is over), so not in its source section.
  std::optional<LiveProgress> live;
};

std::string_view block_identity_name(BlockIdentity identity);

}  // namespace heapql
