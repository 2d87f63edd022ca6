// How a trace is opened: the options every caller of a reading sets (the
// command line, the Lua host, the session), and the format it is read as.
// Of engine/ingest, the command line and the Lua layer include this header
// (cmake/check_front_end_includes.cmake): they read traces through
// engine/session.
#pragma once

#include <string>
#include <vector>

namespace heapql {

// Which reader a file gets: by its first bytes (an ETL buffer header, the
// event CSV's header line), else heaptrack's (which knows its compressions).
enum class TraceFormat { kAuto, kHeaptrack, kEtl, kEventCsv };

struct OpenOptions {
  bool show_progress = true;
  bool use_raw_twin = true;
  // A trace that ends early or has an anomaly is refused (Error) instead of
  // answered from its complete part, or the anomaly counted, with a warning.
  bool strict = false;
  std::string* warnings = nullptr;  // null: warnings go to stderr
  TraceFormat format = TraceFormat::kAuto;
  std::vector<std::string> symbol_paths;  // ETL: PDB folders and symbol stores
  // Answer from a fresh store file of the trace where there is one
  // (engine/session/trace_store_location.h); false (--no-store) reads the
  // trace itself.
  bool use_store = true;
  // A heaptrack trace read with its raw twin also writes its block-identity
  // file (heapql ingest, heapql record).
  bool write_block_identity = false;
  // For a recipe's run (the sandbox): the files beside a trace are read
  // only as themselves, never through a link (side_file.h); and a store file
  // named as the trace answers as it is, without looking at the sources its
  // header records, which may be anywhere.
  bool confined = false;
};

}  // namespace heapql
