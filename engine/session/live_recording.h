// A recording in progress, found by its live journal beside the trace
// (live_journal.h), and the store of the part it has recorded so far. The
// session asks here before it looks for a store (trace_session.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/ingest/open_options.h"
#include "engine/store/trace_store.h"

namespace heapql {

struct LiveJournalFound {
  std::string journal;   // NAME.zst.hqlive
  std::string trace;     // NAME.zst (which may not be there yet)
  bool writer_alive = false;  // a writer holds its lock: the recording goes on
};

// The live journal of `path` (a trace, or the journal itself), if there is
// one, and whether its writer is alive. Nothing is read but the lock. For a
// recipe's run (`confined`) a link there is refused, as for every file
// beside a trace (side_file.h).
std::optional<LiveJournalFound> live_journal_for(const std::string& path, bool confined);

// Whether a recording of `path` goes on: its live journal is there and a
// writer holds it (for the command line's own use: not confined).
bool recording_in_progress(const std::string& path);

// The trace a path names: NAME.zst for NAME.zst.hqlive, else the path.
std::string trace_of_journal_path(const std::string& path);

// The store of what the recording has published so far, read from its
// journal, with a note on the warnings' stream ("recording in progress, up
// to T"). Throws Error naming the journal when it is damaged.
std::unique_ptr<TraceStore> open_live_journal(const LiveJournalFound& found, const OpenOptions& options);

// Said once when a journal is left by a recording that did not finish and
// the trace is read instead.
void warn_journal_left(const LiveJournalFound& found, const OpenOptions& options);

}  // namespace heapql
