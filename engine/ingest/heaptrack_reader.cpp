#include "engine/ingest/heaptrack_reader.h"

#include <fmt/format.h>

#include <array>
#include <memory>
#include <filesystem>

#include "engine/error.h"
#include "engine/ingest/block_identity_file.h"
#include "engine/ingest/heaptrack_line_pipeline.h"
#include "engine/ingest/heaptrack_record_parser.h"
#include "engine/ingest/side_file.h"
#include "engine/binary_file/source_identity.h"
#include "engine/warnings.h"

namespace heapql {

namespace {

// Runs the batches that the line pipeline read and decoded on its thread
// through the record parser: runs of well-formed events go to the matcher
// whole, decoded `t` / `a` records take the parser's fast path, and anything
// else is handed to the checked parser line by line.
class HeaptrackBatchDriver {
 public:
  HeaptrackBatchDriver(const HeaptrackFiles& files, const std::string& user_path, TraceTables& tables,
                       EventConsumer& consumer, const HeaptrackReadOptions& options)
      : pipeline_(open_interpreted(files, options)),
        parser_(files, user_path, compression_name(pipeline_->compression()), tables, consumer, options),
        tables_(tables) {
    // A recording read as it is made: while its program idles, the consumer
    // is told the time so far, between batches (the live journal publishes).
    if (files.interpreted_stream) pipeline_->call_while_waiting([this] { parser_.tell_time(); });
  }

  SourceInfo run() {
    std::size_t batches = 0;
    while (const HeaptrackLinePipeline::Batch* batch = pipeline_->next()) {
      if (batches++ % kBatchesPerSlotCheck == 0) pipeline_->allow_slots(tables_.memory_bytes() / kTableBytesPerSlot);
      const std::uint32_t* const codes = batch->codes.data();
      const std::size_t count = batch->codes.size();
      // A run never outgrows its batch: written in place, not pushed.
      if (run_.size() < count) run_.resize(count);
      run_size_ = 0;
      bool runs = parser_.events_run();
      bool hints = parser_.takes_event_hints();
      std::size_t run_start = 0;  // the code of the first event in the run
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t code = codes[i];
        if (hints) prefetch_events_after(codes, count, i);
        if (!(code & kNotEventBits)) [[likely]] {
          const std::uint32_t index = code >> 1;
          std::uint32_t word = 0;
          if (runs && parser_.run_word(index, (code & 1) != 0, word) &&
              (!parser_.out_of_order_end_at(run_size_) || parser_.end_joins_run(word, pending_run()))) [[likely]] {
            if (run_size_ == 0) run_start = i;
            run_[run_size_++] = word;
            continue;
          }
          flush_run(*batch, run_start);
          parser_.set_line(batch->first_line + i);
          parser_.apply_event(index, (code & 1) != 0);
        } else if (code & HeaptrackLinePipeline::kRecordBit) {
          // A `t` or `a` record only grows the tables: the run goes on.
          parser_.set_line(batch->first_line + i);
          const std::size_t r = code & ~HeaptrackLinePipeline::kRecordBit;
          if (r + kLookAhead < batch->records.size()) parser_.look_ahead(batch->records[r + kLookAhead]);
          const HeaptrackLinePipeline::Record& record = batch->records[r];
          if (!parser_.apply_record(record)) {
            flush_run(*batch, run_start);  // leaves the line as it is, unless it throws
            parser_.handle(record.text());
            runs = parser_.events_run();
            hints = parser_.takes_event_hints();
          }
        } else {
          flush_run(*batch, run_start);
          parser_.set_line(batch->first_line + i);
          parser_.handle(batch->text_line(code));
          runs = parser_.events_run();
          hints = parser_.takes_event_hints();
        }
      }
      flush_run(*batch, run_start);
      if (count > 0) parser_.set_line(batch->first_line + count - 1);
      if (batch->error) std::rethrow_exception(batch->error);
    }
    return parser_.finish(pipeline_->cut(), pipeline_->bytes_read(), pipeline_->left_over_start());
  }

