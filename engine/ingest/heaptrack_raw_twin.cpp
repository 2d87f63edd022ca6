#include "engine/ingest/heaptrack_raw_twin.h"

#include <fmt/format.h>

namespace heapql::heaptrack {

RawTwin::RawTwin(const std::string& path, bool show_progress, AnomalyReport& anomalies)
    : lines_(std::make_unique<HeaptrackLinePipeline>(path, show_progress, HeaptrackLinePipeline::Decode::kRawEvents,
                                                    HeaptrackLinePipeline::kSlotsBesideTwin)),
      anomalies_(anomalies) {}

RawTwin::RawTwin(const std::string& name, std::string_view bytes, AnomalyReport& anomalies)
    : lines_(std::make_unique<HeaptrackLinePipeline>(name, bytes, HeaptrackLinePipeline::Decode::kRawEvents,
                                                    HeaptrackLinePipeline::kSlotsBesideTwin)),
      anomalies_(anomalies) {}

RawTwin::RawTwin(const std::string& name, ByteStream& stream, AnomalyReport& anomalies)
    : lines_(std::make_unique<HeaptrackLinePipeline>(name, stream, HeaptrackLinePipeline::Decode::kRawEvents,
                                                    HeaptrackLinePipeline::kSlotsBesideTwin)),
      anomalies_(anomalies) {}

bool RawTwin::next_line(const RawEvent*& event, std::string_view& line) {
  while (batch_ == nullptr || next_in_batch_ == batch_->codes.size()) {
    // A batch's error comes after its lines.
    if (batch_ != nullptr && batch_->error) std::rethrow_exception(batch_->error);
    batch_ = lines_->next();
    next_in_batch_ = 0;
    if (batch_ == nullptr) return false;
  }
  line_number_ = batch_->first_line + next_in_batch_;
  const std::uint32_t code = batch_->codes[next_in_batch_++];
  if (code & HeaptrackLinePipeline::kRecordBit) {
    event = &batch_->raw_events[code & ~HeaptrackLinePipeline::kRecordBit];
  } else {
    event = nullptr;
    line = batch_->text_line(code);
  }
  return true;
}

void RawTwin::prefetch_address_ahead(const BlockMatcher& matcher) const {
  if (batch_ == nullptr || next_in_batch_ + kAddressAhead >= batch_->codes.size()) return;
  const std::uint32_t code = batch_->codes[next_in_batch_ + kAddressAhead];
  if (code & HeaptrackLinePipeline::kRecordBit) {
    matcher.prefetch_address(batch_->raw_events[code & ~HeaptrackLinePipeline::kRecordBit].address);
  }
}

void RawTwin::mismatch(const Asker& here, const std::string& interpreted, const std::string& raw) const {
  throw Error(here.location(), fmt::format("the raw twin disagrees: this file has {} where {}:{} has {}", interpreted,
                                           lines_->path(), line_number_, raw));
}

// A `-` of the twin on the way to a record of `wanted` type: true when it
// frees a live block, which is then taken into pending_block_ (one lookup)
// and must be what was wanted; a free of an address not alive is an anomaly
// (heaptrack_interpret drops it), counted and passed over.
bool RawTwin::free_on_the_way(std::uint64_t address, char wanted, BlockMatcher& matcher, const Asker& here) {
  if (!matcher.take_live(address, pending_block_)) {
    const bool twice = matcher.count_unmatched_free(address);
    anomalies_.note(SourceLocation{lines_->path(), line_number_, {}, {}},
                    twice ? fmt::format("free of 0x{:x}, freed before and not allocated since (double_frees)", address)
                          : fmt::format("free of 0x{:x}, where no block is alive (unmatched_frees; "
                                        "heaptrack_interpret drops it)",
                                        address));
    return false;
  }
  if (wanted != '-') {
    mismatch(here, fmt::format("a '{}' record", wanted), fmt::format("a '-' of live address 0x{:x}", address));
  }
  return true;
}

// Reads lines up to the next one of `wanted` type ('t', '+', or '-' with a
// live address), keeping the module bases current. Returns what it holds
// (the address of a '-'). Nearly every line comes decoded by the reading
// thread; the rest are read here, with the checked field parser.
RawTwin::Alloc RawTwin::advance(char wanted, BlockMatcher& matcher, const Asker& here) {
  const RawEvent* event = nullptr;
  std::string_view line;
  while (true) {
    prefetch_address_ahead(matcher);
    if (!next_line(event, line)) {
      mismatch(here, fmt::format("a '{}' record", wanted),
               "the end of the file (a twin cut short: --no-raw reads this file alone)");
    }
    if (event != nullptr) [[likely]] {
      if (event->type == '-') {
        if (free_on_the_way(event->address, wanted, matcher, here)) return Alloc{0, 0, event->address};
        continue;
      }
      if (event->type != wanted) {
        mismatch(here, fmt::format("a '{}' record", wanted), fmt::format("a '{}' record", event->type));
      }
      return Alloc{event->size, event->trace, event->address};
    }
    if (command_.continues(line)) continue;
    if (line.empty()) continue;
    const char type = line[0];
    if (type == wanted && type == 't') return Alloc{};  // its content is the interpreted file's
    if (type == 'X') {
      command_.start(format_version_);
      continue;
    }
    Fields f(line, lines_->path(), line_number_);
    if (type == wanted && type == '+') {
      Alloc a{f.hex("size"), f.hex("trace"), f.hex("address")};
      f.expect_end();
      return a;
    }
    switch (type) {
      case 'v':
        f.hex("heaptrack version");
        format_version_ = f.more() ? f.index("file format version") : 0;
        break;
      case 'x': executable_ = std::string(format_version_ >= 3 ? f.length_prefixed("path") : f.rest()); break;
      case 'm': on_module(f); break;
      case '-': {
        const std::uint64_t address = f.hex("address");
        if (free_on_the_way(address, wanted, matcher, here)) return Alloc{0, 0, address};
        break;
      }
      case 't':
      case '+': mismatch(here, fmt::format("a '{}' record", wanted), fmt::format("a '{}' record", type));
      default: break;  // c, R, X, I, S, A, #: the interpreted file has them
    }
  }
}

RawTwin::Alloc RawTwin::next_alloc(BlockMatcher& matcher, const Asker& here) { return advance('+', matcher, here); }

std::uint64_t RawTwin::next_live_free(BlockMatcher& matcher, LiveBlock& block, const Asker& here) {
  const std::uint64_t address = advance('-', matcher, here).address;
  block = pending_block_;
  return address;
}

void RawTwin::next_trace(BlockMatcher& matcher, const Asker& here) { advance('t', matcher, here); }

void RawTwin::on_module(Fields& f) {
  const std::string_view name = format_version_ >= 3 ? f.length_prefixed("module name") : std::string_view{};
  if (format_version_ < 3) return;  // pre-3 raw names are not delimited; keep absolute addresses
  if (name == "-") {
    module_bases_.clear();
    return;
  }
  const std::uint64_t base = f.hex("load address");
  module_bases_[name == "x" ? executable_ : std::string(name)] = base;
}

}  // namespace heapql::heaptrack
