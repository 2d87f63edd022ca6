// A trace opened to answer queries: the one way from a path, its open options
// and a query to an answer (docs/architecture.md, "The session"). It finds
// the trace's fresh store and answers from it; else it streams the trace
// into the aggregator (one query) or reads it into a store (many). It adds
// the trace's own suppressions, and names the trace in errors that know no
// file. The command line answers one query with it; the Lua host (and a
// server) hold one open and answer many.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/ingest/open_options.h"
#include "engine/query/query.h"
#include "engine/query/result.h"
#include "engine/query/stack_plan.h"
#include "engine/session/trace_store_location.h"
#include "engine/store/source_info.h"
#include "engine/store/store_file_info.h"
#include "engine/store/trace_store.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// An answer, with what it was read from: the trace's source, and the tables
// its patterns and keys were matched in (the open store's, which they keep
// alive, or those a streamed answer interned, which they own).
struct Answer {
  Result result;
  SourceInfo source;
  std::shared_ptr<const TraceTables> tables;
};

class TraceSession {
 public:
  TraceSession(std::string path, OpenOptions options);

  const std::string& path() const { return path_; }

  // For many queries: maps the fresh store that answers for the trace (or
  // the store the path names), else reads the trace into a store in memory.
  // Once: later calls do nothing. Throws Error naming the file.
  void open();
  bool is_open() const { return store_ != nullptr; }

  // Answers `query` from the open session; `filters` are its patterns,
  // compiled (compile_stack_filters). It changes nothing in the session, so
  // an open session may answer on several threads at once.
  Answer answer(const Query& query, StackFilters filters) const;

  // One query, as cheaply as it can be answered: from the open session, or
  // from a fresh store; else by streaming the trace into the aggregator
  // (memory for the live blocks only; the session stays closed). The trace
  // is read into a store instead, which stays open, when `keep_store` asks
  // for it, the query needs the trace's own suppressions before its first
  // event, or it asks for a row's detail (a second pass over the blocks).
  Answer answer_once(const Query& query, StackFilters filters, bool keep_store = false);

  // The open store (null before open()).
  const TraceStore* store() const { return store_.get(); }
  // The store file the open session answers from, if it does.
  const std::optional<StoreFileInfo>& store_file() const { return store_file_; }

 private:
  // The store that answers for the trace, looked for once: a store passed
  // over is said to be so once.
  const std::optional<FoundStore>& found_store();

  std::string path_;
  OpenOptions options_;
  bool store_looked_for_ = false;
  std::optional<FoundStore> found_store_;
  std::shared_ptr<const TraceStore> store_;
  std::optional<StoreFileInfo> store_file_;
};

}  // namespace heapql
