// Reads a heaptrack file on a background thread: decompresses, splits lines
// and decodes the `+ k` / `- k` records (nearly every line of a trace) into
// 32-bit codes, and the `t` and `a` records (most of the rest) into numbers;
// every other line is passed on as text, in order. The reading
// thread touches no trace tables, so the parser on the calling thread needs
// no locks, and the two stages share the work of a read between two cores.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/ingest/decoded_column.h"
#include "engine/ingest/heaptrack_command_line.h"
#include "engine/ingest/line_reader.h"

namespace heapql {

class HeaptrackLinePipeline {
 public:
  // A code is kTextBit | text line number within the batch, kRecordBit |
  // record (or raw event) number within the batch, or index << 1 | (1 for
  // '-', 0 for '+').
  static constexpr std::uint32_t kTextBit = 0x80000000u;
  static constexpr std::uint32_t kRecordBit = 0x40000000u;
  static constexpr std::uint32_t kMaxIndex = (1u << 29) - 1;

  // A `t ip parent` or `a size trace` line, its numbers written in canonical
  // lowercase hex (no leading zeros), so `text()` gives back the line exactly.
  // No default values: see DecodedColumn.
  struct Record {
    std::uint64_t first;   // 't': instruction pointer index; 'a': size
    std::uint32_t second;  // 't': parent trace index; 'a': trace index
    char type;
    std::string text() const;
  };
  using RecordWriter = DecodedColumn<Record>::Writer;

  // A raw twin's `+ size trace address`, `- address` or `t ...` line, its
  // numbers in canonical lowercase hex; of a `t` only its place (the twin's
  // walker reads nothing else of it). No default values: see DecodedColumn.
  struct RawEvent {
    std::uint64_t size;     // '+'
    std::uint64_t address;  // '+', '-'
    std::uint32_t trace;    // '+'
    char type;
  };
  using RawEventWriter = DecodedColumn<RawEvent>::Writer;

  // Own cache lines: the reading thread fills the next slot while the parser
  // reads this one.
  struct alignas(64) Batch {
    std::uint64_t first_line = 0;  // 1-based line number of codes[0]
    std::vector<std::uint32_t> codes;
    std::string text;
    std::vector<std::uint32_t> text_ends;  // end offset in `text` of each text line
    DecodedColumn<Record> records;         // kRecords: the `t` / `a` records
    DecodedColumn<RawEvent> raw_events;    // kRawEvents: what kRecordBit codes point at
    std::exception_ptr error;              // reading failed after the lines of this batch

    std::string_view text_line(std::uint32_t code) const {
      const std::uint32_t i = code & ~kTextBit;
      const std::uint32_t begin = i == 0 ? 0 : text_ends[i - 1];
      return std::string_view(text).substr(begin, text_ends[i] - begin);
    }
  };

  // What the reading thread decodes: the interpreted file's records, or a
  // raw twin's events (`+`, `-`, `t`), whose walker then only checks them.
  enum class Decode { kRecords, kRawEvents };

  // How many batches wait decoded for the consumer. Either thread's pace
  // moves from batch to batch (the trace's content, the machine), and each
  // waits when the other falls behind: 8 slots keep the parser waiting far
  // less than 3 did. On a VM whose cores are shared, one thread may also
  // stop for tens of milliseconds while the other runs on, which more slots
  // ride out; but each slot is memory, which a trace with small tables (a
  // quick parser, waiting on its reader anyway) would spend for nothing. So
  // past the first kSlotsAlone, slots are taken only as the reader allows
  // (allow_slots), by the size of its tables, up to kMostSlotsAlone.
  // A reading with a raw twin runs three threads on two cores, and its
  // twin's batches are three times larger: there more slots bought no time
  // and pushed an ingest past heaptrack_print's memory.
  // (Measured: docs/one-shot-speed.md, "More batches decoded ahead" and
  // "Deeper queue on slow stretches".)
  static constexpr std::size_t kSlotsAlone = 8;
  static constexpr std::size_t kMostSlotsAlone = 32;
  static constexpr std::size_t kSlotsBesideTwin = 3;
  // A batch of the interpreted file also ends at this many `t` / `a`
  // records: a slot's record column then holds 256 KiB at most, where a
  // stretch of new stacks (a batch of records alone) had left each of up
  // to 32 slots holding 1 MiB for the rest of the read
  // (docs/one-shot-speed.md, "Batches bounded by their records").
  static constexpr std::size_t kBatchRecords = std::size_t{1} << 14;

