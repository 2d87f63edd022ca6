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
#include "engine/units.h"
#include "engine/warnings.h"

namespace heapql {

std::string live_journal_beside(const std::string& trace_path) { return trace_path + ".hqlive"; }

LiveJournalWriter::LiveJournalWriter(const std::string& trace_path, const TraceTables& tables, SourceInfo reading,
                                     EventConsumer& next, const BucketSumsSoFar* sums,
                                     std::chrono::milliseconds interval)
    : path_(live_journal_beside(trace_path)), tables_(tables), next_(next), interval_(interval), sums_(sums) {
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
  rows.has_bucket_sums = sums_ != nullptr;
  if (sums_ != nullptr) epoch_published_ = sums_->peak_epoch();
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
    if (segments_ > 0) {  // (the constructor throws instead)
      emit_warning(warnings_, fmt::format("{}: cannot write the live journal ({}): queries on the recording answer "
                                          "the part published before, up to {}, until its store is written\n",
                                          path_, failure_, format_duration(published_ns_)));
    }
    return;
  }
  bytes_written_ += bytes.size();
  ++segments_;
  published_ns_ = time_ns_;
}

void LiveJournalWriter::publish_now() {
  next_publish_ = std::chrono::steady_clock::now() + interval_;
  if (!failure_.empty()) {
    // Nothing more is written: what is pending goes, so that it does not
    // grow for the rest of the recording, and so does counting the sums.
    for (std::vector<std::uint32_t>* pending : {&buckets_, &alloc_seqs_, &frees_, &touched_}) {
      std::vector<std::uint32_t>().swap(*pending);
    }
    std::vector<TimeChange>().swap(time_changes_);
    std::vector<std::uint64_t>().swap(touched_bits_);
    sums_ = nullptr;
    return;
  }
  store_file::LiveSegmentRows rows;
  rows.tables = &tables_;
  rows.first_string = strings_;
  rows.first_frame = frames_;
  // The stack and bucket tables' rows past their last whole chunk go again
  // with the new ones, so that a reader views every chunk in place.
  rows.first_stack = tables_.stack_count() > stacks_
                         ? store_file::live_table_part_start(stacks_, store_file::kLiveStackChunkRows)
                         : stacks_;
  rows.first_process = processes_;
  rows.first_heap = heaps_;
  rows.first_bucket = tables_.bucket_count() > buckets_published_
                          ? store_file::live_table_part_start(buckets_published_, store_file::kLiveBucketChunkRows)
                          : buckets_published_;
  rows.block_buckets = buckets_;
  rows.alloc_seqs = alloc_seqs_;
  rows.frees = frees_;
  rows.time_changes = time_changes_;
  rows.events = events_;
  rows.time_ns = time_ns_;
  if (sums_ != nullptr) {
    gather_changed_sums();
    rows.has_bucket_sums = true;
    rows.changed_sums = changed_sums_;
    rows.peak = sums_->peak_now();
  }
  segment_.clear();
  store_file::append_live_segment(segment_, static_cast<std::uint32_t>(segments_), nullptr, rows);
  append(segment_);
  mark_tables_published();
  // The values short of a whole packed block go again in the next segment.
  for (std::vector<std::uint32_t>* column : {&buckets_, &alloc_seqs_, &frees_}) {
    column->erase(column->begin(),
                  column->begin() + static_cast<std::ptrdiff_t>(store_file::live_packed_values(column->size())));
  }
  time_changes_.clear();
}

// Those first allocated since the last segment, in that order; then the
// other buckets touched since; then those no event touched whose count at
// the peak is new, because the peak moved.
void LiveJournalWriter::gather_changed_sums() {
  changed_sums_.clear();
  untouched_changed_.clear();
  sums_->each_untouched_whose_peak_count_moved(epoch_published_, [&](std::uint32_t bucket) {
    if (!touched(bucket)) untouched_changed_.push_back(sums_->sum_now(bucket));
  });
  const std::size_t allocated = sums_->buckets_allocated();
  for (std::size_t i = sums_published_; i < allocated; ++i) {
    const std::uint32_t bucket = sums_->bucket_allocated(i);
    changed_sums_.push_back(sums_->sum_now(bucket));
    untouch(bucket);  // every bucket first allocated since was touched
  }
  for (const std::uint32_t bucket : touched_) {
    if (!touched(bucket)) continue;
    changed_sums_.push_back(sums_->sum_now(bucket));
    untouch(bucket);
  }
  changed_sums_.insert(changed_sums_.end(), untouched_changed_.begin(), untouched_changed_.end());
  touched_.clear();
  sums_published_ = allocated;
  epoch_published_ = sums_->peak_epoch();
}

void LiveJournalWriter::on_finish(std::int64_t end_ns) {
  // Published before `next` finishes: a store builder hands its sums over
  // then, and they are read here.
  if (end_ns > time_ns_) time_ns_ = end_ns;
  publish_now();
  next_.on_finish(end_ns);
}

void LiveJournalWriter::remove_journal() { remove_file(path_); }

}  // namespace heapql
