// The records of a heaptrack interpreted file (../shared/formats/heaptrack.md)
// into TraceTables and a block matcher: the checked parser of every record
// type, and the fast paths that the batch driver (heaptrack_reader.cpp) takes
// for the events and `t` / `a` records its reading thread decoded, which hand
// anything unusual to the checked parser to explain. A raw twin, when there
// is one, is walked in step (heaptrack_raw_twin.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/error.h"
#include "engine/ingest/anomaly_report.h"
#include "engine/ingest/block_identity_file.h"
#include "engine/ingest/heaptrack_closing_lines.h"
#include "engine/ingest/heaptrack_command_line.h"
#include "engine/ingest/heaptrack_line_pipeline.h"
#include "engine/ingest/heaptrack_raw_twin.h"
#include "engine/ingest/heaptrack_reader.h"
#include "engine/ingest/block_matcher.h"
#include "engine/util/chunked_vector.h"
#include "engine/util/id_run_column.h"

namespace heapql::heaptrack {

// heaptrack's clock: milliseconds since the program started (its `c` records).
inline constexpr std::int64_t kTimeResolutionNs = 1'000'000;

class Fields;

class RecordParser {
 public:
  RecordParser(const HeaptrackFiles& files, const std::string& user_path, std::string_view compression,
               TraceTables& tables, EventConsumer& consumer, const HeaptrackReadOptions& options);

  // The line being handled: a batch starts before its first line, and each
  // record moves on one.
  void start_batch(std::uint64_t first_line) { line_ = first_line - 1; }
  void next_line() { ++line_; }
  void set_line(std::uint64_t line) { line_ = line; }
  SourceLocation location() const { return SourceLocation{path_, line_, {}, {}}; }
  heaptrack::RawTwin::Asker asker() const { return {path_, line_}; }

  // Any line, checked: an Error naming the file and line when it is malformed.
  void handle(std::string_view line);

  // A `+ k` / `- k` line the reading thread decoded. Anything unusual about
  // it (an old format, an index out of range, no live block) goes through
  // the checked parser, which explains it (an error) or counts it (an
  // anomaly, semantics.md §1).
  void apply_event(std::uint32_t index, bool is_free) {
    if (matcher_ && format_version_ >= 1 && index < alloc_infos_.size() && !command_.open()) {
      if (raw_) return is_free ? free_with_twin(index) : alloc_with_twin(index);
      const BucketId bucket = alloc_info_bucket(index);
      if (next_end_seq_ == matcher_->event_count() && take_out_of_order_ends(bucket, is_free)) return;
      if (!is_free) return matcher_->alloc(bucket, 0);
      if (matcher_->free_bucket(bucket)) return;
    }
    handle_decoded_event(index, is_free);
  }

  // Hints: the event of allocation info `index` comes soon, far ahead or
  // near. Only while takes_event_hints(): apply_event then takes events to
  // the matcher's bucket lists (with a raw twin, to its order of each
  // bucket's blocks, which tells the out-of-order ends).
  bool takes_event_hints() const {
    return matcher_ && format_version_ >= 1 && !command_.open() && matcher_->takes_hints();
  }
  void prefetch_event_far(std::uint32_t index) const {
    if (index < alloc_infos_.size()) matcher_->prefetch_far(alloc_info_bucket(index));
  }
  void prefetch_free_near(std::uint32_t index) const {
    if (index < alloc_infos_.size()) matcher_->prefetch_near_free(alloc_info_bucket(index));
  }

  // A `t` / `a` line the reading thread decoded; false for anything unusual
  // about it, which the checked parser (handle) then explains, as for events.
  bool apply_record(const HeaptrackLinePipeline::Record& record) {
    if (saw_version_ && !command_.open()) {
      if (record.type == 't') {
        if (record.first != 0 && record.first < ips_.size() && record.second < traces_.size()) {
          if (raw_) raw_->next_trace(*matcher_, asker());
          add_trace(static_cast<std::uint32_t>(record.first), record.second);
          return true;
        }
      } else if (record.second < traces_.size()) {
        add_alloc_info(record.first, record.second);
        return true;
      }
    }
    return false;
  }

  // Whether well-formed events may go to the matcher in runs (bucket events
  // of a counting consumer) rather than one by one.
  bool events_run() const {
    return matcher_ && matcher_->counting() && format_version_ >= 1 && !command_.open();
  }

