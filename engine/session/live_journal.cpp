// The live journal's writer (live_journal.h).
#include "engine/session/live_journal.h"

#include <cerrno>

#include <fmt/format.h>

#include "engine/error.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/file_lock.h"
#include "engine/platform/open_file.h"
#include "engine/platform/positioned_io.h"
#include "engine/platform/process_id.h"
#include "engine/platform/replace_file.h"
#include "engine/store_file/live_journal_format.h"

namespace heapql {

std::string live_journal_beside(const std::string& trace_path) { return trace_path + ".hqlive"; }

LiveJournalWriter::LiveJournalWriter(const std::string& trace_path, const TraceTables& tables, SourceInfo reading,
                                     EventConsumer& next, std::chrono::milliseconds interval)
    : path_(live_journal_beside(trace_path)), tables_(tables), next_(next), interval_(interval) {
  if (file_lock_is_held(path_)) {
    throw Error(SourceLocation::of_file(path_), "another recording is writing this live journal");
  }
  // Made and locked under a name of its own, then renamed into place with
  // its first segment: a reader finds no journal, a stale one, or this one
  // locked and whole, never this one unlocked or empty.
  const std::string made = fmt::format("{}.{}.tmp", path_, current_process_id());
  fd_ = open_file(made, O_RDWR | O_CREAT | O_TRUNC);
  if (fd_ < 0) throw Error(SourceLocation::of_file(made), "cannot create the live journal: " + errno_text(errno));
  if (!lock_file_exclusively(fd_)) {
    const int error = errno;
    close_file(fd_);
    remove_file(made);
    throw Error(SourceLocation::of_file(made), "cannot lock the live journal: " + errno_text(error));
  }
  store_file::LiveSegmentRows rows;
  rows.tables = &tables_;
  segment_.clear();
  store_file::append_live_segment(segment_, 0, &reading, rows);
  append(segment_);
  if (!failure_.empty() || rename_replacing(made, path_) != 0) {
    const std::string why = failure_.empty() ? errno_text(errno) : failure_;
    close_file(fd_);
    remove_file(made);
    throw Error(SourceLocation::of_file(path_), "cannot write the live journal: " + why);
  }
  mark_tables_published();
  next_publish_ = std::chrono::steady_clock::now() + interval_;
}

void LiveJournalWriter::mark_tables_published() {
  strings_ = tables_.string_count();
  frames_ = tables_.frame_count();
  stacks_ = tables_.stack_count();
  processes_ = tables_.process_count();
  heaps_ = tables_.heap_count();
  buckets_published_ = tables_.bucket_count();
}

LiveJournalWriter::~LiveJournalWriter() {
  if (fd_ >= 0) {
    unlock_file(fd_);
    close_file(fd_);
  }
}

void LiveJournalWriter::append(const std::string& bytes) {
  if (!failure_.empty()) return;
  const std::int64_t written = write_at(fd_, bytes.data(), bytes.size(), bytes_written_);
  if (written != static_cast<std::int64_t>(bytes.size())) {
    // A part written is a segment not yet written to readers: it stays so.
    failure_ = written < 0 ? errno_text(errno) : "the disk took only part of a segment";
    return;
  }
  bytes_written_ += bytes.size();
  ++segments_;
}

void LiveJournalWriter::publish_now() {
  next_publish_ = std::chrono::steady_clock::now() + interval_;
  if (!failure_.empty()) return;
  store_file::LiveSegmentRows rows;
  rows.tables = &tables_;
  rows.first_string = strings_;
  rows.first_frame = frames_;
  rows.first_stack = stacks_;
  rows.first_process = processes_;
  rows.first_heap = heaps_;
  rows.first_bucket = buckets_published_;
  rows.block_buckets = buckets_;
  rows.alloc_seqs = alloc_seqs_;
  rows.frees = frees_;
  rows.time_changes = time_changes_;
  rows.events = events_;
  rows.time_ns = time_ns_;
  segment_.clear();
  store_file::append_live_segment(segment_, static_cast<std::uint32_t>(segments_), nullptr, rows);
  append(segment_);
  mark_tables_published();
  buckets_.clear();
  alloc_seqs_.clear();
  frees_.clear();
  time_changes_.clear();
}

void LiveJournalWriter::on_finish(std::int64_t end_ns) {
  next_.on_finish(end_ns);
  if (end_ns > time_ns_) time_ns_ = end_ns;
  publish_now();
}

void LiveJournalWriter::remove_journal() { remove_file(path_); }

}  // namespace heapql
