#include "engine/ingest/heaptrack_raw_twin.h"

#include <fmt/format.h>

namespace heapql::heaptrack {

RawTwin::RawTwin(const std::string& path)
    : lines_(std::make_unique<HeaptrackLinePipeline>(path, false, HeaptrackLinePipeline::Decode::kNothing)) {}

RawTwin::RawTwin(const std::string& name, std::string_view bytes)
    : lines_(std::make_unique<HeaptrackLinePipeline>(name, bytes, HeaptrackLinePipeline::Decode::kNothing)) {}

bool RawTwin::next_line(std::string_view& line) {
  while (batch_ == nullptr || next_in_batch_ == batch_->codes.size()) {
    // A batch's error comes after its lines.
    if (batch_ != nullptr && batch_->error) std::rethrow_exception(batch_->error);
    batch_ = lines_->next();
    next_in_batch_ = 0;
    if (batch_ == nullptr) return false;
  }
  line_number_ = batch_->first_line + next_in_batch_;
  line = batch_->text_line(batch_->codes[next_in_batch_++]);
  return true;
}

void RawTwin::mismatch(const SourceLocation& here, const std::string& interpreted, const std::string& raw) const {
  throw Error(here, fmt::format("the raw twin disagrees: this file has an {} where {}:{} has a {}", interpreted,
                                lines_->path(), line_number_, raw));
}

// Reads lines up to the next one of `wanted` type ('t', '+', or '-' with a
// live address), keeping the module bases current. Returns it.
std::string_view RawTwin::advance(char wanted, BlockMatcher& matcher, const SourceLocation& here) {
  std::string_view line;
  while (true) {
    if (!next_line(line)) mismatch(here, fmt::format("'{}' record", wanted), "the end of the file");
    if (command_.continues(line)) continue;
    if (line.empty()) continue;
    const char type = line[0];
    if (type == wanted && type != '-') return line;
    if (type == 'X') {
      command_.start(format_version_);
      continue;
    }
    Fields f(line, lines_->path(), line_number_);
    switch (type) {
      case 'v':
        f.hex("heaptrack version");
        format_version_ = f.more() ? f.index("file format version") : 0;
        break;
      case 'x': executable_ = std::string(format_version_ >= 3 ? f.length_prefixed("path") : f.rest()); break;
      case 'm': on_module(f); break;
      case '-': {
        const std::uint64_t address = f.hex("address");
        // A live block is taken here and ended by the free that wanted it
        // (one lookup); a mismatch ends the read.
        if (matcher.take_live(address, pending_block_)) {
          if (wanted == '-') {
            pending_free_ = address;
            return line;
          }
          mismatch(here, fmt::format("'{}' record", wanted), fmt::format("'-' of live address 0x{:x}", address));
        }
        matcher.count_unmatched_free(address);  // dropped by heaptrack_interpret too
        break;
      }
      case 't':
      case '+': mismatch(here, fmt::format("'{}' record", wanted), fmt::format("'{}' record", type));
      default: break;  // c, R, X, I, S, A, #: the interpreted file has them
    }
  }
}

RawTwin::Alloc RawTwin::next_alloc(BlockMatcher& matcher, const SourceLocation& here) {
  Fields f(advance('+', matcher, here), lines_->path(), line_number_);
  Alloc a{f.hex("size"), f.hex("trace"), f.hex("address")};
  f.expect_end();
  return a;
}

std::uint64_t RawTwin::next_live_free(BlockMatcher& matcher, LiveBlock& block, const SourceLocation& here) {
  advance('-', matcher, here);
  block = pending_block_;
  return pending_free_;
}

void RawTwin::next_trace(BlockMatcher& matcher, const SourceLocation& here) { advance('t', matcher, here); }

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
