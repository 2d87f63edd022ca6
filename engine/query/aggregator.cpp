#include "engine/query/aggregator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <numeric>
#include <span>
#include <utility>

#include "engine/error.h"
#include "engine/query/byte_sums.h"
#include "engine/query/cull_list.h"
#include "engine/query/group_key.h"
#include "engine/query/id_or_name.h"
#include "engine/query/suppressions.h"
#include "engine/util/dense_rank.h"
#include "engine/util/on_both_cores.h"
#include "engine/util/prefetch_hint.h"
#include "engine/warnings.h"

namespace heapql {

// The per-event path: a few small steps, inlined into the event loops.
#define HEAPQL_HOT_INLINE [[gnu::always_inline]] inline

namespace {

constexpr std::int64_t kAutoSeriesStartNs = 1'000'000;  // open windows start at 1 ms buckets

void append(SuppressionList& into, SuppressionList list) {
  for (SuppressionPattern& p : list.patterns) into.patterns.push_back(std::move(p));
  for (std::string& note : list.notes) into.notes.push_back(std::move(note));
}

}  // namespace

StackFilters compile_stack_filters(const Query& query) {
  StackFilters filters;
  if (query.default_cull) filters.cull.add_all(default_cull_patterns());
  for (const std::string& text : query.cull) filters.cull.add(FramePattern::parse(text));
  for (const std::string& path : query.cull_files) filters.cull.add_all(read_cull_list(path));
  for (const std::string& text : query.require) filters.require.add(FramePattern::parse(text));
  for (const std::string& text : query.exclude) filters.exclude.add(FramePattern::parse(text));
  SuppressionList& suppressions = filters.suppressions;
  for (const std::string& text : query.suppressions) suppressions.patterns.push_back(SuppressionPattern::parse(text));
  for (const std::string& path : query.suppression_files) append(suppressions, read_suppressions(path));
  return filters;
}

void add_embedded_suppressions(StackFilters& filters, const Query& query, std::span<const std::string> embedded) {
  if (!query.embedded_suppressions) return;
  append(filters.suppressions, parse_embedded_suppressions(embedded, ""));  // callers name the trace (no location here)
}

namespace {

StackFilters filters_of(const Query& query, std::span<const std::string> embedded) {
  StackFilters filters = compile_stack_filters(query);
  add_embedded_suppressions(filters, query, embedded);
  return filters;
}

}  // namespace

Aggregator::Aggregator(const TraceTables& tables, const Query& query,
                       std::span<const std::string> embedded_suppressions)
    : Aggregator(tables, query, filters_of(query, embedded_suppressions)) {}

Aggregator::Aggregator(const TraceTables& tables, Query query, StackFilters filters)
    : tables_(tables),
      query_(std::move(query)),
      t1_(query_.window.begin_ns),
      t2_(query_.window.end_ns.value_or(kNeverNs)),
      impacting_mode_(query_.uses_impacting()),
      impacting_level_(std::find(query_.by.begin(), query_.by.end(), GroupBy::kImpacting) != query_.by.end()),
      has_block_filters_(!query_.impacting.empty() || query_.temporary_only || query_.lifetime_min_ns ||
                         query_.lifetime_end_ns),
      needs_blocks_(query_.lifetime_min_ns || query_.lifetime_end_ns),
      stack_plan_(tables, std::move(filters)),
      layout_(query_.block_set == BlockSet::kAtPeak  ? Layout::kPeak
              : (impacting_mode_ || t2_ != kNeverNs) ? Layout::kFull
              : (t1_ <= 0 && !has_block_filters_)    ? Layout::kWholeTrace
                                                     : Layout::kOpenWindow),
      keys_(query_.by) {
  validate(query_);
  for (const std::string& note : stack_plan_.filters().suppressions.notes) emit_warning(nullptr, note + "\n");
  for (Impacting t : query_.impacting) impacting_mask_ |= 1u << static_cast<unsigned>(t);
  if (query_.series_buckets > 0) {
    series_bucket_ns_ = query_.window.end_ns
                            ? std::max<std::int64_t>(1, (t2_ - t1_ + query_.series_buckets - 1) / query_.series_buckets)
                            : kAutoSeriesStartNs;
  }
}

bool Aggregator::bucket_passes(const Bucket& bucket, StackId full_stack) {
  if (bucket.size < query_.size_min) return false;
  if (query_.size_end && bucket.size >= *query_.size_end) return false;
  if (!query_.kinds.empty() && std::find(query_.kinds.begin(), query_.kinds.end(), bucket.kind) == query_.kinds.end()) {
    return false;
  }
  if (!query_.threads.empty() &&
      std::find(query_.threads.begin(), query_.threads.end(), bucket.thread) == query_.threads.end()) {
    return false;
  }
  if (!query_.processes.empty()) {
    const ProcessId process = tables_.process_of(bucket);
    if (!process.valid()) return false;
    const Process& p = tables_.process(process);
    if (!matches_id_or_name(query_.processes, p.pid, tables_.string(p.name))) return false;
  }
  if (!query_.heaps.empty()) {
    if (!bucket.heap.valid()) return false;
    const Heap& h = tables_.heap(bucket.heap);
    if (!matches_id_or_name(query_.heaps, h.handle, tables_.string(h.name))) return false;
  }
  return stack_plan_.kept(full_stack);
}

std::int32_t Aggregator::intern_key(const Bucket& bucket, StackId culled) {
  key_scratch_.clear();
  for (GroupBy level : query_.by) {
    std::uint32_t v = 0;
    switch (level) {
      case GroupBy::kStack: v = culled.value; break;
      case GroupBy::kFrame: v = culled.valid() ? tables_.stack(culled).frame.value : FrameId().value; break;
      case GroupBy::kImage:
        v = culled.valid() ? tables_.frame(tables_.stack(culled).frame).module.value : StringId().value;
        break;
      case GroupBy::kProcess: v = tables_.process_of(bucket).value; break;
      case GroupBy::kHeap: v = bucket.heap.value; break;
      case GroupBy::kKind: v = static_cast<std::uint32_t>(bucket.kind); break;
      case GroupBy::kThread: v = bucket.thread; break;
      case GroupBy::kImpacting: v = 0; break;  // decided per block
      case GroupBy::kCustom:
        throw Error("a custom key is computed from the stack rows (regroup), not by the aggregator");
    }
    key_scratch_.push_back(v);
  }
  return keys_.intern(key_scratch_);
}

void Aggregator::rank_keys() {
  if (!keys_.rank()) return;
  with_layout([&]<class S>() {
    ChunkedVector<S>& all = states<S>();
    in_two_halves(all.size(), kSplitRollUpFrom, [&](std::size_t begin, std::size_t end) {
      for (std::size_t b = begin; b < end; ++b) {
        if (all[b].key >= 0) all[b].key = keys_.ranked(all[b].key);
      }
    });
  });
}

template <class S>
HEAPQL_HOT_INLINE S& Aggregator::plan(BucketId id) {
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
  if (all.size() <= id.index()) all.grow_to(std::max(tables_.bucket_count(), std::size_t{id.index()} + 1));
  S& state = all[id.index()];
  if (state.key != kUnplanned) return state;
  const Bucket& bucket = tables_.bucket(id);
  checked_bytes(bucket.size);
  state.size = bucket.size < kLargeSize ? static_cast<std::uint32_t>(bucket.size) : kLargeSize;
  state.key = bucket_passes(bucket, bucket.stack) ? intern_key(bucket, stack_plan_.culled(bucket.stack)) : kFilteredOut;
  return state;
}

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
  note_level(t1_);
}

