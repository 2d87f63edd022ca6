// The aggregator's state of one bucket, in the layout its query needs
// (QueryPlan::layout). Everything a bucket needs per event: its filter
// verdict and group key, its size, its live blocks, and per-impacting-type
// block counts that are rolled up to rows once, at the end (temporary
// blocks are only ever summed, so they are counted for all buckets at
// once). Counts are 32-bit: a bucket with more blocks than that is refused,
// not wrapped. Live blocks are split by when they were allocated: before
// T1, inside the window, after T2. Block events count every live block as
// `inside`; bucket events need the split to pop the right one (LIFO:
// after, inside, before).
//
// A bucket carries only what its query needs (millions of buckets, one
// picked at random by each event, so the smaller the state the more of them
// the caches hold):
// - whole trace: a query of the whole trace with no impacting types, block
//   filters or peak (every block allocated inside; the live blocks are the
//   AIFO ones once the trace ends, so they are not counted twice);
// - open window: a window with no end, or the whole trace with a block
//   filter (only AIFI and AIFO blocks, none allocated after the window,
//   each block decided as it ends);
// - full: a window with an end, and every query of WPA's set (§7);
// - peak: --at-peak (no per-type counts; the live count as it was at the
//   latest peak, saved lazily on the bucket's first change after it).
#pragma once

#include <cstdint>

namespace heapql {

// A bucket's key before its first event, and once its filters remove it.
inline constexpr std::int32_t kUnplanned = -2;
inline constexpr std::int32_t kFilteredOut = -1;
// A size that does not fit 32 bits is read from the bucket table instead.
inline constexpr std::uint32_t kLargeSize = 0xFFFFFFFFu;

struct WholeTraceState {
  static constexpr bool kBefore = false, kAfter = false, kOutside = false, kPeak = false, kLiveAreAifo = true;
  std::int32_t key = kUnplanned;          // partial group key, or kFilteredOut
  std::uint32_t size = 0;                 // or kLargeSize
  std::uint32_t live_inside = 0;          // at the end: the AIFO blocks
  std::uint32_t blocks_by_type[1] = {0};  // AIFI
  std::uint32_t live() const { return live_inside; }
};

struct OpenWindowState {
  static constexpr bool kBefore = true, kAfter = false, kOutside = false, kPeak = false, kLiveAreAifo = false;
  std::int32_t key = kUnplanned;
  std::uint32_t size = 0;
  std::uint32_t live_before = 0, live_inside = 0;
  std::uint32_t blocks_by_type[2] = {0, 0};  // AIFI, AIFO
  std::uint32_t live() const { return live_before + live_inside; }
};

struct FullState {
  static constexpr bool kBefore = true, kAfter = true, kOutside = true, kPeak = false, kLiveAreAifo = false;
  std::int32_t key = kUnplanned;
  std::uint32_t size = 0;
  std::uint32_t live_before = 0, live_inside = 0, live_after = 0;
  std::uint32_t blocks_by_type[4] = {0, 0, 0, 0};  // indexed by Impacting
  std::uint32_t live() const { return live_before + live_inside + live_after; }
};

struct PeakState {
  static constexpr bool kBefore = true, kAfter = true, kOutside = false, kPeak = true, kLiveAreAifo = false;
  std::int32_t key = kUnplanned;
  std::uint32_t size = 0;
  std::uint32_t live_before = 0, live_inside = 0, live_after = 0;
  std::uint32_t saved_epoch = 0, live_at_peak = 0;
  std::uint32_t blocks_by_type[1] = {0};  // filtered out: blocks allocated in the window
  std::uint32_t live() const { return live_before + live_inside + live_after; }
};

static_assert(sizeof(WholeTraceState) == 16 && sizeof(OpenWindowState) == 24 && sizeof(FullState) == 36 &&
              sizeof(PeakState) == 32);

}  // namespace heapql