 private:
  // How many records ahead a record's lookups are fetched (look_ahead): 8
  // did as well, 32 saved the lookups less (docs/one-shot-speed.md, "Hints
  // for the records that need them").
  static constexpr std::size_t kLookAhead = 16;
  // Batches may wait in a slot for each 4 MiB the tables take, and in
  // HeaptrackLinePipeline::kSlotsAlone at least: a slot's memory is small
  // beside tables that size, and big tables make the slow parser that
  // needs the slack.
  static constexpr std::size_t kTableBytesPerSlot = std::size_t{4} << 20;
  static constexpr std::size_t kBatchesPerSlotCheck = 16;
  static constexpr std::uint32_t kNotEventBits = HeaptrackLinePipeline::kTextBit | HeaptrackLinePipeline::kRecordBit;

  static std::unique_ptr<HeaptrackLinePipeline> open_interpreted(const HeaptrackFiles& files,
                                                                 const HeaptrackReadOptions& options) {
    constexpr auto kDecode = HeaptrackLinePipeline::Decode::kRecords;
    if (files.interpreted_stream) {
      return std::make_unique<HeaptrackLinePipeline>(files.interpreted, *files.interpreted_stream, kDecode,
                                                     slots(files));
    }
    if (files.interpreted_bytes) {
      return std::make_unique<HeaptrackLinePipeline>(files.interpreted, *files.interpreted_bytes, kDecode,
                                                     slots(files));
    }
    return std::make_unique<HeaptrackLinePipeline>(files.interpreted, options.show_progress && !files.raw, kDecode,
                                                   slots(files));
  }

  static std::size_t slots(const HeaptrackFiles& files) {
    return files.raw ? HeaptrackLinePipeline::kSlotsBesideTwin : HeaptrackLinePipeline::kMostSlotsAlone;
  }

  std::span<const std::uint32_t> pending_run() const { return {run_.data(), run_size_}; }

  // Events applied one by one (a read that keeps every block) each look up
  // their bucket's live blocks and the store's counts, at random among
  // millions: the lookups of the events kFarAhead and kNearAhead codes on
  // are fetched now, in two steps (a free's block is found through its
  // bucket's list).
  static constexpr std::size_t kFarAhead = 16, kNearAhead = 8;
  void prefetch_events_after(const std::uint32_t* codes, std::size_t count, std::size_t i) const {
    if (i + kFarAhead < count) {
      const std::uint32_t far = codes[i + kFarAhead];
      if (!(far & kNotEventBits)) parser_.prefetch_event_far(far >> 1);
    }
    if (i + kNearAhead < count) {
      const std::uint32_t near = codes[i + kNearAhead];
      if ((near & (kNotEventBits | 1)) == 1) parser_.prefetch_free_near(near >> 1);  // an event, and a free
    }
  }

  // Applies the pending run of events. A free that finds no live block stops
  // it; the checked parser then counts that free at its line (an anomaly,
  // semantics.md §1), and the rest of the run goes on.
  void flush_run(const HeaptrackLinePipeline::Batch& batch, std::size_t run_start) {
    std::span<const std::uint32_t> rest = pending_run();
    run_size_ = 0;
    std::size_t at = run_start;  // the code of rest's first event
    while (!rest.empty()) {
      const std::size_t applied = parser_.apply_run(rest);
      if (applied == rest.size()) return;
      // The run holds every event code from `at` on: find the refused one.
      for (std::size_t seen = 0;; ++at) {
        if (batch.codes[at] & kNotEventBits) continue;
        if (seen++ == applied) break;
      }
      parser_.set_line(batch.first_line + at);
      parser_.apply_event(batch.codes[at] >> 1, (batch.codes[at] & 1) != 0);
      rest = rest.subspan(applied + 1);
      ++at;
    }
  }