HEAPQL_HOT_INLINE void Aggregator::series_advance(std::int64_t now_ns) {
  if (series_bucket_ns_ == 0 || now_ns < t1_ || series_closed_) [[likely]]
    return;
  series_grow(now_ns);
}

void Aggregator::series_grow(std::int64_t now_ns) {
  if (now_ns >= t2_) {
    // The window is over: its last buckets keep the level it closed with.
    series_closed_ = true;
    if (t2_ <= t1_) return;  // an empty window has no time to sample
    now_ns = t2_ - 1;
  }
  auto index = static_cast<std::size_t>((now_ns - t1_) / series_bucket_ns_);
  while (index >= std::size_t{query_.series_buckets}) {
    // Open window: halve the resolution; maxima merge exactly.
    for (std::size_t i = 0; i < series_.size(); ++i) {
      series_[i / 2] = (i % 2 == 0) ? series_[i] : std::max(series_[i / 2], series_[i]);
    }
    series_.resize((series_.size() + 1) / 2);
    series_bucket_ns_ *= 2;
    index = static_cast<std::size_t>((now_ns - t1_) / series_bucket_ns_);
  }
  if (series_.size() <= index) series_.resize(index + 1, level_bytes_);
}

template <class S>
HEAPQL_HOT_INLINE void Aggregator::before_live_change(S& state, std::int64_t now_ns) {
  if (!in_window_ && now_ns >= t1_) enter_window();
  series_advance(now_ns);
  if constexpr (S::kPeak) {
    if (state.saved_epoch != peak_epoch_) {
      state.live_at_peak = state.live();
      state.saved_epoch = peak_epoch_;
    }
  }
}

HEAPQL_HOT_INLINE void Aggregator::after_live_change(std::uint64_t size, bool up, std::int64_t now_ns) {
  if (up) {
    ++level_blocks_;
    level_bytes_ = checked_bytes(level_bytes_ + size);  // both at most kMaxBytes: no wrap
  } else {
    --level_blocks_;
    level_bytes_ -= size;
  }
  if (now_ns >= t1_ && now_ns < t2_) {
    note_level(now_ns);
    if (series_bucket_ns_ != 0) {
      auto& slot = series_[static_cast<std::size_t>((now_ns - t1_) / series_bucket_ns_)];
      slot = std::max(slot, level_bytes_);
    }
  }
}

namespace {
[[noreturn, gnu::cold, gnu::noinline]] void bucket_overflow() {
  throw Error("more than 2^32-1 blocks in one bucket (size and stack)");
}

HEAPQL_HOT_INLINE void increment(std::uint32_t& counter, std::uint32_t n = 1) {
  if (counter > 0xFFFFFFFFu - n) [[unlikely]]
    bucket_overflow();
  counter += n;
}

// a - b, field by field (b is a part of a sum a).
Measures minus(const Measures& a, const Measures& b) {
  Measures d;
  d.so = a.so - b.so;
  d.soc = a.soc - b.soc;
  d.st = a.st - b.st;
  d.stc = a.stc - b.stc;
  d.src = a.src - b.src;
  d.count = a.count - b.count;
  d.size = a.size - b.size;
  d.impacting =
      static_cast<std::int64_t>(static_cast<std::uint64_t>(a.impacting) - static_cast<std::uint64_t>(b.impacting));
  d.blocks = a.blocks - b.blocks;
  return d;
}
}  // namespace

