#include "engine/ingest/heaptrack_line_pipeline.h"

#include <algorithm>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine/ingest/hex_digit.h"

namespace heapql {

namespace {

constexpr std::size_t kBatchLines = 1 << 16;
constexpr std::size_t kBatchTextBytes = 1 << 20;
// The pipeline opens the command line on any 'X' (see line_code).
constexpr std::uint64_t kAnyFormatVersion = 1;

// The code of a well-formed `+ k` / `- k` line at `at`, which a '\n' ends,
// and `at` moved past that '\n'; kTextBit (and `at` unmoved) for anything
// else.
std::uint32_t scan_event(const char*& at) {
  const char* p = at;
  if ((p[0] != '+' && p[0] != '-') || p[1] != ' ') return HeaptrackLinePipeline::kTextBit;
  p += 2;
  std::uint32_t value = 0;
  std::uint8_t digit = hex_digit(*p);
  if (digit == kNotHexDigit) return HeaptrackLinePipeline::kTextBit;
  // At most 8 digits: kMaxIndex has 8.
  for (int n = 0; digit != kNotHexDigit; digit = hex_digit(*++p)) {
    if (++n > 8) return HeaptrackLinePipeline::kTextBit;
    value = value << 4 | digit;
  }
  if (*p != '\n' || value > HeaptrackLinePipeline::kMaxIndex) return HeaptrackLinePipeline::kTextBit;
  const std::uint32_t code = value << 1 | (at[0] == '-' ? 1u : 0u);
  at = p + 1;
  return code;
}

// The same for a line handed out alone, with no '\n' after it: read from a
// copy that has one, so that one function holds the rule.
std::uint32_t event_code(std::string_view line) {
  char copy[11] = {};  // "+ ", at most 8 digits, '\n'
  if (line.size() >= sizeof copy) return HeaptrackLinePipeline::kTextBit;
  std::copy(line.begin(), line.end(), copy);
  copy[line.size()] = '\n';
  const char* at = copy;
  return scan_event(at);
}

// A canonical lowercase hex number (no leading zeros but in "0") of at most
// `max_digits` digits at `p`, then `stop`; `p` moved past `stop`. False for
// anything else.
// Inlined: its number then stays in a register, not in memory that the
// caller reads back at once (a raw twin has a hundred million of them).
[[gnu::always_inline]] inline bool scan_hex(const char*& p, int max_digits, char stop, std::uint64_t& value) {
  const char* q = p;
  std::uint8_t digit = hex_digit(*q);
  if (digit == kNotHexDigit || (digit == 0 && hex_digit(q[1]) != kNotHexDigit)) return false;
  value = 0;
  for (int n = 0; digit != kNotHexDigit; digit = hex_digit(*++q)) {
    if (++n > max_digits) return false;
    value = value << 4 | digit;
  }
  if (*q != stop) return false;
  p = q + 1;
  return true;
}

// A raw twin's well-formed `+ size trace address` / `- address` / `t ...`
// line at `at` (a '\n' ends it, before `end`) decoded into `events`: its
// code, and `at` moved past the '\n'; kTextBit (and `at` unmoved) for
// anything else, which the twin's walker reads, or rejects, as text.
std::uint32_t scan_raw_event(const char*& at, const char* end, HeaptrackLinePipeline::RawEventWriter& events) {
  const char* p = at;
  const char type = p[0];
  if (type == '\n' || p[1] != ' ') return HeaptrackLinePipeline::kTextBit;
  p += 2;
  std::uint64_t size = 0, trace = 0, address = 0;
  switch (type) {
    case '+':
      if (!scan_hex(p, 16, ' ', size) || !scan_hex(p, 8, ' ', trace) || !scan_hex(p, 16, '\n', address)) {
        return HeaptrackLinePipeline::kTextBit;
      }
      break;
    case '-':
      if (!scan_hex(p, 16, '\n', address)) return HeaptrackLinePipeline::kTextBit;
      break;
    case 't': p = find_newline(p, end) + 1; break;
    default: return HeaptrackLinePipeline::kTextBit;
  }
  at = p;
  const std::uint32_t code = HeaptrackLinePipeline::kRecordBit | events.index();
  *events.next++ = HeaptrackLinePipeline::RawEvent{size, address, static_cast<std::uint32_t>(trace), type};
  return code;
}

// The same for a line handed out alone, with no '\n' after it: read from a
// copy that has one. A longer line (only a `t` can be) is passed on as text.
std::uint32_t raw_event_code(std::string_view line, HeaptrackLinePipeline::RawEventWriter& events) {
  char copy[64] = {};
  if (line.size() >= sizeof copy) return HeaptrackLinePipeline::kTextBit;
  std::copy(line.begin(), line.end(), copy);
  copy[line.size()] = '\n';
  const char* at = copy;
  return scan_raw_event(at, copy + line.size() + 1, events);
}

// A well-formed `t ip parent` / `a size trace` line at `at` (a '\n' ends
// it), decoded into `records`: its code, and `at` moved past the '\n';
// kTextBit (and `at` unmoved) for anything else, which the parser then
// reads, or rejects, as text. Decoded where it lies in the reader's buffer:
// copying each of these lines out first (twice) cost the reading thread a
// good part of its time (docs/one-shot-speed.md). The record is written
// straight into `records`: one built on the stack field by field and then
// copied whole stalled the copy's load.
std::uint32_t scan_record(const char*& at, HeaptrackLinePipeline::RecordWriter& records) {
  const char type = at[0];
  if ((type != 't' && type != 'a') || at[1] != ' ') return HeaptrackLinePipeline::kTextBit;
  const char* p = at + 2;
  std::uint64_t first = 0;
  std::uint64_t second = 0;
  if (!scan_hex(p, type == 'a' ? 16 : 8, ' ', first) || !scan_hex(p, 8, '\n', second)) {
    return HeaptrackLinePipeline::kTextBit;
  }
  at = p;
  const std::uint32_t code = HeaptrackLinePipeline::kRecordBit | records.index();
  *records.next++ = HeaptrackLinePipeline::Record{first, static_cast<std::uint32_t>(second), type};
  return code;
}

// The same for a line handed out alone, with no '\n' after it: read from a
// copy that has one. A canonical record is at most 27 bytes long.
std::uint32_t record_code(std::string_view line, HeaptrackLinePipeline::RecordWriter& records) {
  char copy[32] = {};
  if (line.size() >= sizeof copy) return HeaptrackLinePipeline::kTextBit;
  std::copy(line.begin(), line.end(), copy);
  copy[line.size()] = '\n';
  const char* at = copy;
  return scan_record(at, records);
}

// A line read 16 bytes at a time: the nearly 40 M lines of a big trace are
// short, and a digit at a time the reading thread spent most of its own
// work in loops whose exits mispredict. Where SSE2 is missing, or too little
// text is left, the lines go through scan_event / scan_record alone.
#if defined(__SSE2__)
constexpr std::ptrdiff_t kWholeLineReadBytes = 32;  // 16 classified, and a word read from any number in them

// Bit i of each mask: what byte i of the 16 at `at` is.
struct LineMasks {
  unsigned newline = 0;
  unsigned space = 0;
  unsigned hex = 0;  // a lowercase hex digit (hex_digit.h)
};

[[gnu::always_inline]] inline LineMasks classify(const char* at) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
  // Signed compares: a byte of 0x80 or more is below '0' and never a digit.
  const auto in = [&](char low, char high) {
    return _mm_and_si128(_mm_cmpgt_epi8(bytes, _mm_set1_epi8(static_cast<char>(low - 1))),
                         _mm_cmplt_epi8(bytes, _mm_set1_epi8(static_cast<char>(high + 1))));
  };
  LineMasks masks;
  masks.newline = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('\n'))));
  masks.space = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(' '))));
  masks.hex = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(in('0', '9'), in('a', 'f'))));
  return masks;
}