  std::unique_ptr<HeaptrackLinePipeline> pipeline_;  // the interpreted file, read on a second thread
  heaptrack::RecordParser parser_;                   // its raw twin, if any, walked in step on this one
  const TraceTables& tables_;
  // The current run's events (see flush_run): the first run_size_ of run_.
  std::vector<std::uint32_t> run_;
  std::size_t run_size_ = 0;
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

namespace {

constexpr std::array<std::string_view, 3> kSuffixes = {".zst", ".gz", ""};

// `path` without its compression suffix.
std::string stem_of(const std::string& path) {
  for (std::string_view s : kSuffixes) {
    if (!s.empty() && ends_with(path, s)) return path.substr(0, path.size() - s.size());
  }
  return path;
}

}  // namespace

std::vector<std::string> heaptrack_side_file_names(const std::string& path) {
  const std::string stem = stem_of(path);
  std::vector<std::string> names;
  const bool raw = ends_with(stem, ".raw");
  for (std::string_view s : kSuffixes) {
    names.push_back((raw ? stem.substr(0, stem.size() - 4) : stem + ".raw") + std::string(s));
  }
  if (!raw) names.push_back(heaptrack::block_identity_beside(path));
  return names;
}

bool is_heaptrack_raw_file_name(const std::string& path) { return ends_with(stem_of(path), ".raw"); }

HeaptrackFiles find_heaptrack_files(const std::string& path, bool use_raw_twin, bool confined) {
  const std::string stem = stem_of(path);
  if (ends_with(stem, ".raw")) {
    const std::string base = stem.substr(0, stem.size() - 4);
    for (std::string_view s : kSuffixes) {
      const std::string candidate = base + std::string(s);
      if (side_file_present(candidate, confined)) {
        HeaptrackFiles files;
        files.interpreted = candidate;
        files.raw = path;
        return files;
      }
    }
    throw Error(SourceLocation::of_file(path), fmt::format("a raw heaptrack file needs its interpreted twin ({}.zst, .gz or "
                                                  "plain) beside it: run heaptrack_interpret on it, or record with "
                                                  "`heapql record`",
                                                  base));
  }
  HeaptrackFiles files;
  files.interpreted = path;
  if (!use_raw_twin) return files;
  for (std::string_view s : kSuffixes) {
    const std::string candidate = stem + ".raw" + std::string(s);
    if (side_file_present(candidate, confined)) {
      files.raw = candidate;
      break;
    }
  }
  const std::string identity = heaptrack::block_identity_beside(path);
  // A folder there is named by the identity file's reader as what it is.
  if (side_file_at(identity, confined) == SideFile::kNone) return files;
  const FileIdentity written_for = heaptrack::peek_block_identity_file(identity);
  // Compared with the trace where it is now: a folder moved or copied whole keeps it.
  const FileIdentity here = store_file::identify_file(path);
  const std::string change = store_file::identity_change(written_for, here);
  std::string why;
  if (!change.empty()) {
    why = written_for.path != here.path
              ? fmt::format("it was written for {}, and this trace differs from it ({})", written_for.path, change)
              : fmt::format("{} has changed since it was written ({})", path, change);
  }
  if (why.empty()) {
    files.raw.reset();
    files.identity = identity;
  } else {
    files.identity_passed_over = fmt::format("{}: not used, {}; {}", identity, why,
                                             files.raw ? "reading the raw twin" : "blocks are paired bucket-lifo");
  }
  return files;
}

SourceInfo read_heaptrack(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                          const HeaptrackReadOptions& options) {
  const HeaptrackFiles files = find_heaptrack_files(path, options.use_raw_twin, options.confined);
  if (!files.identity_passed_over.empty()) emit_warning(options.warnings, files.identity_passed_over + "\n");
  HeaptrackBatchDriver parser(files, path, tables, consumer, options);
  return parser.run();
}

SourceInfo read_heaptrack(const HeaptrackFiles& files, TraceTables& tables, EventConsumer& consumer,
                          const HeaptrackReadOptions& options) {
  HeaptrackBatchDriver parser(files, files.interpreted, tables, consumer, options);
  return parser.run();
}

}  // namespace heapql