  // The run word of an event of allocation info `index` (bucket << 1 |
  // free), or false when the event cannot join a run.
  bool run_word(std::uint32_t index, bool is_free, std::uint32_t& word) const {
    if (index >= alloc_infos_.size()) return false;
    const std::uint32_t bucket = alloc_infos_[index];
    if (bucket > kMaxRunBucket) return false;
    word = bucket << 1 | (is_free ? 1u : 0u);
    return true;
  }

  // Whether the block-identity file ends a block out of order as the event
  // `pending` events after the matcher's next one (`run` holds them).
  // Unless the event may join the run anyway (end_joins_run), it must not:
  // apply_event applies it.
  bool out_of_order_end_at(std::size_t pending) const {
    return next_end_seq_ == matcher_->event_count() + pending;
  }
  // A free out of order joins a run as a plain free when the consumer's
  // counts ignore allocation times (the whole trace): it differs from the
  // bucket's LIFO free only in never being temporary, and a run's free is
  // not when the event before it allocated in another bucket. Takes the end.
  bool end_joins_run(std::uint32_t word, std::span<const std::uint32_t> run) {
    if (!ends_join_runs_ || !next_end_.is_free || !(word & 1)) return false;
    const bool allocated_here_before =
        run.empty() ? matcher_->last_alloc_bucket() == (word >> 1) : run.back() == (word & ~1u);
    if (allocated_here_before) return false;
    read_next_end();
    return true;
  }

  // Applies a run of events (run words); returns how many were applied
  // before a free that found no live block (apply_event counts that one).
  std::size_t apply_run(std::span<const std::uint32_t> run) { return matcher_->bucket_run(run); }

  // A hint: `record` is applied soon. Most records continue what the record
  // before began, in tables still in the cache; one that refers to an older
  // trace looks up a node or bucket the cache has lost, so its lookup's
  // memory is fetched now.
  void look_ahead(const HeaptrackLinePipeline::Record& record) const {
    if (!refers_to_old_trace(record)) return;
    const StackId stack = trace_stack(record.second);
    if (record.type == 't') {
      if (record.first == 0 || record.first >= ips_.size()) return;
      const InstructionPointer& ip = ips_[record.first];
      if (ip.frames_built) tables_.prefetch_stack(frames_[ip.first_frame + frame_count(ip) - 1], stack);
    } else if (heap_.valid()) {
      tables_.prefetch_bucket(heap_bucket(record.first, stack));
    }
  }

  // After the last line: the checks of a whole file, and what was learned.
  // `cut`: where the interpreted file ends early, if its reading found it;
  // `end_byte`: where the file ends; `left_over_start`: the first bytes of
  // a last line cut off (LineReader::left_over_start).
  SourceInfo finish(std::optional<TraceCut> cut, std::uint64_t end_byte, std::string_view left_over_start);

 private:
  static constexpr std::uint32_t kMaxRunBucket = 0x7FFFFFFFu;  // a run word is bucket << 1 | free
  static constexpr std::size_t kRecentTraces = 64;  // traces whose lookups the cache still holds
  bool refers_to_old_trace(const HeaptrackLinePipeline::Record& record) const {
    return record.second < traces_.size() && traces_.size() - record.second > kRecentTraces;
  }

// One `i` record: an instruction pointer and its frames, innermost first.
  struct InstructionPointer {
    std::uint64_t address = 0;
    std::uint32_t module_path = 0;  // file string index, 0 = unknown
    std::uint32_t first_symbol = 0;  // into symbols_ (file string indices, 0 = unknown)
    std::uint32_t symbol_count = 0;
    std::uint32_t first_frame = 0;   // into frames_, once built
    bool frames_built = false;
  };

  static std::size_t frame_count(const InstructionPointer& ip) { return ip.symbol_count == 0 ? 1 : ip.symbol_count; }

  // An event apply_event could not take: written out and handed to the
  // checked parser, which explains what is wrong with it.
  void handle_decoded_event(std::uint32_t index, bool is_free);
  // What `info` shows of the file: its versions, page size, attach mode.
  SourceDetails details() const;
  void on_unknown(char type, Fields& f);
  void on_version(Fields& f);
  void on_command(Fields& f);
  std::string_view string_field(Fields& f, std::string_view what);
  void on_string(Fields& f);
  std::uint32_t string_index(Fields& f, std::string_view what);
  void on_ip(Fields& f);
  // Frames of an IP, innermost first; built on first use, when the raw twin
  // has told us the module bases.
  std::pair<const FrameId*, std::size_t> frames_of(InstructionPointer& ip) {
    if (!ip.frames_built) build_frames(ip);
    return {frames_.data() + ip.first_frame, frame_count(ip)};
  }
  void build_frames(InstructionPointer& ip);
  void on_trace(Fields& f);
  void add_trace(std::uint32_t ip_index, std::uint32_t parent);
  void ensure_process();
  BucketId bucket_for(std::uint64_t size, std::uint32_t trace);
  std::uint32_t trace_index(Fields& f, std::string_view what);
  void on_alloc_info(Fields& f);
  void add_alloc_info(std::uint64_t size, std::uint32_t trace);
  std::uint32_t alloc_info_index(Fields& f);
  void on_alloc(Fields& f);
  void alloc_with_twin(std::uint32_t index);
  void on_free(Fields& f);
  // A free whose bucket has no live block (bucket-LIFO identity).
  void free_without_block(std::uint32_t index, BucketId bucket);
  // Notes what an address-paired event just counted, if it counted anything.
  void note_counted(const Anomalies& before, std::uint64_t address);
  void free_with_twin(std::uint32_t index);
  void on_clock(Fields& f);

