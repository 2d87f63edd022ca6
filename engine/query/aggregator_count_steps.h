// The steps on one bucket's counts (bucket_states.h) that every path
// takes: planning a bucket at its first event, live blocks added, the
// latest live block ended, and blocks recorded as they end through the
// query plan's keep rule. The event paths (aggregator_event_paths.cpp) and
// the bucket sums (aggregator_store_answers.cpp) count through these and
// nothing else. Inline: they are the per-event path. Included by the
// aggregator's own files only.
#pragma once

#include <algorithm>

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/query/byte_sums.h"

namespace heapql {

[[noreturn, gnu::cold, gnu::noinline]] void bucket_block_count_overflow();

[[gnu::always_inline]] inline void increment_count(std::uint32_t& counter, std::uint32_t n = 1) {
  if (counter > 0xFFFFFFFFu - n) [[unlikely]]
    bucket_block_count_overflow();
  counter += n;
}

template <class S>
[[gnu::always_inline]] inline S& Aggregator::plan(BucketId id) {
  ChunkedVector<S>& all = states<S>();
  if (id.index() < all.size()) [[likely]] {
    S& state = all[id.index()];
    if (state.key != kUnplanned) [[likely]]
      return state;
  }
  return plan_bucket<S>(id);
}

template <class S>
S& Aggregator::plan_bucket(BucketId id) {
  ChunkedVector<S>& all = states<S>();
  // Up to this bucket only: a window's query meets a part of the buckets,
  // and a state for each of millions it never meets cost most of its time.
  if (all.size() <= id.index()) all.grow_to(std::size_t{id.index()} + 1);
  S& state = all.writable(id.index());
  if (state.key != kUnplanned) return state;
  const Bucket& bucket = tables_.bucket(id);
  checked_bytes(bucket.size);
  state.size = bucket.size < kLargeSize ? static_cast<std::uint32_t>(bucket.size) : kLargeSize;
  state.key = counts_every_bucket_ || plan_.counts_bucket(bucket) ? intern_key(id, bucket) : kFilteredOut;
  return state;
}

// A counted bucket's new live blocks, by when they were allocated.
template <class S>
[[gnu::always_inline]] inline void Aggregator::add_live(S& state, WindowPart allocated, std::uint32_t n) {
  if (allocated == WindowPart::kInside) {
    increment_count(state.live_inside, n);
  } else if (allocated == WindowPart::kBefore) {
    if constexpr (S::kBefore) {
      increment_count(state.live_before, n);
    } else {
      throw Error("internal error: a block allocated before the whole trace");  // times are never negative
    }
  } else if constexpr (S::kAfter) {
    increment_count(state.live_after, n);
  } else {
    throw Error("a block allocated at the end of time");  // T2 is kNeverNs
  }
}

// The most recent live block of a counted bucket ends (bucket LIFO): one
// allocated after the window if any, else inside it, else before it. The
// caller has seen the bucket has one; `end` says how it ends but for
// alloc_in, decided here.
template <class S>
[[gnu::always_inline]] inline void Aggregator::end_latest_live(S& state, std::size_t bucket, BlockEnd end,
                                                               BlockTallies& tallies) {
  if constexpr (S::kAfter) {
    if (state.live_after > 0) {
      --state.live_after;
      return;  // allocated after the window: in no set
    }
  }
  if (state.live_inside > 0) {
    --state.live_inside;
    end.alloc_in = true;
  } else if constexpr (S::kBefore) {
    --state.live_before;
    end.alloc_in = false;
  } else {
    return;
  }
  if constexpr (!S::kPeak) record(state, bucket, end, 1, tallies);
}

template <class S>
[[gnu::always_inline]] inline void Aggregator::record(S& state, std::size_t bucket, const BlockEnd& end,
                                                      std::uint32_t n, BlockTallies& tallies) {
  if constexpr (S::kLiveAreAifo) {
    // The whole trace with no block filter: a bucket that passes counts its
    // freed blocks (AIFI) here and its live ones as they stand; one filtered
    // out counts all its blocks, to report them as excluded.
    if (state.key == kFilteredOut || end.freed_in) increment_count(state.blocks_by_type[0], n);
    if (end.temporary && end.freed_in && state.key >= 0) tallies.temporary_blocks += n;
  } else {
    record_by_type(state, bucket, end, n, tallies);
  }
}

template <class S>
[[gnu::always_inline]] inline void Aggregator::record_by_type(S& state, std::size_t bucket, const BlockEnd& end,
                                                              std::uint32_t n, BlockTallies& tallies) {
  Impacting type;
  if (end.alloc_in) {
    type = end.freed_in ? Impacting::kAifi : Impacting::kAifo;
  } else {
    // Allocated before T1: only WPA's set looks at it, and only if it was
    // still alive when the window opened (§7).
    if constexpr (!S::kOutside) {
      return;  // not in impacting mode
    } else {
      if (!plan_.impacting_mode() || end.free_ns < plan_.t1()) return;
      type = end.freed_in ? Impacting::kAofi : Impacting::kAofo;
    }
  }
  if (state.key != kFilteredOut && !plan_.counts_block(type, end)) {
    if (end.alloc_in) {
      tallies.excluded_blocks += n;
      add_bytes(tallies.excluded_bytes, bytes_times(n, size_of(state, bucket)));
    }
    return;
  }
  increment_count(state.blocks_by_type[static_cast<std::size_t>(type)], n);
  if (end.temporary && end.alloc_in && state.key >= 0) tallies.temporary_blocks += n;
}

}  // namespace heapql
