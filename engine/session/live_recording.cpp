// A recording in progress (live_recording.h).
#include "engine/session/live_recording.h"

#include <fmt/format.h>

#include "engine/platform/file_lock.h"
#include "engine/ingest/side_file.h"
#include "engine/session/live_journal.h"
#include "engine/store_file/live_journal_format.h"
#include "engine/units.h"
#include "engine/warnings.h"

namespace heapql {

namespace {

constexpr std::string_view kJournalSuffix = ".hqlive";  // live_journal_beside's

}  // namespace

std::string trace_of_journal_path(const std::string& path) {
  return path.ends_with(kJournalSuffix) ? path.substr(0, path.size() - kJournalSuffix.size()) : path;
}

std::optional<LiveJournalFound> live_journal_for(const std::string& path, bool confined) {
  LiveJournalFound found;
  found.trace = trace_of_journal_path(path);
  found.journal = live_journal_beside(found.trace);
  if (!side_file_present(found.journal, confined)) return std::nullopt;
  found.writer_alive = file_lock_is_held(found.journal);
  return found;
}

bool recording_in_progress(const std::string& path) {
  const std::optional<LiveJournalFound> journal = live_journal_for(path, false);
  return journal && journal->writer_alive;
}

std::unique_ptr<TraceStore> open_live_journal(const LiveJournalFound& found, const OpenOptions& options) {
  store_file::LiveJournalRead read = store_file::read_live_journal(found.journal, found.writer_alive);
  read.store->source().path = found.trace;
  emit_warning(options.warnings,
               fmt::format("{}: recording in progress, up to {}: the answer covers the part recorded so far "
                           "({} events, from {})\n",
                           found.trace, format_duration(read.time_ns), read.events, found.journal));
  return std::move(read.store);
}

void warn_journal_left(const LiveJournalFound& found, const OpenOptions& options) {
  emit_warning(options.warnings,
               fmt::format("{}: left by a recording that did not finish (no writer holds it); not used, reading "
                           "the trace\n",
                           found.journal));
}

}  // namespace heapql
