// Reads a heaptrack file on a background thread: decompresses, splits lines
// and decodes the `+ k` / `- k` records (nearly every line of a trace) into
// 32-bit codes, and the `t` and `a` records (most of the rest) into numbers;
// every other line is passed on as text, in order. The reading
// thread touches no trace tables, so the parser on the calling thread needs
// no locks, and the two stages share the work of a read between two cores.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

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
  struct Record {
    std::uint64_t first = 0;   // 't': instruction pointer index; 'a': size
    std::uint32_t second = 0;  // 't': parent trace index; 'a': trace index
    char type = 0;
    std::string text() const;
  };

  // A raw twin's `+ size trace address`, `- address` or `t ...` line, its
  // numbers in canonical lowercase hex; of a `t` only its place (the twin's
  // walker reads nothing else of it).
  struct RawEvent {
    std::uint64_t size = 0;     // '+'
    std::uint64_t address = 0;  // '+', '-'
    std::uint32_t trace = 0;    // '+'
    char type = 0;
  };

  // Own cache lines: the reading thread fills the next slot while the parser
  // reads this one.
  struct alignas(64) Batch {
    std::uint64_t first_line = 0;  // 1-based line number of codes[0]
    std::vector<std::uint32_t> codes;
    std::string text;
    std::vector<std::uint32_t> text_ends;  // end offset in `text` of each text line
    std::vector<Record> records;           // kRecords: the `t` / `a` records
    std::vector<RawEvent> raw_events;      // kRawEvents: what kRecordBit codes point at
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
  // waits when the other falls behind: with 3 slots walk's parser stood idle
  // 100-210 ms of a 1.1-1.35 s query, with 8 about 60-145 ms, the query
  // 6-14% faster (medians of 8 runs in turn, four times), for 3.5-7 MB more
  // memory. A reading with a raw twin runs three threads on two cores, and
  // its twin's batches are three times larger: there 8 slots cost 3 MB (the
  // interpreted file's) and 9 MB (the twin's) with no time seen (4 runs each
  // in turn), and pushed an ingest past heaptrack_print's memory.
  static constexpr std::size_t kSlotsAlone = 8;
  static constexpr std::size_t kSlotsBesideTwin = 3;

  // Opens the file (errors opening or sniffing it are thrown here) and starts reading.
  HeaptrackLinePipeline(std::string path, bool show_progress, Decode decode = Decode::kRecords,
                        std::size_t slots = kSlotsAlone);
  // Reads `bytes` (which must outlive the pipeline) as the file `name`.
  HeaptrackLinePipeline(std::string name, std::string_view bytes, Decode decode = Decode::kRecords,
                        std::size_t slots = kSlotsAlone);
  ~HeaptrackLinePipeline();
  HeaptrackLinePipeline(const HeaptrackLinePipeline&) = delete;
  HeaptrackLinePipeline& operator=(const HeaptrackLinePipeline&) = delete;

  // The next batch, valid until the next call; null at the end.
  const Batch* next();

  Compression compression() const { return compression_; }
  const std::string& path() const { return path_; }
  // Once next() has returned null: where the file ends early, if it does.
  const std::optional<TraceCut>& cut() const { return reader_->cut(); }

 private:
  // The first batches are smaller, so that the consumer's thread, which sets
  // a read's pace, starts a few milliseconds sooner; each next one is twice
  // as long, up to the batch size.
  static constexpr std::size_t kFirstBatchLines = 1 << 12;
  void produce();
  bool fill(Batch& batch);  // false once the input is exhausted or failed
  void add_line(Batch& batch, std::string_view line);

  std::string path_;
  Decode decode_;
  std::unique_ptr<LineReader> reader_;
  Compression compression_;
  HeaptrackCommandLine command_;  // between 'X' and 'I': the command's continuation lines
  std::vector<Batch> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t batch_lines_ = kFirstBatchLines;  // how many lines the next batch takes
  std::size_t produced_ = 0;
  std::size_t consumed_ = 0;
  bool holding_ = false;  // the consumer holds slots_[consumed_ % slots_.size()]
  bool finished_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace heapql