// Whether bytes [from, to) are all hex digits.
bool all_hex(unsigned hex, unsigned from, unsigned to) {
  const unsigned want = ((1u << to) - 1) & ~((1u << from) - 1);
  return (hex & want) == want;
}

// What scan_event and then scan_record give for the line at `at` (the same
// code, `at` moved the same, the same record appended), with kWholeLineReadBytes
// readable from `at`.
[[gnu::always_inline]] inline std::uint32_t scan_short_line(const char*& at,
                                                            HeaptrackLinePipeline::RecordWriter& records) {
  const LineMasks masks = classify(at);
  const char type = at[0];
  if (masks.newline != 0 && at[1] == ' ') {
    const auto length = static_cast<unsigned>(__builtin_ctz(masks.newline));
    if (type == '+' || type == '-') {
      // At most 8 digits: kMaxIndex has 8.
      const unsigned digits = length - 2;
      if (digits - 1 >= 8 || !all_hex(masks.hex, 2, length)) return HeaptrackLinePipeline::kTextBit;
      const std::uint32_t value = hex_value(at + 2, digits);
      if (value > HeaptrackLinePipeline::kMaxIndex) return HeaptrackLinePipeline::kTextBit;
      at += length + 1;
      return value << 1 | (type == '-' ? 1u : 0u);
    }
    const unsigned spaces = masks.space & ~3u;
    if ((type == 't' || type == 'a') && spaces != 0) {
      // Two canonical numbers of at most 8 digits, all hex on both sides of
      // the first space; longer ones (an 'a' of 4 GiB or more) go the long way.
      const auto space = static_cast<unsigned>(__builtin_ctz(spaces));
      const unsigned first_digits = space - 2;
      const unsigned second_digits = length - space - 1;
      const auto canonical = [](const char* p, unsigned digits) { return digits == 1 || *p != '0'; };
      if (first_digits - 1 < 8 && second_digits - 1 < 8 && all_hex(masks.hex, 2, space) &&
          all_hex(masks.hex, space + 1, length) && canonical(at + 2, first_digits) &&
          canonical(at + space + 1, second_digits)) {
        const std::uint32_t code = HeaptrackLinePipeline::kRecordBit | records.index();
        *records.next++ = HeaptrackLinePipeline::Record{hex_value(at + 2, first_digits),
                                                        hex_value(at + space + 1, second_digits), type};
        at += length + 1;
        return code;
      }
    }
  }
  if (type == '+' || type == '-') return HeaptrackLinePipeline::kTextBit;
  return scan_record(at, records);
}
#endif

