// The raw twin of an interpreted heaptrack file (`heaptrack --raw`, kept by
// `heapql record`), walked in step with it: the interpreted file says what
// each record means (stacks, symbols, allocation infos), the twin adds each
// block's address (exact identity) and the modules' load addresses. The
// parser of the interpreted file asks for the twin's next record of a kind
// as it meets its own; any disagreement ends the read with both places.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/error.h"
#include "engine/ingest/anomaly_report.h"
#include "engine/ingest/heaptrack_command_line.h"
#include "engine/ingest/heaptrack_fields.h"
#include "engine/ingest/heaptrack_line_pipeline.h"
#include "engine/ingest/block_matcher.h"

namespace heapql::heaptrack {

class RawTwin {
 public:
  // From the file, or (tests, fuzzing) from its bytes under that name.
  // `show_progress`: the twin draws the read's progress bar (it is the larger
  // file, read in step with the interpreted one, so its bar moves evenly).
  // Its frees of addresses not alive are anomalies, told to `anomalies`.
  RawTwin(const std::string& path, bool show_progress, AnomalyReport& anomalies);
  RawTwin(const std::string& name, std::string_view bytes, AnomalyReport& anomalies);
  // From a stream as it arrives (a recording in progress), under that name.
  RawTwin(const std::string& name, ByteStream& stream, AnomalyReport& anomalies);

  // The interpreted file's line that wants the twin's next record: where a
  // disagreement is reported. A reference and a number rather than a
  // SourceLocation, so that asking, once an event, copies no path.
  struct Asker {
    const std::string& path;
    std::uint64_t line;
    SourceLocation location() const { return SourceLocation{path, line, {}, {}}; }
  };

  struct Alloc {
    std::uint64_t size, trace, address;
  };
  // `here` is the interpreted record that wants the twin's next one, for
  // the message when they disagree; frees of addresses that are not alive
  // on the way are counted by `matcher` and noted at the twin's line
  // (heaptrack_interpret drops them).
  Alloc next_alloc(BlockMatcher& matcher, const Asker& here);
  // The next free of a live block: its address, with the block taken out of
  // `matcher` for the caller to check and end (BlockMatcher::end_taken).
  std::uint64_t next_live_free(BlockMatcher& matcher, LiveBlock& block, const Asker& here);
  // The next `t` record (the interpreted file has one for each).
  void next_trace(BlockMatcher& matcher, const Asker& here);

  [[noreturn]] void mismatch(const Asker& here, const std::string& interpreted, const std::string& raw) const;

  // A module's load address, as the twin has told it so far.
  std::optional<std::uint64_t> module_base(std::string_view module_path) const {
    const auto it = module_bases_.find(std::string(module_path));
    return it == module_bases_.end() ? std::nullopt : std::optional<std::uint64_t>(it->second);
  }
  std::optional<TraceCut> cut() const { return lines_->cut(); }

 private:
  using RawEvent = HeaptrackLinePipeline::RawEvent;
  Alloc advance(char wanted, BlockMatcher& matcher, const Asker& here);
  bool free_on_the_way(std::uint64_t address, char wanted, BlockMatcher& matcher, const Asker& here);
  // The next line: decoded by the reading thread (`event`), or its text.
  bool next_line(const RawEvent*& event, std::string_view& line);
  // A hint for the event kAddressAhead lines on: its address's slot among
  // the live blocks, a random place in a big table, is fetched now.
  static constexpr std::size_t kAddressAhead = 16;
  void prefetch_address_ahead(const BlockMatcher& matcher) const;
  void on_module(Fields& f);

  // Read and split on another thread; only walked here.
  std::unique_ptr<HeaptrackLinePipeline> lines_;
  AnomalyReport& anomalies_;
  const HeaptrackLinePipeline::Batch* batch_ = nullptr;
  std::size_t next_in_batch_ = 0;
  std::uint64_t line_number_ = 0;
  HeaptrackCommandLine command_;  // between 'X' and 'I': command continuation lines
  std::uint32_t format_version_ = 0;
  std::string executable_;
  LiveBlock pending_block_;
  std::unordered_map<std::string, std::uint64_t> module_bases_;
};

}  // namespace heapql::heaptrack
