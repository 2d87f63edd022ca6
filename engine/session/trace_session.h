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
#include <vector>

#include "engine/ingest/open_options.h"
#include "engine/query/query.h"
#include "engine/query/result.h"
#include "engine/query/stack_plan.h"
#include "engine/query/whole_trace_views.h"
#include "engine/session/live_recording.h"
#include "engine/session/trace_store_location.h"
#include "engine/store/source_info.h"
#include "engine/store/store_file_info.h"
#include "engine/store/trace_store.h"
#include "engine/store/trace_tables.h"
#include "engine/store/window_index.h"

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
  // the store the path names); else, while a recording of the trace goes on
  // (its live journal's writer is alive), reads the part recorded so far
  // from the journal (live_recording.h); else reads the trace into a store
  // in memory.
  // Once: later calls do nothing. Throws Error naming the file.
  void open();
  bool is_open() const { return store_ != nullptr; }
  // A store file's tables checked now (TraceStore::check_tables), for a
  // caller that reads more of them than its answer did: summarize() reads
  // every bucket, where a summary from the stack view read none. Nothing to
  // check before open(), nor in a trace read into memory.
  void check_tables() const;

  // For a session that will answer many queries (a server, before it forks
  // its workers, which then share it): works out once, after open(), what
  // every windowed query would otherwise replay the store for (the window
  // index, engine/store/window_index.h: 4 bytes a block in memory), the
  // whole-trace answers by each level (whole_trace_views.h: 44 bytes a
  // row), and each bucket's stack culled by default (4 bytes a bucket). A store
  // whose columns fail their checks gets none: its queries replay, and report
  // what is wrong, as before. Once: later calls do nothing. Not while
  // answer() runs on another thread.
  void prepare_for_many_queries();
  const WindowIndex* window_index() const { return window_index_.get(); }

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
  // Whether it answers from a recording's live journal.
  bool answers_live() const { return live_journal_.has_value(); }

 private:
  // The store that answers for the trace, looked for once: a store passed
  // over is said to be so once.
  const std::optional<FoundStore>& found_store();
  // open() from the live journal; when its recording ended meanwhile (the
  // journal is gone), from what answers for the trace now.
  void open_live();

  std::string path_;
  std::string trace_;  // the trace path_ names (path_ itself, or the trace of a live journal named)
  OpenOptions options_;
  bool store_looked_for_ = false;
  std::optional<FoundStore> found_store_;
  std::optional<LiveJournalFound> live_journal_;  // a recording in progress answers
  std::shared_ptr<const TraceStore> store_;
  std::optional<StoreFileInfo> store_file_;
  bool prepared_ = false;
  // Shared, never written once made: a copy of the session (open_sessions.h)
  // answers from the same.
  std::shared_ptr<const WindowIndex> window_index_;
  std::shared_ptr<const std::vector<StackId>> default_culled_;  // by bucket (default_culled_stacks.h)
  std::shared_ptr<const WholeTraceViews> whole_trace_views_;
};

}  // namespace heapql