void Aggregator::on_alloc(const LiveBlock& block) {
  with_layout([&]<class S>() { block_alloc<S>(block); });
}

void Aggregator::on_free(const LiveBlock& block, std::uint64_t, std::int64_t free_ns, bool temporary) {
  with_layout([&]<class S>() { block_free<S>(block, free_ns, temporary); });
}

void Aggregator::on_still_alive(const LiveBlock& block) {
  with_layout([&]<class S>() { complete<S>(block, kNeverNs, false); });
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
    if (in_window_ && peak_seen_ && series_bucket_ns_ == 0 && ns >= t1_ && ns < t2_) {
      return whole_trace_run(events, ns, last_alloc);
    }
  }
  const std::size_t count = events.size();
  for (std::size_t i = 0; i < count; ++i) {
    prefetch_state_ahead(all, events, i);
    const BucketId bucket(events[i] >> 1);
    if (events[i] & 1) {
      if (!bucket_free<S>(bucket, ns, last_alloc == bucket.value)) return i;
      last_alloc = kNoAllocation;
    } else {
      last_alloc = bucket.value;
      bucket_alloc<S>(bucket, ns);
    }
  }
  return count;
}

std::size_t Aggregator::whole_trace_run(std::span<const std::uint32_t> events, std::int64_t ns,
                                        std::uint32_t& last_alloc) {
  // What bucket_alloc and bucket_free do for a planned bucket when the time
  // is inside the window (every block AIFI or live) and the peak is known:
  // the level kept in registers, written back around anything else (a
  // bucket not yet planned or filtered out, a new peak, the run's end).
  ChunkedVector<WholeTraceState>& all = whole_trace_states_;
  const std::size_t count = events.size();
  std::uint64_t level_bytes = level_bytes_;
  std::uint64_t level_blocks = level_blocks_;
  std::uint64_t temporaries = 0;
  std::uint32_t last = last_alloc;
  bool allocated = false;
  const auto write_back = [&] {
    level_bytes_ = level_bytes;
    level_blocks_ = level_blocks;
    temporary_blocks_ += temporaries;
    temporaries = 0;
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
      const BucketId bucket(b);
      if (word & 1) {
        if (!bucket_free<WholeTraceState>(bucket, ns, last == b)) return i;
        last = kNoAllocation;
      } else {
        last = b;
        bucket_alloc<WholeTraceState>(bucket, ns);
      }
      level_bytes = level_bytes_;
      level_blocks = level_blocks_;
      continue;
    }
    const std::uint64_t size = size_of(*state, b);
    if (word & 1) {
      if (state->live_inside == 0) {
        write_back();
        return i;
      }
      --state->live_inside;
      increment(state->blocks_by_type[0]);
      temporaries += last == b ? 1 : 0;
      --level_blocks;
      level_bytes -= size;
      last = kNoAllocation;
    } else {
      increment(state->live_inside);
      ++level_blocks;
      level_bytes += size;
      allocated = true;
      last = b;
      if (level_bytes > peak_.bytes) {
        write_back();
        new_peak(ns);
      }
    }
  }
  write_back();
  return count;
}

