// Where a trace's store lives (docs/store.md: beside the trace, or in the
// per-user cache when the trace's folder cannot be written), whether a store
// there still answers for the trace (fresh), and opening the one that does.
// Only the session (trace_session.h) and ingest (ingest_into_store.h) use it.
#pragma once

#include <optional>
#include <string>

#include "engine/ingest/open_options.h"

namespace heapql {

namespace store_file {
struct OpenedStore;  // store_reader.h: its callers include it
}  // namespace store_file

// How the trace at `trace_path` is read, as far as it changes the store: the
// raw twin (heaptrack), a forced format other than its own, the symbol paths
// (ETL). A store answers only a reading like its own.
std::string reading_key(const OpenOptions& options, const std::string& trace_path);

std::string store_beside(const std::string& trace_path);  // TRACE.hqdb
// ~/.cache/heapql/HASH-NAME.hqdb, HASH being XXH3 of the trace's absolute
// path (stable across builds and toolchains); empty when there is no cache
// folder (neither XDG_CACHE_HOME nor HOME).
std::string store_in_cache(const std::string& trace_path);

// A store file that answers for a trace. `sources_checked`: it was found
// beside the trace or in the cache, and its recorded sources matched then.
struct FoundStore {
  std::string path;
  bool sources_checked = false;
};

// The store file that answers for `path`: `path` itself when it is a store;
// else, unless options.use_store is false, a fresh store beside the trace or
// in the cache. A store there that is stale or of another reading is passed
// over with a warning.
std::optional<FoundStore> store_answering(const std::string& path, const OpenOptions& options);

// A fresh store beside the trace or in the cache, said nothing of when there
// is none (a recording in progress has none until it ends).
std::optional<FoundStore> fresh_store_quietly(const std::string& trace_path, const OpenOptions& options);

// Opens a store found by store_answering. Throws Error when it is damaged,
// or, named by the user, stale: its trace is still there but has changed.
store_file::OpenedStore open_store(const FoundStore& store, const OpenOptions& options);

}  // namespace heapql
