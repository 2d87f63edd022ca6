#include "engine/ingest/heaptrack_line_pipeline.h"

#include "engine/ingest/hex_digit.h"

namespace heapql {

namespace {

constexpr std::size_t kBatchLines = 1 << 16;
constexpr std::size_t kBatchTextBytes = 1 << 20;

// The code of a well-formed `+ k` / `- k` line, or kTextBit when the line is
// anything else (the parser then reads, or rejects, it as text).
std::uint32_t event_code(std::string_view line) {
  if (line.size() < 3 || line.size() > 10 || line[1] != ' ' || (line[0] != '+' && line[0] != '-')) {
    return HeaptrackLinePipeline::kTextBit;
  }
  std::uint32_t value = 0;
  for (std::size_t i = 2; i < line.size(); ++i) {
    const std::uint8_t digit = hex_digit(line[i]);
    if (digit == kNotHexDigit) return HeaptrackLinePipeline::kTextBit;
    value = value << 4 | digit;
  }
  if (value > HeaptrackLinePipeline::kMaxIndex) return HeaptrackLinePipeline::kTextBit;
  return value << 1 | (line[0] == '-' ? 1u : 0u);
}

}  // namespace

HeaptrackLinePipeline::HeaptrackLinePipeline(std::string path, bool show_progress)
    : path_(std::move(path)),
      reader_(std::make_unique<LineReader>(path_, show_progress)),
      compression_(reader_->compression()),
      slots_(kSlots) {
  thread_ = std::thread([this] { produce(); });
}

HeaptrackLinePipeline::~HeaptrackLinePipeline() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

bool HeaptrackLinePipeline::fill(Batch& batch) {
  batch.codes.clear();
  batch.text.clear();
  batch.text_ends.clear();
  batch.error = nullptr;
  batch.first_line = reader_->line_number() + 1;
  std::string_view line;
  try {
    while (batch.codes.size() < kBatchLines && batch.text.size() < kBatchTextBytes) {
      if (!reader_->next(line)) return false;
      // The command line of an 'X' record may run on over several lines
      // (heaptrack does not escape it) until the 'I' record.
      std::uint32_t code = in_command_ ? kTextBit : event_code(line);
      if (code == kTextBit) {
        if (in_command_) {
          in_command_ = line.rfind("I ", 0) != 0;
        } else if (line.rfind("X ", 0) == 0) {
          in_command_ = true;
        }
        code = kTextBit | static_cast<std::uint32_t>(batch.text_ends.size());
        batch.text.append(line);
        batch.text_ends.push_back(static_cast<std::uint32_t>(batch.text.size()));
      }
      batch.codes.push_back(code);
    }
    return true;
  } catch (...) {
    batch.error = std::current_exception();
    return false;
  }
}

void HeaptrackLinePipeline::produce() {
  for (;;) {
    std::size_t slot;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || produced_ - consumed_ < kSlots; });
      if (stop_) return;
      slot = produced_ % kSlots;
    }
    const bool more = fill(slots_[slot]);
    {
      std::lock_guard lock(mutex_);
      ++produced_;
      if (!more) finished_ = true;
    }
    changed_.notify_all();
    if (!more) return;
  }
}

const HeaptrackLinePipeline::Batch* HeaptrackLinePipeline::next() {
  std::unique_lock lock(mutex_);
  if (holding_) {
    ++consumed_;
    holding_ = false;
    changed_.notify_all();
  }
  changed_.wait(lock, [&] { return produced_ > consumed_ || finished_; });
  if (produced_ == consumed_) return nullptr;
  holding_ = true;
  return &slots_[consumed_ % kSlots];
}

}  // namespace heapql
