// What every windowed query of an open store would work out again from the
// block columns, worked out once for a session that answers many
// (TraceSession::prepare_for_many_queries; docs/architecture.md, "Windows
// from an open session"):
// - each block's end: the index of its free in the free column, with the
//   free's temporary bit, so that a window's blocks (a range of block ids:
//   blocks are numbered in allocation order) are counted without replaying
//   the frees in it;
// - the outstanding level of every block, run by run (a run: the events
//   that share a time), so that a window's level, peak and series are read,
//   not replayed, for a query that counts every bucket.
// Built in memory from a checked store (4 bytes a block, 48 a run); a store
// whose columns contradict each other gets none, and its queries replay
// (and report what is wrong) as without it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/store/store_columns.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// One run of events at one time, and the level of every block over it.
struct LevelRun {
  std::uint64_t first_seq = 0;  // its first event
  std::int64_t ns = 0;
  std::uint64_t bytes_after = 0, blocks_after = 0;  // the level after its last event
  // The highest level after one of its events, and the blocks then (the
  // first event that reached it: a peak is the first time a level is reached).
  std::uint64_t max_bytes = 0, blocks_at_max = 0;
};

class WindowIndex {
 public:
  // A block never freed.
  static constexpr std::uint32_t kNeverFreed = StoreColumns::kBlockMask;
  // Levels are kept while the trace has at most this many runs (heaptrack's
  // clock moves every few milliseconds; a trace with a time per event would
  // need 48 bytes an event): else windows replay their level.
  static constexpr std::size_t kMaxRuns = std::size_t{1} << 21;

  // From columns whose checksums passed; throws Error, as the replay would,
  // where they contradict each other.
  WindowIndex(const TraceTables& tables, const StoreColumns& columns);

  // Per block: its free's index in the free column | kTemporaryBit, or kNeverFreed.
  std::span<const std::uint32_t> block_ends() const { return block_ends_; }
  // The runs, in time order; empty when there were more than kMaxRuns.
  std::span<const LevelRun> runs() const { return runs_; }
  bool has_levels() const { return !runs_.empty() || events_ == 0; }

  // The first event at or after `ns`, as the replay finds it.
  std::uint64_t first_event_at(std::int64_t ns) const;
  // How many blocks were allocated before event `seq`.
  std::size_t allocs_before(std::uint64_t seq) const;
  // The index of the first run whose first event is at or after `seq`.
  std::size_t run_at(std::uint64_t seq) const;

  std::size_t memory_bytes() const {
    return block_ends_.size() * sizeof(std::uint32_t) + runs_.size() * sizeof(LevelRun);
  }

 private:
  StoreColumns columns_;  // views of the store's columns, which the session keeps
  std::uint64_t events_ = 0;
  std::vector<std::uint32_t> block_ends_;
  std::vector<LevelRun> runs_;
};

}  // namespace heapql
