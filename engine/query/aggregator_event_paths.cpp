// The aggregator's event paths (EventConsumer): block events, bucket
// events one at a time and in runs, the events skipped before a window,
// and the trace's end; with the outstanding level, the peak and the series
// they move. Each path counts through the steps of
// aggregator_count_steps.h, so the counting rule is written once.
#include <algorithm>

#include "engine/query/aggregator.h"
#include "engine/query/aggregator_count_steps.h"
#include "engine/query/byte_sums.h"
#include "engine/util/prefetch_hint.h"

namespace heapql {

// The per-event path: a few small steps, inlined into the event loops.
#define HEAPQL_HOT_INLINE [[gnu::always_inline]] inline

HEAPQL_HOT_INLINE void Aggregator::note_level(std::int64_t now_ns) {
  if (peak_seen_ && level_bytes_ <= peak_.bytes) [[likely]]
    return;
  new_peak(now_ns);
}

void Aggregator::new_peak(std::int64_t now_ns) {
  // The counting loop's level, too, passes its peak before it could wrap.
  checked_bytes(level_bytes_);
  peak_seen_ = true;
  peak_ = Peak{level_bytes_, level_blocks_, now_ns};
  ++peak_epoch_;
}

void Aggregator::enter_window() {
  in_window_ = true;
  // The level carried into the window is the outstanding size at T1; an
  // empty window [T1, T1) has that moment alone (semantics.md §8).
  note_level(plan_.t1());
}

HEAPQL_HOT_INLINE void Aggregator::series_advance(std::int64_t now_ns) {
  if (series_bucket_ns_ == 0 || now_ns < plan_.t1() || series_closed_) [[likely]]
    return;
  series_grow(now_ns);
}

void Aggregator::series_grow(std::int64_t now_ns) {
  const std::int64_t t1 = plan_.t1(), t2 = plan_.t2();
  if (now_ns >= t2) {
    // The window is over: its last buckets keep the level it closed with.
    series_closed_ = true;
    if (t2 <= t1) return;  // an empty window has no time to sample
    now_ns = t2 - 1;
  }
  const std::uint32_t most = plan_.query().series_buckets;
  auto index = static_cast<std::size_t>((now_ns - t1) / series_bucket_ns_);
  while (index >= std::size_t{most}) {
    // Open window: halve the resolution; maxima merge exactly.
    for (std::size_t i = 0; i < series_.size(); ++i) {
      series_[i / 2] = (i % 2 == 0) ? series_[i] : std::max(series_[i / 2], series_[i]);
    }
    series_.resize((series_.size() + 1) / 2);
    series_bucket_ns_ *= 2;
    index = static_cast<std::size_t>((now_ns - t1) / series_bucket_ns_);
  }
  if (series_.size() <= index) series_.resize(index + 1, level_bytes_);
}

template <class S>
HEAPQL_HOT_INLINE void Aggregator::before_live_change(S& state, std::int64_t now_ns) {
  if (!in_window_ && now_ns >= plan_.t1()) enter_window();
  series_advance(now_ns);
  if constexpr (S::kPeak) {
    if (state.saved_epoch != peak_epoch_) {
      state.live_at_peak = state.live();
      state.saved_epoch = peak_epoch_;
    }
  }
}

HEAPQL_HOT_INLINE void Aggregator::raise_level(std::uint64_t blocks, std::uint64_t bytes) {
  level_blocks_ += blocks;
  level_bytes_ = checked_bytes(level_bytes_ + bytes);  // both at most kMaxBytes: no wrap
}

HEAPQL_HOT_INLINE void Aggregator::after_live_change(std::uint64_t size, bool up, std::int64_t now_ns) {
  if (up) {
    raise_level(1, size);
  } else {
    --level_blocks_;
    level_bytes_ -= size;
  }
  if (now_ns >= plan_.t1() && now_ns < plan_.t2()) {
    note_level(now_ns);
    if (series_bucket_ns_ != 0) {
      auto& slot = series_[static_cast<std::size_t>((now_ns - plan_.t1()) / series_bucket_ns_)];
      slot = std::max(slot, level_bytes_);
    }
  }
}

void Aggregator::on_alloc(const LiveBlock& block) {
  with_layout([&]<class S>() { block_alloc<S>(block); });
}

void Aggregator::on_free(const LiveBlock& block, std::uint64_t, std::int64_t free_ns, bool temporary) {
  with_layout([&]<class S>() { block_free<S>(block, free_ns, temporary); });
}

void Aggregator::on_still_alive(const LiveBlock& block) {
  with_layout([&]<class S>() { complete<S>(block, kNeverNs, false); });
}

std::int64_t Aggregator::still_alive_wanted_from_ns() const {
  // What complete() does with a block that outlives the replay, by when it
  // was allocated.
  switch (plan_.layout()) {
    case BucketLayout::kWholeTrace: return 0;
    case BucketLayout::kOpenWindow: return plan_.t1();  // before T1: in no set
    case BucketLayout::kFull: return plan_.may_count_outstanding_from_before() ? 0 : plan_.t1();
    case BucketLayout::kPeak: break;
  }
  return kNeverNs;  // the peak's layout counts no block as it ends
}

void Aggregator::on_bucket_alloc(BucketId bucket, std::int64_t ns) {
  with_layout([&]<class S>() { bucket_alloc<S>(bucket, ns); });
}

bool Aggregator::on_bucket_free(BucketId bucket, std::int64_t ns, bool temporary) {
  return with_layout([&]<class S>() { return bucket_free<S>(bucket, ns, temporary); });
}

bool Aggregator::on_bucket_free_allocated_at(BucketId bucket, std::int64_t ns, std::int64_t alloc_ns, bool temporary) {
  return with_layout([&]<class S>() { return bucket_free_allocated_at<S>(bucket, ns, alloc_ns, temporary); });
}

std::size_t Aggregator::on_bucket_run(std::span<const std::uint32_t> events, std::int64_t ns,
                                      std::uint32_t& last_alloc) {
  return with_layout([&]<class S>() { return bucket_run<S>(events, ns, last_alloc); });
}

void Aggregator::on_skipped_events(const SkippedEvents& skipped) {
  with_layout([&]<class S>() { skip_events<S>(skipped); });
}

template <class S>
void Aggregator::block_alloc(const LiveBlock& block) {
  S& state = plan<S>(block.bucket);
  if (state.key < 0) return;
  before_live_change(state, block.alloc_ns);
  add_live(state, WindowPart::kInside);  // block events count every live block as inside
  after_live_change(size_of(state, block.bucket.index()), true, block.alloc_ns);
}

template <class S>
void Aggregator::block_free(const LiveBlock& block, std::int64_t free_ns, bool temporary) {
  S& state = plan<S>(block.bucket);
  if (state.key >= 0) {
    before_live_change(state, free_ns);
    --state.live_inside;
    after_live_change(size_of(state, block.bucket.index()), false, free_ns);
  }
  complete<S>(block, free_ns, temporary);
}

template <class S>
void Aggregator::complete(const LiveBlock& block, std::int64_t free_ns, bool temporary) {
  if constexpr (S::kPeak) {
    return;
  } else {
    S& state = states<S>()[block.bucket.index()];  // planned at its allocation
    if (block.alloc_ns >= plan_.t2()) return;      // allocated after the window: in no set
    const BlockEnd end{.alloc_in = block.alloc_ns >= plan_.t1(),
                       .freed_in = free_ns < plan_.t2(),
                       .temporary = temporary,
                       .free_ns = free_ns,
                       .alloc_ns = block.alloc_ns};
    record(state, block.bucket.index(), end, 1, tallies_);
  }
}

template <class S>
HEAPQL_HOT_INLINE void Aggregator::bucket_alloc(BucketId bucket, std::int64_t ns) {
  counted_by_bucket_events_ = true;
  S& state = plan<S>(bucket);
  const WindowPart allocated = plan_.window_part(ns);
  if (state.key < 0) {
    // Filtered out: only its live count (the matcher relies on it) and, for
    // the report, how many blocks the filters removed from the window.
    increment_count(state.live_inside);
    if (allocated == WindowPart::kInside) increment_count(state.blocks_by_type[0]);
    return;
  }
  before_live_change(state, ns);
  add_live(state, allocated);
  after_live_change(size_of(state, bucket.index()), true, ns);
}

template <class S>
HEAPQL_HOT_INLINE bool Aggregator::bucket_free(BucketId bucket, std::int64_t ns, bool temporary) {
  S& state = plan<S>(bucket);
  if (state.live() == 0) return false;
  if (state.key < 0) {
    --state.live_inside;
    return true;
  }
  before_live_change(state, ns);
  end_latest_live(state, bucket.index(), BlockEnd{.freed_in = ns < plan_.t2(), .temporary = temporary, .free_ns = ns},
                  tallies_);
  after_live_change(size_of(state, bucket.index()), false, ns);
  return true;
}

// One word of a run (on_bucket_run): false when it frees in a bucket with no
// live block (then it is not applied).
template <class S>
HEAPQL_HOT_INLINE bool Aggregator::bucket_event(std::uint32_t word, std::int64_t ns, std::uint32_t& last_alloc) {
  const BucketId bucket(word >> 1);
  if (word & 1) {
    if (!bucket_free<S>(bucket, ns, last_alloc == bucket.value)) return false;
    last_alloc = kNoAllocation;
  } else {
    last_alloc = bucket.value;
    bucket_alloc<S>(bucket, ns);
  }
  return true;
}

// bucket_free for a block that is not the bucket's most recent: its own
// allocation time says which of the bucket's live counts it leaves.
template <class S>
bool Aggregator::bucket_free_allocated_at(BucketId bucket, std::int64_t ns, std::int64_t alloc_ns, bool temporary) {
  S& state = plan<S>(bucket);
  if (state.live() == 0) return false;
  if (state.key < 0) {
    --state.live_inside;
    return true;
  }
  const WindowPart allocated = plan_.window_part(alloc_ns);
  std::uint32_t* live = &state.live_inside;
  if (allocated == WindowPart::kBefore) {
    if constexpr (!S::kBefore)
      return false;
    else
      live = &state.live_before;
  } else if (allocated == WindowPart::kAfter) {
    if constexpr (!S::kAfter)
      return false;
    else
      live = &state.live_after;
  }
  if (*live == 0) return false;
  before_live_change(state, ns);
  --*live;
  if constexpr (!S::kPeak) {
    if (allocated != WindowPart::kAfter) {
      const BlockEnd end{.alloc_in = allocated == WindowPart::kInside,
                         .freed_in = ns < plan_.t2(),
                         .temporary = temporary,
                         .free_ns = ns};
      record(state, bucket.index(), end, 1, tallies_);
    }
  }
  after_live_change(size_of(state, bucket.index()), false, ns);
  return true;
}

namespace {
// Bucket states are too many for the caches and events pick them at random:
// each event's state is fetched a few events ahead of its turn.
template <class S>
HEAPQL_HOT_INLINE void prefetch_state_ahead(const ChunkedVector<S>& all, std::span<const std::uint32_t> events,
                                            std::size_t i) {
  constexpr std::size_t kPrefetchDistance = 8;
  if (i + kPrefetchDistance >= events.size()) return;
  const std::uint32_t ahead = events[i + kPrefetchDistance] >> 1;
  if (ahead < all.size()) prefetch_hint(&all[ahead]);
}
}  // namespace

template <class S>
std::size_t Aggregator::bucket_run(std::span<const std::uint32_t> events, std::int64_t ns, std::uint32_t& last_alloc) {
  ChunkedVector<S>& all = states<S>();
  if (all.size() < tables_.bucket_count()) all.grow_to(tables_.bucket_count());
  if constexpr (std::is_same_v<S, WholeTraceState>) {
    if (in_window_ && peak_seen_ && series_bucket_ns_ == 0 && plan_.window_part(ns) == WindowPart::kInside) {
      return whole_trace_run(events, ns, last_alloc);
    }
  }
  const std::size_t count = events.size();
  for (std::size_t i = 0; i < count; ++i) {
    prefetch_state_ahead(all, events, i);
    if (!bucket_event<S>(events[i], ns, last_alloc)) return i;
  }
  return count;
}

std::size_t Aggregator::whole_trace_run(std::span<const std::uint32_t> events, std::int64_t ns,
                                        std::uint32_t& last_alloc) {
  // For a bucket planned and counted, what bucket_alloc and bucket_free do
  // when the time is inside the window (every block AIFI or live), the
  // peak is known and there is no series: before_live_change has nothing to
  // do, and the level and the tallies are kept in registers, written back
  // around anything else (a bucket not yet planned or filtered out, a new
  // peak, the run's end).
  ChunkedVector<WholeTraceState>& all = whole_trace_states_;
  const std::size_t count = events.size();
  std::uint64_t level_bytes = level_bytes_;
  std::uint64_t level_blocks = level_blocks_;
  // Of the tallies only temporary blocks: this layout has no block filter
  // to exclude any (record()).
  BlockTallies tallies;
  std::uint32_t last = last_alloc;
  bool allocated = false;
  const auto write_back = [&] {
    level_bytes_ = level_bytes;
    level_blocks_ = level_blocks;
    tallies_.temporary_blocks += tallies.temporary_blocks;
    tallies.temporary_blocks = 0;
    last_alloc = last;
    if (allocated) counted_by_bucket_events_ = true;
  };
  for (std::size_t i = 0; i < count; ++i) {
    prefetch_state_ahead(all, events, i);
    const std::uint32_t word = events[i];
    const std::uint32_t b = word >> 1;
    WholeTraceState* state = b < all.size() ? &all[b] : nullptr;
    if (state == nullptr || state->key < 0) [[unlikely]] {
      write_back();
      if (!bucket_event<WholeTraceState>(word, ns, last)) return i;
      level_bytes = level_bytes_;
      level_blocks = level_blocks_;
      continue;
    }
    const std::uint64_t size = size_of(*state, b);
    if (word & 1) {
      if (state->live() == 0) {
        write_back();
        return i;
      }
      end_latest_live(*state, b, BlockEnd{.freed_in = true, .temporary = last == b, .free_ns = ns}, tallies);
      --level_blocks;
      level_bytes -= size;
      last = kNoAllocation;
    } else {
      add_live(*state, WindowPart::kInside);
      ++level_blocks;
      level_bytes += size;  // checked by new_peak when it passes the peak, before it could wrap
      allocated = true;
      last = b;
      if (level_bytes > peak_.bytes) {  // note_level, the peak being known
        write_back();
        new_peak(ns);
      }
    }
  }
  write_back();
  return count;
}

template <class S>
void Aggregator::skip_events(const SkippedEvents& skipped) {
  // What block_alloc and block_free do before T1, a bucket at a time:
  // before_live_change, after_live_change and complete() have no effect
  // there but the level (a free before T1 is in no set, §7). Only the buckets with blocks alive
  // at T1 are planned here (most buckets of a long trace have none, and the
  // window's events plan the rest), in the order of their ids. A group
  // key's id then differs from a one-by-one replay's, which no answer
  // shows: rows are ordered by measure, then by the key's text, and
  // distinct keys render distinctly (tests/cli/store_test.cpp compares the
  // two byte for byte).
  // Blocks that bucket runs will end (the youngest of a bucket first) are
  // counted as bucket_alloc counts them: a filtered bucket's live count too
  // (its frees look at it), a counted one's as allocated before T1.
  for (std::uint32_t b = 0; b < skipped.live.size(); ++b) {
    if (skipped.live[b] == 0) continue;
    S& state = plan<S>(BucketId(b));
    const std::uint32_t live = skipped.live[b];
    if (state.key < 0) {
      if (skipped.ended_by_bucket_runs) increment_count(state.live_inside, live);
      continue;
    }
    if constexpr (S::kBefore) {
      add_live(state, skipped.ended_by_bucket_runs ? WindowPart::kBefore : WindowPart::kInside, live);
    } else {
      add_live(state, WindowPart::kInside, live);  // as block_alloc counts them
    }
    raise_level(live, bytes_times(live, size_of(state, b)));
  }
}

template <class S>
void Aggregator::finish_buckets() {
  // The whole-trace layout's live blocks are its AIFO blocks as they stand.
  if constexpr (!S::kPeak && !S::kLiveAreAifo) {
    ChunkedVector<S>& all = states<S>();
    const BlockEnd alive_inside{.alloc_in = true}, alive_before{.alloc_in = false};
    for (std::size_t b = 0; b < all.size(); ++b) {
      S& state = all[b];
      if (state.key < 0) continue;
      if (state.live_inside > 0) record(state, b, alive_inside, state.live_inside, tallies_);
      if (state.live_before > 0) record(state, b, alive_before, state.live_before, tallies_);
    }
  }
}

void Aggregator::on_finish(std::int64_t end_ns) {
  end_ns_ = end_ns;
  if (counted_by_bucket_events_) {
    // Bucket events: the blocks still alive are the live counts (those
    // allocated after the window are in no set). Block events delivered them
    // one by one through on_still_alive instead.
    with_layout([&]<class S>() { finish_buckets<S>(); });
  }
  // A window that starts after the trace's end is entered at its start all
  // the same: its peak is what was outstanding then (semantics.md §8).
  if (!in_window_) enter_window();
  const std::int64_t t1 = plan_.t1(), t2 = plan_.t2();
  if (end_ns >= t1) {
    const std::int64_t last = std::min(end_ns, t2 == kNeverNs ? end_ns : t2 - 1);
    series_advance(last);
  }
}

// The level, peak and series of a window from a window index's runs
// (aggregator_window_answer.cpp), beside the event paths whose steps it takes.
void Aggregator::level_from_runs(std::span<const LevelRun> runs, std::size_t first_run, std::size_t end_run) {
  // The level at T1: after the runs before the window (the replay raises it
  // by the blocks alive then).
  if (first_run > 0) {
    level_bytes_ = 0;
    level_blocks_ = 0;
    raise_level(runs[first_run - 1].blocks_after, runs[first_run - 1].bytes_after);
  }
  for (std::size_t r = first_run; r < end_run; ++r) {
    const LevelRun& run = runs[r];
    // What before_live_change and after_live_change do for each event of the
    // run, done once: its time is the same for all of them.
    if (!in_window_) enter_window();
    series_advance(run.ns);
    if (run.max_bytes > peak_.bytes) {
      level_bytes_ = run.max_bytes;
      level_blocks_ = run.blocks_at_max;
      new_peak(run.ns);
    }
    level_bytes_ = run.bytes_after;
    level_blocks_ = run.blocks_after;
    if (series_bucket_ns_ != 0) {
      auto& slot = series_[static_cast<std::size_t>((run.ns - plan_.t1()) / series_bucket_ns_)];
      slot = std::max(slot, run.max_bytes);
    }
  }
}

#undef HEAPQL_HOT_INLINE

}  // namespace heapql