// The code of the line at `at`, as scan_event and then scan_record give it.
std::uint32_t scan_line(const char*& at, const char* end, HeaptrackLinePipeline::RecordWriter& records) {
#if defined(__SSE2__)
  if (end - at >= kWholeLineReadBytes) return scan_short_line(at, records);
#else
  (void)end;
#endif
  const std::uint32_t code = scan_event(at);
  return code != HeaptrackLinePipeline::kTextBit ? code : scan_record(at, records);
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

HeaptrackLinePipeline::HeaptrackLinePipeline(std::string path, bool show_progress, Decode decode, std::size_t slots)
    : path_(std::move(path)),
      decode_(decode),
      reader_(std::make_unique<LineReader>(path_, show_progress)),
      compression_(reader_->compression()),
      slots_(slots) {
  start();
}

HeaptrackLinePipeline::HeaptrackLinePipeline(std::string name, std::string_view bytes, Decode decode,
                                             std::size_t slots)
    : path_(std::move(name)),
      decode_(decode),
      reader_(std::make_unique<LineReader>(path_, bytes)),
      compression_(reader_->compression()),
      slots_(slots) {
  start();
}

HeaptrackLinePipeline::HeaptrackLinePipeline(std::string name, ByteStream& stream, Decode decode, std::size_t slots)
    : path_(std::move(name)),
      decode_(decode),
      reader_(std::make_unique<LineReader>(path_, stream)),
      compression_(reader_->compression()),
      slots_(slots) {
  start();
}

void HeaptrackLinePipeline::start() {
  // Popped from the back: slot 0 first.
  for (std::size_t slot = slots_.size(); slot-- > 0;) free_slots_.push_back(slot);
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

std::uint32_t HeaptrackLinePipeline::line_code(Batch& batch, RecordWriter& records, RawEventWriter& raw_events,
                                               std::string_view line) {
  // The command line of an 'X' record may run on over several lines: they
  // go to the parser as text. This thread has not read the file's format
  // version, so it takes every 'X' as one that may run on; the parser,
  // which has, decides for each line (heaptrack_command_line.h).
  const bool continuation = command_.continues(line);
  std::uint32_t code = kTextBit;
  if (!continuation) {
    code = decode_ == Decode::kRawEvents ? raw_event_code(line, raw_events) : event_code(line);
  }
  if (code == kTextBit && !continuation && decode_ == Decode::kRecords) code = record_code(line, records);
  if (code == kTextBit) {
    if (!continuation && line.starts_with("X ")) command_.start(kAnyFormatVersion);
    code = kTextBit | static_cast<std::uint32_t>(batch.text_ends.size());
    batch.text.append(line);
    batch.text_ends.push_back(static_cast<std::uint32_t>(batch.text.size()));
  }
  return code;
}

bool HeaptrackLinePipeline::fill(Batch& batch) {
  batch.text.clear();
  batch.text_ends.clear();
  batch.records.clear();
  batch.raw_events.clear();
  batch.error = nullptr;
  batch.first_line = reader_->line_number() + 1;
  const std::size_t batch_lines = batch_lines_;
  batch_lines_ = std::min(batch_lines_ * 2, kBatchLines);
  // The codes are written in place, not pushed: the vector keeps a full
  // batch's size from one fill to the next (so it is not zeroed again) and
  // is cut to the lines written at the end.
  std::size_t coded = 0;
  RecordWriter records = batch.records.writer();
  RawEventWriter raw_events = batch.raw_events.writer();
  // A line decodes to at most one record or raw event.
  const auto make_room = [&](std::size_t lines) {
    if (decode_ == Decode::kRecords) {
      batch.records.make_room(records, lines);
    } else {
      batch.raw_events.make_room(raw_events, lines);
    }
  };
  const auto finish = [&](bool more) {
    batch.records.keep(records);
    batch.raw_events.keep(raw_events);
    batch.codes.resize(coded);
    return more;
  };
  const auto full = [&] {
    return coded >= batch_lines || batch.text.size() >= kBatchTextBytes ||
           (decode_ == Decode::kRecords && records.index() >= kBatchRecords);
  };
  // How many more lines this pass may code: each decodes to one record at
  // most, so that many never take the records past kBatchRecords.
  const auto line_room = [&] {
    const std::size_t lines = batch_lines - coded;
    return decode_ == Decode::kRecords ? std::min(lines, kBatchRecords - records.index()) : lines;
  };
  try {
    if (batch.codes.size() != batch_lines) batch.codes.resize(batch_lines);
    std::uint32_t* const codes = batch.codes.data();
    while (!full()) {
      const std::string_view buffered = reader_->whole_lines();
      if (buffered.empty()) {
        // A recording in progress with nothing more for now: the lines so
        // far go on at once rather than wait with a batch half full.
        if (coded > 0 && reader_->would_wait()) return finish(true);
        // No whole line buffered: the reader reads on (or ends).
        std::string_view line;
        if (!reader_->next(line)) return finish(false);
        make_room(1);
        codes[coded++] = line_code(batch, records, raw_events, line);
        continue;
      }
      // Split the buffered lines here: `+ k`, `- k`, `t` and `a` lines
      // (nearly all of them; a raw twin's `+`, `-` and `t`) are decoded as
      // they are found, in one pass.
      const char* at = buffered.data();
      const char* const end = at + buffered.size();
      const std::size_t coded_before = coded;
      // Only a text line can fill the batch before its last line.
      std::size_t limit = coded + line_room();
      make_room(limit - coded);
      while (at < end && coded < limit) {
#if defined(__SSE2__)
        if (decode_ == Decode::kRecords && !command_.open() && end - at >= kWholeLineReadBytes) {
          // Most of a trace: lines read whole, in a loop of their own.
          const char* const last = end - kWholeLineReadBytes;
          while (at <= last && coded < limit) {
            const std::uint32_t code = scan_short_line(at, records);
            if (code == kTextBit) break;
            codes[coded++] = code;
          }
          if (at >= end || coded >= limit) break;
        }
#endif
        std::uint32_t code = kTextBit;
        if (!command_.open()) {
          code = decode_ == Decode::kRecords ? scan_line(at, end, records)
                                             : scan_raw_event(at, end, raw_events);
        }
        if (code == kTextBit) {
          const char* newline = find_newline(at, end);
          code = line_code(batch, records, raw_events, std::string_view(at, static_cast<std::size_t>(newline - at)));
          at = newline + 1;
        }
        codes[coded++] = code;
        if (full()) limit = coded;
      }
      reader_->skip(at, coded - coded_before);
    }
    return finish(true);
  } catch (...) {
    batch.error = std::current_exception();
    return finish(false);
  }
}

bool HeaptrackLinePipeline::may_take_slot() const {
  if (free_slots_.empty()) return false;
  // Slots are first taken in order: the top one is new only when every
  // slot used so far waits for the consumer.
  const std::size_t slot = free_slots_.back();
  return slot < std::max({slots_used_, kSlotsAlone, allowed_slots_});
}

void HeaptrackLinePipeline::allow_slots(std::size_t count) {
  {
    std::lock_guard lock(mutex_);
    allowed_slots_ = count;
  }
  changed_.notify_all();
}

std::size_t HeaptrackLinePipeline::slots_used() const {
  std::lock_guard lock(mutex_);
  return slots_used_;
}

void HeaptrackLinePipeline::produce() {
  for (;;) {
    std::size_t slot;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || may_take_slot(); });
      if (stop_) return;
      slot = free_slots_.back();
      free_slots_.pop_back();
      slots_used_ = std::max(slots_used_, slot + 1);
    }
    const bool more = fill(slots_[slot]);
    {
      std::lock_guard lock(mutex_);
      filled_slots_.push_back(slot);
      if (!more) finished_ = true;
    }
    changed_.notify_all();
    if (!more) return;
  }
}

const HeaptrackLinePipeline::Batch* HeaptrackLinePipeline::next() {
  std::unique_lock lock(mutex_);
  if (held_slot_) {
    free_slots_.push_back(*held_slot_);
    held_slot_.reset();
    changed_.notify_all();
  }
  const auto ready = [&] { return !filled_slots_.empty() || finished_; };
  if (while_waiting_) {
    while (!changed_.wait_for(lock, kWaitingCallEvery, ready)) {
      lock.unlock();
      while_waiting_();
      lock.lock();
    }
  } else {
    changed_.wait(lock, ready);
  }
  if (filled_slots_.empty()) return nullptr;
  held_slot_ = filled_slots_.front();
  filled_slots_.pop_front();
  return &slots_[*held_slot_];
}

}  // namespace heapql