 public:
  // Tells the consumer the trace's time so far (EventConsumer::on_clock),
  // between two lines.
  void tell_time() { consumer_.on_clock(matcher_->time()); }

 private:
  // No whole line was read: why, as an Error.
  [[noreturn]] void no_whole_line(const std::optional<TraceCut>& cut, std::string_view left_over_start) const;
  ClosingLines::Counts closing_counts() const { return {strings_.size() - 1, ips_.size() - 1, line_ - quiet_lines_}; }
  // The block-identity file's ends due before the event of `bucket` about
  // to be applied; true when one of them is that event (a free out of order).
  bool take_out_of_order_ends(BucketId bucket, bool is_free);
  void read_next_end();
  [[noreturn]] void identity_disagrees(const std::string& what) const;
  // The last trace's stack needs no lookup: a `t` record's parent is the
  // trace before it in three of four on walk and nine of ten on a clang++
  // compile, where a lookup often takes the run column's rank path.
  StackId trace_stack(std::uint32_t trace) const {
    return StackId(trace + 1 == traces_.size() ? traces_.back() : traces_[trace]);
  }
  // The bucket of an `a` record: heaptrack traces one heap of one process.
  Bucket heap_bucket(std::uint64_t size, StackId stack) const {
    return Bucket{size, stack, heap_, 0, BlockKind::kHeap, false};
  }
  BucketId alloc_info_bucket(std::uint32_t index) const { return BucketId(alloc_infos_[index]); }

  TraceTables& tables_;
  const HeaptrackReadOptions& options_;
  AnomalyReport anomaly_report_;
  std::string path_;        // the interpreted file
  std::uint64_t line_ = 0;  // the line being handled
  std::optional<RawTwin> raw_;
  // Exact without the twin: its block-identity file, and its next end.
  static constexpr std::uint64_t kNoEnd = ~std::uint64_t{0};
  std::optional<BlockIdentityReader> identity_;
  OutOfOrderEndRecord next_end_;
  std::uint64_t next_end_seq_ = kNoEnd;
  bool ends_join_runs_ = false;  // see end_joins_run
  // With the twin, when asked: the block-identity file being written.
  std::unique_ptr<BlockIdentityWriter> identity_writer_;
  bool identify_interpreted_at_finish_ = false;  // the interpreted file was a stream being written
  EventConsumer& consumer_;
  std::optional<BlockMatcher> matcher_;  // made at the 'v' record, which decides identity
  SourceInfo info_;
  bool saw_version_ = false;
  bool saw_command_ = false;
  HeaptrackCommandLine command_;      // between 'X' and 'I': command continuation lines
  std::uint32_t format_version_ = 0;
  std::string tracer_version_;  // e.g. "1.4.0"
  std::uint64_t page_size_ = 0;
  bool attached_ = false;       // started by attaching: earlier allocations unknown
  std::uint64_t peak_rss_pages_ = 0;
  std::uint64_t decreasing_timestamps_ = 0;
  std::uint64_t skipped_records_ = 0;
  std::uint64_t quiet_lines_ = 0;  // empty lines and comments
  ClosingLines closing_;
  ProcessId process_;
  HeapId heap_;
  std::vector<StringId> strings_;
  std::vector<std::uint32_t> symbols_;
  std::vector<InstructionPointer> ips_;
  std::vector<FrameId> frames_;
  IdRunColumn traces_;       // each trace's stack
  // Each allocation info's bucket, looked up once an event: plain once
  // breaks are common, as in a C++ program's trace.
  IdRunColumn alloc_infos_{IdRunColumn::WhenBreaksAreCommon::kTurnPlain};
};

}  // namespace heapql::heaptrack