  // Opens the file (errors opening or sniffing it are thrown here) and starts reading.
  HeaptrackLinePipeline(std::string path, bool show_progress, Decode decode = Decode::kRecords,
                        std::size_t slots = kSlotsAlone);
  // Reads `bytes` (which must outlive the pipeline) as the file `name`.
  HeaptrackLinePipeline(std::string name, std::string_view bytes, Decode decode = Decode::kRecords,
                        std::size_t slots = kSlotsAlone);
  // Reads `stream` (which must outlive the pipeline) as the file `name`, as it arrives.
  HeaptrackLinePipeline(std::string name, ByteStream& stream, Decode decode = Decode::kRecords,
                        std::size_t slots = kSlotsAlone);
  ~HeaptrackLinePipeline();
  HeaptrackLinePipeline(const HeaptrackLinePipeline&) = delete;
  HeaptrackLinePipeline& operator=(const HeaptrackLinePipeline&) = delete;

  // The next batch, valid until the next call; null at the end.
  const Batch* next();
  // While next() waits for a batch (a recording in progress whose program
  // idles), `call` runs every kWaitingCallEvery on the caller's thread,
  // between two batches.
  void call_while_waiting(std::function<void()> call) { while_waiting_ = std::move(call); }
  static constexpr std::chrono::milliseconds kWaitingCallEvery{250};

  // How many slots batches may wait in: past the first kSlotsAlone, only as
  // many as the caller allows (none before the first call), at most the
  // number the pipeline was made with. Thread-safe.
  void allow_slots(std::size_t count);
  // How many slots have been filled so far. Thread-safe.
  std::size_t slots_used() const;

  Compression compression() const { return compression_; }
  const std::string& path() const { return path_; }
  // Once next() has returned null: where the file ends early, if it does.
  const std::optional<TraceCut>& cut() const { return reader_->cut(); }
  // Once next() has returned null: the start of a last line cut off, if any.
  const std::string& left_over_start() const { return reader_->left_over_start(); }
  // Once next() has returned null: the bytes of the file read, all of it.
  std::uint64_t bytes_read() const { return reader_->compressed_bytes_read(); }

 private:
  // The first batches are smaller, so that the consumer's thread, which sets
  // a read's pace, starts a few milliseconds sooner; each next one is twice
  // as long, up to the batch size.
  static constexpr std::size_t kFirstBatchLines = 1 << 12;
  void start();
  bool may_take_slot() const;  // with mutex_ held
  void produce();
  bool fill(Batch& batch);  // false once the input is exhausted or failed
  // The code of a line handed out alone (its text kept in the batch when it
  // is not decoded).
  std::uint32_t line_code(Batch& batch, RecordWriter& records, RawEventWriter& raw_events, std::string_view line);

  std::string path_;
  Decode decode_;
  std::unique_ptr<LineReader> reader_;
  Compression compression_;
  HeaptrackCommandLine command_;  // between 'X' and 'I': the command's continuation lines
  std::vector<Batch> slots_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> while_waiting_;
  std::size_t batch_lines_ = kFirstBatchLines;  // how many lines the next batch takes
  // Slots waiting to be filled, the one freed last on top: a read whose
  // parser keeps up takes the same few slots again and again, and touches
  // no other slot's memory.
  std::vector<std::size_t> free_slots_;
  std::deque<std::size_t> filled_slots_;  // in the file's order
  std::optional<std::size_t> held_slot_;  // the batch the consumer holds
  std::size_t slots_used_ = 0;            // slots [0, slots_used_) have been filled
  std::size_t allowed_slots_ = 0;         // see allow_slots
  bool finished_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace heapql
