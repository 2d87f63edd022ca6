// The live journal of a recording in progress (docs/store-format.md, "The
// live journal"): the writer that appends to it while a reader feeds the
// store builder, so that other processes answer queries on the part recorded
// so far (trace_store_location.h finds it; live_journal_format.h is its
// bytes).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/store/bucket_sums_so_far.h"
#include "engine/store/events.h"
#include "engine/store/source_info.h"
#include "engine/store/store_columns.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// NAME.zst.hqlive beside the trace NAME.zst.
std::string live_journal_beside(const std::string& trace_path);

// Sits between a reader and the store builder: forwards every EventConsumer
// call to `next` unchanged, and, checked between events (a counter, then the
// clock), at most every `interval` appends to the live journal everything
// new since its last append: the new rows of each table of `tables`, the new
// allocations and frees, the time so far, and, given `sums` (what `next`
// has counted: a store builder's), the bucket sums that changed and the
// peak, so that whole-trace queries need not replay the recording so far.
// `reading` is the SourceInfo the finished store will say. The journal file
// is created (replacing a stale one) and locked in the constructor; Error
// when it cannot be, or when another recording holds it.
class LiveJournalWriter final : public EventConsumer {
 public:
  LiveJournalWriter(const std::string& trace_path, const TraceTables& tables, SourceInfo reading, EventConsumer& next,
                    const BucketSumsSoFar* sums, std::chrono::milliseconds interval = std::chrono::seconds(1));
  ~LiveJournalWriter() override;  // leaves the file, releases the lock
  LiveJournalWriter(const LiveJournalWriter&) = delete;
  LiveJournalWriter& operator=(const LiveJournalWriter&) = delete;

  void publish_now();     // appends what is pending (also called at the end)
  void remove_journal();  // after the store file has been renamed into place
  // Why the journal stopped being written (a write failed: the disk is
  // full, say), or empty. The recording goes on without it; its readers
  // answer the part published before.
  const std::string& failure() const { return failure_; }
  // Where the warning of such a failure goes (emit_warning: stderr unless
  // collected).
  void collect_warnings(std::string* warnings) { warnings_ = warnings; }

  const std::string& path() const { return path_; }
  std::uint64_t segments() const { return segments_; }
  // Events held for the next segment (at most a packed block's tail of each
  // column once a segment is written; none once writing has failed).
  std::size_t pending_events() const { return buckets_.size() + frees_.size(); }
  std::uint64_t bytes_written() const { return bytes_written_; }

  void on_alloc(const LiveBlock& block) override {
    next_.on_alloc(block);
    note_time(block.alloc_seq, block.alloc_ns);
    buckets_.push_back(block.bucket.value);
    alloc_seqs_.push_back(static_cast<std::uint32_t>(block.alloc_seq));
    touch(block.bucket.value);
    maybe_publish();
  }
  void on_free(const LiveBlock& block, std::uint64_t free_seq, std::int64_t free_ns, bool temporary) override {
    next_.on_free(block, free_seq, free_ns, temporary);
    note_time(free_seq, free_ns);
    frees_.push_back(block.id.value | (temporary ? StoreColumns::kTemporaryBit : 0u));
    touch(block.bucket.value);
    maybe_publish();
  }
  void on_still_alive(const LiveBlock& block) override { next_.on_still_alive(block); }
  // Time passes with no event (an idle program): what is pending is
  // published all the same, once its interval is up.
  void on_clock(std::int64_t ns) override {
    next_.on_clock(ns);
    if (ns > time_ns_) time_ns_ = ns;
    if (std::chrono::steady_clock::now() >= next_publish_) publish_now();
  }
  void on_finish(std::int64_t end_ns) override;
  // The rest of EventConsumer as `next` answers it, except what would take
  // blocks away from the journal: it needs every block, so the bucket-event
  // calls and the skipped events never come (needs_blocks and
  // skippable_before_ns keep their defaults).
  bool frees_ignore_allocation_time() const override { return next_.frees_ignore_allocation_time(); }

 private:
  static constexpr std::uint32_t kEventsBetweenClockLooks = 4096;

  // As the store's column builder notes them: where the clock moves.
  void note_time(std::uint64_t seq, std::int64_t ns) {
    if (events_ == 0 || ns != last_ns_) {
      time_changes_.push_back(TimeChange{static_cast<std::uint32_t>(seq), 0, ns});
      last_ns_ = ns;
    }
    if (ns > time_ns_) time_ns_ = ns;
    events_ = seq + 1;
  }
  void maybe_publish() {
    if (++since_clock_look_ < kEventsBetweenClockLooks) return;
    since_clock_look_ = 0;
    if (std::chrono::steady_clock::now() >= next_publish_) publish_now();
  }
  // The buckets an event touched since the last segment, each once.
  void touch(std::uint32_t bucket) {
    if (sums_ == nullptr) return;
    const std::size_t word = bucket / 64;
    if (word >= touched_bits_.size()) touched_bits_.resize(word + 1 + word / 4, 0);
    const std::uint64_t bit = std::uint64_t{1} << (bucket % 64);
    if ((touched_bits_[word] & bit) != 0) return;
    touched_bits_[word] |= bit;
    touched_.push_back(bucket);
  }
  bool touched(std::uint32_t bucket) const {
    return bucket / 64 < touched_bits_.size() && (touched_bits_[bucket / 64] >> (bucket % 64) & 1) != 0;
  }
  void untouch(std::uint32_t bucket) {
    if (bucket / 64 < touched_bits_.size()) touched_bits_[bucket / 64] &= ~(std::uint64_t{1} << (bucket % 64));
  }
  // The sums that changed since the last segment, into changed_sums_.
  void gather_changed_sums();
  void append(const std::string& bytes);
  // Every table's rows so far count as published.
  void mark_tables_published();

  std::string path_;
  const TraceTables& tables_;
  EventConsumer& next_;
  std::chrono::milliseconds interval_;
  int fd_ = -1;
  // What is published of each table: the rows before these.
  std::size_t strings_ = 0, frames_ = 0, stacks_ = 0, processes_ = 0, heaps_ = 0, buckets_published_ = 0;
  // What is pending of each column.
  std::vector<std::uint32_t> buckets_, alloc_seqs_, frees_;
  std::vector<TimeChange> time_changes_;
  std::uint64_t events_ = 0;
  std::int64_t last_ns_ = 0;
  std::int64_t time_ns_ = 0;
  std::uint32_t since_clock_look_ = 0;
  std::chrono::steady_clock::time_point next_publish_;
  std::uint64_t segments_ = 0;
  std::uint64_t bytes_written_ = 0;
  // The bucket sums: where they come from, the buckets touched since the
  // last segment, how many buckets with blocks it published, and the peak's
  // epoch then (BucketSumsSoFar).
  const BucketSumsSoFar* sums_;
  std::vector<std::uint64_t> touched_bits_;
  std::vector<std::uint32_t> touched_;
  std::size_t sums_published_ = 0;
  std::uint32_t epoch_published_ = 0;
  std::vector<BucketSum> changed_sums_, untouched_changed_;
  std::string segment_;  // the segment being made, reused
  std::string failure_;
  std::string* warnings_ = nullptr;
  std::int64_t published_ns_ = 0;  // the time so far in the last segment written
};

}  // namespace heapql
