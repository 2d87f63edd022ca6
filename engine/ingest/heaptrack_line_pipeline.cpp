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

// A canonical lowercase hex number (no leading zeros but in "0") of at most
// `max_digits` digits at the start of `text`, up to the end or a space;
// advances past it. False for anything else.
bool canonical_hex(std::string_view& text, std::size_t max_digits, std::uint64_t& value) {
  std::size_t i = 0;
  value = 0;
  for (; i < text.size() && text[i] != ' '; ++i) {
    const std::uint8_t digit = hex_digit(text[i]);
    if (digit == kNotHexDigit || i == max_digits) return false;
    value = value << 4 | digit;
  }
  if (i == 0 || (i > 1 && text[0] == '0')) return false;
  text.remove_prefix(i);
  return true;
}

// Decodes a well-formed `t ip parent` / `a size trace` line; false for
// anything else (the parser then reads, or rejects, it as text).
bool decode_record(std::string_view line, HeaptrackLinePipeline::Record& record) {
  if (line.size() < 5 || line[1] != ' ' || (line[0] != 't' && line[0] != 'a')) return false;
  std::string_view rest = line.substr(2);
  std::uint64_t first = 0;
  std::uint64_t second = 0;
  if (!canonical_hex(rest, line[0] == 'a' ? 16 : 8, first)) return false;
  if (rest.size() < 2 || rest[0] != ' ') return false;
  rest.remove_prefix(1);
  if (!canonical_hex(rest, 8, second) || !rest.empty()) return false;
  record.first = first;
  record.second = static_cast<std::uint32_t>(second);
  record.type = line[0];
  return true;
}

}  // namespace

std::string HeaptrackLinePipeline::Record::text() const {
  std::string out;
  out.push_back(type);
  out.push_back(' ');
  char digits[16];
  const auto put = [&](std::uint64_t value) {
    std::size_t n = 0;
    do {
      digits[n++] = "0123456789abcdef"[value & 0xf];
      value >>= 4;
    } while (value != 0);
    while (n > 0) out.push_back(digits[--n]);
  };
  put(first);
  out.push_back(' ');
  put(second);
  return out;
}

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
  batch.records.clear();
  batch.error = nullptr;
  batch.first_line = reader_->line_number() + 1;
  std::string_view line;
  Record record;
  try {
    while (batch.codes.size() < kBatchLines && batch.text.size() < kBatchTextBytes) {
      if (!reader_->next(line)) return false;
      // The command line of an 'X' record may run on over several lines
      // (heaptrack does not escape it) until the 'I' record.
      std::uint32_t code = in_command_ ? kTextBit : event_code(line);
      if (code == kTextBit && !in_command_ && decode_record(line, record)) {
        code = kRecordBit | static_cast<std::uint32_t>(batch.records.size());
        batch.records.push_back(record);
      } else if (code == kTextBit) {
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