template <class S>
void Aggregator::block_alloc(const LiveBlock& block) {
  S& state = plan<S>(block.bucket);
  if (state.key < 0) return;
  before_live_change(state, block.alloc_ns);
  increment(state.live_inside);
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
HEAPQL_HOT_INLINE void Aggregator::bucket_alloc(BucketId bucket, std::int64_t ns) {
  counted_by_bucket_events_ = true;
  S& state = plan<S>(bucket);
  const bool alloc_in = ns >= t1_ && ns < t2_;
  if (state.key < 0) {
    // Filtered out: only its live count (the matcher relies on it) and, for
    // the report, how many blocks the filters removed from the window.
    increment(state.live_inside);
    if (alloc_in) increment(state.blocks_by_type[0]);
    return;
  }
  before_live_change(state, ns);
  if (alloc_in) {
    increment(state.live_inside);
  } else if (ns < t1_) {
    if constexpr (S::kBefore) {
      increment(state.live_before);
    } else {
      throw Error("internal error: a block allocated before the whole trace");  // times are never negative
    }
  } else if constexpr (S::kAfter) {
    increment(state.live_after);
  } else {
    throw Error("a block allocated at the end of time");  // t2_ is kNeverNs
  }
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
  // The most recent live block dies (bucket LIFO): one allocated after the
  // window if any, else inside it, else before it.
  bool after = false;
  if constexpr (S::kAfter) {
    if (state.live_after > 0) {
      --state.live_after;
      after = true;
    }
  }
  if (!after) {
    if (state.live_inside > 0) {
      --state.live_inside;
      if constexpr (!S::kPeak) record(state, bucket.index(), true, ns, temporary, std::nullopt, 1);
    } else if constexpr (S::kBefore) {
      --state.live_before;
      if constexpr (!S::kPeak) record(state, bucket.index(), false, ns, temporary, std::nullopt, 1);
    }
  }
  after_live_change(size_of(state, bucket.index()), false, ns);
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
  const bool alloc_in = alloc_ns >= t1_ && alloc_ns < t2_;
  std::uint32_t* live = &state.live_inside;
  if (alloc_ns < t1_) {
    if constexpr (!S::kBefore)
      return false;
    else
      live = &state.live_before;
  } else if (!alloc_in) {
    if constexpr (!S::kAfter)
      return false;
    else
      live = &state.live_after;
  }
  if (*live == 0) return false;
  before_live_change(state, ns);
  --*live;
  if constexpr (!S::kPeak) {
    if (alloc_ns < t2_) record(state, bucket.index(), alloc_in, ns, temporary, std::nullopt, 1);
  }
  after_live_change(size_of(state, bucket.index()), false, ns);
  return true;
}

void Aggregator::on_skipped_events(const SkippedEvents& skipped) {
  with_layout([&]<class S>() { skip_events<S>(skipped); });
}

template <class S>
void Aggregator::skip_events(const SkippedEvents& skipped) {
  // What block_alloc and block_free do before T1: before_live_change,
  // after_live_change and complete() have no effect there but the level
  // (a free before T1 is in no set, §7). Only the buckets with blocks alive
  // at T1 are planned here (most buckets of a long trace have none, and the
  // window's events plan the rest), in the order of their first allocation.
  // A group key's id then differs from a one-by-one replay's, which no
  // answer shows: rows are ordered by measure, then by the key's text, and
  // distinct keys render distinctly (tests/cli/store_test.cpp compares the
  // two byte for byte).
  for (const std::uint32_t b : skipped.first_allocated) {
    if (b >= skipped.live.size() || skipped.live[b] == 0) continue;
    S& state = plan<S>(BucketId(b));
    if (state.key < 0) continue;
    const std::uint32_t live = skipped.live[b];
    increment(state.live_inside, live);
    level_blocks_ += live;
    level_bytes_ = checked_bytes(level_bytes_ + bytes_times(live, size_of(state, b)));
  }
}

template <class S>
void Aggregator::complete(const LiveBlock& block, std::int64_t free_ns, bool temporary) {
  if constexpr (S::kPeak) {
    return;
  } else {
    S& state = states<S>()[block.bucket.index()];  // planned at its allocation
    if (block.alloc_ns >= t2_) return;             // allocated after the window: in no set
    record(state, block.bucket.index(), block.alloc_ns >= t1_, free_ns, temporary, block.alloc_ns, 1);
  }
}

template <class S>
HEAPQL_HOT_INLINE void Aggregator::record(S& state, std::size_t bucket, bool alloc_in, std::int64_t free_ns,
                                          bool temporary, std::optional<std::int64_t> alloc_ns, std::uint32_t n) {
  const bool freed_in = free_ns < t2_;
  if constexpr (S::kLiveAreAifo) {
    // The whole trace with no block filter: a bucket that passes counts its
    // freed blocks (AIFI) here and its live ones as they stand; one filtered
    // out counts all its blocks, to report them as excluded.
    if (state.key == kFilteredOut || freed_in) increment(state.blocks_by_type[0], n);
    if (temporary && freed_in && state.key >= 0) temporary_blocks_ += n;
  } else {
    record_by_type(state, bucket, alloc_in, freed_in, free_ns, temporary, alloc_ns, n);
  }
}

template <class S>
HEAPQL_HOT_INLINE void Aggregator::record_by_type(S& state, std::size_t bucket, bool alloc_in, bool freed_in,
                                                  std::int64_t free_ns, bool temporary,
                                                  std::optional<std::int64_t> alloc_ns, std::uint32_t n) {
  Impacting type;
  if (alloc_in) {
    type = freed_in ? Impacting::kAifi : Impacting::kAifo;
  } else {
    // Allocated before T1: only WPA's set looks at it, and only if it was
    // still alive when the window opened (§7).
    if constexpr (!S::kOutside) {
      return;  // not in impacting mode
    } else {
      if (!impacting_mode_ || free_ns < t1_) return;
      type = freed_in ? Impacting::kAofi : Impacting::kAofo;
    }
  }
  if (state.key != kFilteredOut && has_block_filters_) {
    bool keep = impacting_mask_ == 0 || (impacting_mask_ & (1u << static_cast<unsigned>(type))) != 0;
    keep = keep && (!query_.temporary_only || temporary);
    if (keep && alloc_ns && (query_.lifetime_min_ns || query_.lifetime_end_ns)) {
      // Outstanding blocks lived at least until T2; with an open window, for ever (§4).
      const std::int64_t lifetime = freed_in ? free_ns - *alloc_ns : (t2_ == kNeverNs ? kNeverNs : t2_ - *alloc_ns);
      keep = (!query_.lifetime_min_ns || lifetime >= *query_.lifetime_min_ns) &&
             (!query_.lifetime_end_ns || lifetime < *query_.lifetime_end_ns);
    }
    if (!keep) {
      if (alloc_in) {
        excluded_blocks_ += n;
        excluded_bytes_ += n * size_of(state, bucket);
      }
      return;
    }
  }
  increment(state.blocks_by_type[static_cast<std::size_t>(type)], n);
  if (temporary && alloc_in && state.key >= 0) temporary_blocks_ += n;
}

template <class S>
void Aggregator::finish_buckets() {
  // The whole-trace layout's live blocks are its AIFO blocks as they stand.
  if constexpr (!S::kPeak && !S::kLiveAreAifo) {
    ChunkedVector<S>& all = states<S>();
    for (std::size_t b = 0; b < all.size(); ++b) {
      S& state = all[b];
      if (state.key < 0) continue;
      if (state.live_inside > 0) record(state, b, true, kNeverNs, false, std::nullopt, state.live_inside);
      if (state.live_before > 0) record(state, b, false, kNeverNs, false, std::nullopt, state.live_before);
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
  if (end_ns >= t1_) {
    const std::int64_t last = std::min(end_ns, t2_ == kNeverNs ? end_ns : t2_ - 1);
    series_advance(last);
  }
}

template <class S, class Visit>
void Aggregator::rows_of(const S& state, Visit&& visit) const {
  // Without the bucket's size or measures: the roll-up finds the rows with
  // blocks from this alone, and contributions() adds to exactly these.
  const std::size_t per_key = impacting_level_ ? 4 : 1;
  const std::size_t first = std::size_t(state.key) * per_key;
  if constexpr (S::kPeak) {
    const std::uint64_t alive = state.saved_epoch == peak_epoch_ ? state.live_at_peak : state.live();
    const std::size_t aifo = impacting_level_ ? static_cast<std::size_t>(Impacting::kAifo) : 0;
    if (alive != 0) visit(first + aifo, Impacting::kAifo, alive);
  } else {
    constexpr std::size_t kTypes = sizeof(S::blocks_by_type) / sizeof(std::uint32_t);
    for (std::size_t t = 0; t < kTypes; ++t) {
      const std::uint32_t n = state.blocks_by_type[t];
      if (n != 0) visit(first + (impacting_level_ ? t : 0), static_cast<Impacting>(t), std::uint64_t{n});
    }
    if constexpr (S::kLiveAreAifo) {
      constexpr auto aifo = static_cast<std::size_t>(Impacting::kAifo);
      if (state.live_inside != 0)
        visit(first + (impacting_level_ ? aifo : 0), Impacting::kAifo, std::uint64_t{state.live_inside});
    }
  }
}

template <class S, class Add>
void Aggregator::contributions(const S& state, std::size_t b, Add&& add) const {
  const Bucket& bucket = tables_.bucket(BucketId(static_cast<std::uint32_t>(b)));
  const bool is_realloc = bucket.is_realloc;
  const std::uint64_t size = bucket.size;
  rows_of(state, [&](std::size_t row, Impacting type, std::uint64_t n) {
    const std::uint64_t bytes = bytes_times(n, size);
    Measures m;
    m.blocks = n;
    if constexpr (S::kPeak) {
      // The blocks alive at the peak.
      m.soc = m.stc = n;
      m.so = m.st = bytes;
      m.src = is_realloc ? n : 0;
    } else {
      const bool inside = type == Impacting::kAifi || type == Impacting::kAifo;
      if (inside) {
        m.stc = n;
        m.st = bytes;
        m.src = is_realloc ? n : 0;
        if (type == Impacting::kAifo) {
          m.soc = n;
          m.so = bytes;
        }
      }
      if (impacting_mode_) {
        m.count = n;
        m.size = bytes;
        const auto signed_size = static_cast<std::int64_t>(m.size);
        m.impacting = type == Impacting::kAifo ? signed_size : type == Impacting::kAofi ? -signed_size : 0;
      }
    }
    add(row, m);
  });
}

template <class S>
void Aggregator::roll_up(Result& r) {
  // Two passes over the buckets, so that only the rows shown are ever held
  // whole: the first sums totals and each row's sort measure, the second the
  // measures of the rows shown. The rest ([other]) is the totals minus those.
  const ChunkedVector<S>& all = states<S>();
  const std::size_t per_key = impacting_level_ ? 4 : 1;
  const bool keyed = !query_.totals_only && !query_.by.empty();
  const std::size_t row_count = keyed ? keys_.count() * per_key : 0;
  const Measure sort = query_.sort;

  // The rows with blocks, numbered densely: a row's number is how many rows
  // with blocks come before it (a bit per row, and a count per 64 rows). The
  // arrays below then hold those rows only, not every key times every
  // impacting type (millions of rows, most of them empty, in a window).
  // Each half of the buckets marks its own bits; the upper half's are
  // merged after.
  std::vector<std::uint64_t> present((row_count + 63) / 64, 0);
  if (keyed) {
    std::vector<std::uint64_t> upper_present;
    in_two_halves(all.size(), kSplitRollUpFrom, [&](std::size_t begin, std::size_t end) {
      std::vector<std::uint64_t>* bits = &present;
      if (begin != 0) {  // the upper half, beside
        upper_present.assign(present.size(), 0);
        bits = &upper_present;
      }
      for (std::size_t b = begin; b < end; ++b) {
        const S& state = all[b];
        if (state.key < 0) continue;
        rows_of(state, [&](std::size_t row, Impacting, std::uint64_t) {
          (*bits)[row / 64] |= std::uint64_t{1} << (row % 64);
        });
      }
    });
    for (std::size_t w = 0; w < upper_present.size(); ++w) present[w] |= upper_present[w];
  }
  const DenseRank dense(std::move(present));
  // The present rows, ascending (index = dense number); not needed, nor its
  // megabytes of fresh pages, when every row is present (a whole-trace query
  // grouped by one level: its keys were numbered densely).
  std::vector<std::uint32_t> rows;
  if (!dense.identity()) {
    rows.reserve(dense.count());
    dense.each([&](std::size_t row) { rows.push_back(static_cast<std::uint32_t>(row)); });
  }
  const auto row_of = [&](std::uint32_t dense_row) -> std::size_t {
    return dense.identity() ? dense_row : rows[dense_row];
  };

  // One thread: split in halves (atomic additions to the sort values, or
  // each thread adding only its keys' buckets) this pass took longer.
  std::vector<std::uint64_t> sort_values(dense.count(), 0);
  for (std::size_t b = 0; b < all.size(); ++b) {
    const S& state = all[b];
    if (state.key == kUnplanned) continue;
    if (state.key == kFilteredOut) {
      std::uint64_t inside = state.blocks_by_type[0];
      if constexpr (!S::kPeak && !S::kLiveAreAifo) inside += state.blocks_by_type[1];
      r.excluded_blocks += inside;
      add_bytes(r.excluded_bytes, bytes_times(inside, size_of(state, b)));
      continue;
    }
    contributions(state, b, [&](std::size_t row, const Measures& m) {
      r.totals.add(m);
      // Each byte measure's every part is at most these two sums.
      checked_bytes(r.totals.st);
      checked_bytes(r.totals.size);
      if (keyed) sort_values[dense(row)] += m.value(sort);
    });
  }
  if (!keyed) return;

  const std::size_t width = query_.by.size();
  const auto key_values_of = [&](std::uint32_t dense_row, std::uint64_t* values) {
    const std::size_t row = row_of(dense_row);
    const std::size_t key = row / per_key;
    for (std::size_t level = 0; level < width; ++level) {
      values[level] = query_.by[level] == GroupBy::kImpacting ? row % per_key : keys_.value(key, level);
    }
  };
  // The measures of the rows shown: a second pass over the buckets.
  const auto measures_of = [&](std::span<const std::uint32_t> shown_rows) {
    sort_values = std::vector<std::uint64_t>();
    // Each shown row's place in shown_rows, by dense row: a few rows, looked
    // up only for the buckets of a shown key.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> shown_index(shown_rows.size());
    // A bit per key with a row shown: the other buckets are passed over
    // without reading their size.
    std::vector<std::uint64_t> key_shown((keys_.count() + 63) / 64, 0);
    for (std::size_t i = 0; i < shown_rows.size(); ++i) {
      shown_index[i] = {shown_rows[i], static_cast<std::uint32_t>(i)};
      const std::size_t key = row_of(shown_rows[i]) / per_key;
      key_shown[key / 64] |= std::uint64_t{1} << (key % 64);
    }
    std::sort(shown_index.begin(), shown_index.end());
    std::vector<Measures> measures(shown_rows.size());
    for (std::size_t b = 0; b < all.size(); ++b) {
      const S& state = all[b];
      if (state.key < 0) continue;
      const auto key = static_cast<std::size_t>(state.key);
      if ((key_shown[key / 64] & (std::uint64_t{1} << (key % 64))) == 0) continue;
      contributions(state, b, [&](std::size_t row, const Measures& m) {
        const std::uint32_t dense_row = dense(row);
        const auto at =
            std::lower_bound(shown_index.begin(), shown_index.end(), std::pair{dense_row, std::uint32_t{0}});
        if (at != shown_index.end() && at->first == dense_row) measures[at->second].add(m);
      });
    }
    return measures;
  };
  show_rows(r, sort_values, key_values_of, measures_of);
}

void Aggregator::each_whole_trace_contribution(const std::function<void(std::size_t row, const Measures&)>& add) const {
  for (std::size_t b = 0; b < whole_trace_states_.size(); ++b) {
    const WholeTraceState& state = whole_trace_states_[b];
    if (state.key == kFilteredOut) throw Error("internal error: a bucket filtered out of the stack view");
    if (state.key >= 0) contributions(state, b, add);
  }
}

namespace {

// The rows among which the top `shown` by value are chosen: those shown,
// and every row tied with the last of them (their order is decided by key).
// Ascending; one pass keeps the `shown` largest values seen (a min-heap),
// a second collects the rows at or above the smallest of them.
std::vector<std::uint32_t> top_candidates(std::span<const std::uint64_t> values, std::size_t shown) {
  std::vector<std::uint32_t> rows;
  if (shown == 0) return rows;
  std::uint64_t threshold = 0;
  if (shown < values.size()) {
    std::vector<std::uint64_t> largest;
    largest.reserve(shown);
    const auto greater = std::greater<std::uint64_t>();
    for (const std::uint64_t v : values) {
      if (largest.size() < shown) {
        largest.push_back(v);
        std::push_heap(largest.begin(), largest.end(), greater);
      } else if (v > largest.front()) {
        std::pop_heap(largest.begin(), largest.end(), greater);
        largest.back() = v;
        std::push_heap(largest.begin(), largest.end(), greater);
      }
    }
    threshold = largest.front();
  }
  for (std::size_t row = 0; row < values.size(); ++row) {
    if (values[row] >= threshold) rows.push_back(static_cast<std::uint32_t>(row));
  }
  return rows;
}

}  // namespace

void Aggregator::show_rows(
    Result& r, std::span<const std::uint64_t> sort_values,
    const std::function<void(std::uint32_t row, std::uint64_t* values)>& key_values_of,
    const std::function<std::vector<Measures>(std::span<const std::uint32_t> rows)>& measures_of) {
  const std::size_t present_rows = sort_values.size();
  const std::size_t shown = std::min<std::size_t>(present_rows, query_.top);
  const std::vector<std::uint32_t> order = top_candidates(sort_values, shown);  // rows
  const std::size_t candidates = order.size();

  // Order the candidates on ids and ranks, then render only those shown.
  const std::size_t width = query_.by.size();
  std::vector<std::uint64_t> row_values(candidates * width);
  for (std::size_t i = 0; i < candidates; ++i) key_values_of(order[i], row_values.data() + i * width);
  // What the order reads of a candidate, side by side: a sort of walk's
  // 1.7 M rows read them through `order` and missed the cache.
  struct Candidate {
    std::uint64_t value;
    std::uint32_t key_rank;  // among the candidates tied with it on value
    std::uint32_t position;
  };
  std::vector<Candidate> sorted(candidates);
  for (std::uint32_t i = 0; i < candidates; ++i) sorted[i] = Candidate{sort_values[order[i]], 0, i};
  const auto larger = [](const Candidate& a, const Candidate& b) { return a.value > b.value; };
  if (shown < candidates) {
    // The candidates beyond the rows shown all tie with the last of them:
    // only those above it are sorted by value (a million tied rows past a
    // top 20 were).
    const std::uint64_t threshold =
        std::min_element(sorted.begin(), sorted.end(), [](const Candidate& a, const Candidate& b) {
          return a.value < b.value;
        })->value;
    const auto above = std::partition(sorted.begin(), sorted.end(),
                                      [&](const Candidate& c) { return c.value > threshold; });
    std::sort(sorted.begin(), above, larger);
  } else {
    std::sort(sorted.begin(), sorted.end(), larger);
  }
  struct Run {
    std::size_t begin, end;
  };
  std::vector<Run> tied_runs;
  // Runs of equal values that reach the rows shown: only their keys are
  // ordered, and in a run that passes the last row shown, only as far as
  // it. Ranking every candidate's key cost more than the rest of a query
  // whose values rarely tie, or tie in a million rows past the top 20
  // (realloc-churn on walk's store: 0.28 s became 1.1 s).
  const KeyOrder key_order(tables_, query_.by);  // made even with no ties: the shown stacks' texts
  std::vector<std::uint64_t> run_values;
  for (std::size_t begin = 0; begin < shown;) {
    std::size_t end = begin + 1;
    while (end < candidates && sorted[end].value == sorted[begin].value) ++end;
    if (end - begin > 1) {
      run_values.clear();
      for (std::size_t i = begin; i < end; ++i) {
        const std::uint64_t* values = row_values.data() + std::size_t{sorted[i].position} * width;
        run_values.insert(run_values.end(), values, values + width);
      }
      const std::vector<std::uint32_t> ranks = key_order.rank(run_values, shown - begin);
      for (std::size_t i = begin; i < end; ++i) sorted[i].key_rank = ranks[i - begin];
      tied_runs.push_back({begin, end});
    }
    begin = end;
  }
  const auto values_of = [&](std::uint32_t position) {
    return std::span<const std::uint64_t>(row_values.data() + std::size_t{position} * width, width);
  };
  const auto before = [&](const Candidate& a, const Candidate& b) {
    if (a.key_rank != b.key_rank) return a.key_rank < b.key_rank;
    // Keys that render alike (rare): by their ids, which do not depend on how
    // rows were numbered (a store's stack view and a one-shot query agree).
    const auto ids_a = values_of(a.position), ids_b = values_of(b.position);
    return std::lexicographical_compare(ids_a.begin(), ids_a.end(), ids_b.begin(), ids_b.end()) ||
           (std::equal(ids_a.begin(), ids_a.end(), ids_b.begin(), ids_b.end()) &&
            order[a.position] < order[b.position]);
  };
  for (const Run& run : tied_runs) {
    const auto first = sorted.begin() + static_cast<std::ptrdiff_t>(run.begin);
    const auto last = sorted.begin() + static_cast<std::ptrdiff_t>(run.end);
    if (run.end <= shown) {
      std::sort(first, last, before);
    } else {
      std::partial_sort(first, sorted.begin() + static_cast<std::ptrdiff_t>(shown), last, before);
    }
  }
  std::vector<std::uint32_t> positions(shown);
  for (std::size_t i = 0; i < shown; ++i) positions[i] = sorted[i].position;

  std::vector<std::uint32_t> shown_rows(shown);
  for (std::size_t i = 0; i < shown; ++i) shown_rows[i] = order[positions[i]];
  const std::vector<Measures> measures = measures_of(shown_rows);

  Measures shown_sum;
  r.rows.reserve(shown);
  for (std::size_t i = 0; i < shown; ++i) {
    Row row;
    row.measures = measures[i];
    shown_sum.add(measures[i]);
    const std::span<const std::uint64_t> values = values_of(positions[i]);
    for (std::size_t level = 0; level < width; ++level) {
      row.key.push_back(render_key_value(tables_, query_.by[level], values[level], key_order.frame_texts()));
    }
    r.rows.push_back(std::move(row));
  }
  if (present_rows > shown) {
    r.other = minus(r.totals, shown_sum);
    r.other_rows = present_rows - shown;
  }
}

void Aggregator::answer_from(const TraceStore& store) {
  if (answer_from_view(store)) return;
  // Nothing at or after the window's end changes the answer but how the
  // blocks alive then end (record(): freed after T2 is not freed in it).
  if (!answer_from_sums(store.columns(), [&] { store.check_bucket_sums(); })) store.replay(*this, t2_);
}

bool Aggregator::of_whole_trace_without_times() const {
  // A window from 0 that never closes; lifetimes and series need each
  // block's times, nothing else does.
  return t1_ <= 0 && t2_ == kNeverNs && !needs_blocks_ && series_bucket_ns_ == 0;
}

bool Aggregator::answer_from_sums(const StoreColumns& columns, const std::function<void()>& check_sums) {
  // The sums describe the whole trace: every block is allocated inside
  // (AIFI when freed, AIFO when not).
  if (!of_whole_trace_without_times()) return false;
  if (layout_ == Layout::kPeak && has_block_filters_) return false;
  if (!columns.has_bucket_sums()) return false;
  if (check_sums) check_sums();
  // The stored peak is over every bucket: each one with blocks must pass.
  if (!sums_all_pass(columns.bucket_sums)) return false;
  add_sums(columns.bucket_sums);
  in_window_ = true;
  peak_seen_ = true;
  peak_ = Peak{columns.peak.bytes, columns.peak.blocks, columns.peak.time_ns};
  end_ns_ = columns.end_ns;
  return true;
}

bool Aggregator::sums_all_pass(std::span<const BucketSum> sums) {
  return with_layout([&]<class S>() {
    for (const BucketSum& sum : sums) {
      if (plan<S>(BucketId(sum.bucket)).key < 0) return false;
    }
    return true;
  });
}

void Aggregator::add_sums(std::span<const BucketSum> sums) {
  with_layout([&]<class S>() { apply_sums<S>(sums); });
}

template <class S>
void Aggregator::apply_sums(std::span<const BucketSum> sums) {
  ChunkedVector<S>& all = states<S>();
  for (const BucketSum& sum : sums) {
    S& state = all[sum.bucket];
    if (sum.allocs > 0xFFFFFFFFu) bucket_overflow();
    if constexpr (S::kPeak) {
      // Every bucket's blocks at the peak, saved in the peak's epoch (1).
      state.saved_epoch = 1;
      state.live_at_peak = sum.live_at_peak;
    } else {
      // What record() counts, a group of blocks at a time: freed temporarily,
      // freed otherwise (AIFI), alive at the end (AIFO).
      const std::uint64_t size = size_of(state, sum.bucket);
      const struct {
        Impacting type;
        bool temporary;
        std::uint64_t blocks;
      } groups[] = {{Impacting::kAifi, true, sum.temporary_frees},
                    {Impacting::kAifi, false, sum.frees - sum.temporary_frees},
                    {Impacting::kAifo, false, sum.allocs - sum.frees}};
      for (const auto& group : groups) {
        if (group.blocks == 0) continue;
        const bool keep =
            !has_block_filters_ ||
            ((impacting_mask_ == 0 || (impacting_mask_ & (1u << static_cast<unsigned>(group.type))) != 0) &&
             (!query_.temporary_only || group.temporary));
        if (!keep) {
          excluded_blocks_ += group.blocks;
          excluded_bytes_ += group.blocks * size;
          continue;
        }
        const auto blocks = static_cast<std::uint32_t>(group.blocks);
        if constexpr (S::kLiveAreAifo) {
          increment(group.type == Impacting::kAifo ? state.live_inside : state.blocks_by_type[0], blocks);
        } else {
          increment(state.blocks_by_type[static_cast<std::size_t>(group.type)], blocks);
        }
        if (group.temporary) temporary_blocks_ += group.blocks;
      }
    }
  }
  if constexpr (S::kPeak) peak_epoch_ = 1;
}

Result Aggregator::result(const SourceInfo& source) {
  Result r;
  r.query = query_;
  r.realloc_known = source.realloc_marked;
  r.impacting_measures = impacting_mode_;
  r.excluded_blocks = excluded_blocks_;
  r.excluded_bytes = excluded_bytes_;
  r.temporary_blocks = temporary_blocks_;
  r.peak = peak_;
  r.trace_end_ns = end_ns_;
  if (series_bucket_ns_ != 0) r.series = Series{t1_, series_bucket_ns_, series_};
  if (view_store_ != nullptr) {
    roll_up_from_view(r);
  } else {
    rank_keys();
    with_layout([&]<class S>() { roll_up<S>(r); });
  }
  return r;
}

#undef HEAPQL_HOT_INLINE

}  // namespace heapql
