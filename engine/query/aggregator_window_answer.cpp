// A window's answer from an open session's window index
// (engine/store/window_index.h), for a query that counts every bucket and
// every block of its window: what replaying the store up to T2 counts,
// without the replay. The window's blocks are a range of block ids; each
// is counted as the replay's complete() counts it, by where its free falls
// (before the cut, after it, never) and whether the free was temporary. The
// level, the peak and the series are read from the index's runs: with every
// bucket counted, the query's level is the index's. The answers are
// byte-identical to the replay's (tests/unit/window_index_test.cpp compares
// them over many windows; bench/serve/compare-answers.sh over CLI queries).
#include <algorithm>

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/query/aggregator_count_steps.h"
#include "engine/query/byte_sums.h"
#include "engine/util/prefetch_hint.h"

namespace heapql {

bool Aggregator::answer_from_window_index(const TraceStore& store, const WindowIndex& index) {
  // The peak layout saves live counts at each peak, event by event; block
  // filters need each block's times (lifetimes) or types (impacting); a
  // bucket filter makes the level the counted buckets' alone.
  if (plan_.query().block_set != BlockSet::kWindow || plan_.layout() == BucketLayout::kPeak) return false;
  if (plan_.impacting_mode() || plan_.has_block_filters() || !plan_.counts_every_bucket()) return false;
  if (!index.has_levels()) return false;
  store.check_tables();  // the index was built from checked block columns
  const StoreColumns& c = store.columns();
  // The events as the replay splits them: skipped before T1 (their blocks
  // alive at T1 only raise the level), replayed up to the cut at T2.
  const std::uint64_t cut = index.first_event_at(plan_.t2());
  const std::uint64_t first = std::min(index.first_event_at(plan_.t1()), cut);
  const std::size_t first_block = index.allocs_before(first);
  const std::size_t end_block = index.allocs_before(cut);
  const std::uint64_t frees_before_cut = cut - end_block;
  with_layout([&]<class S>() { count_window_blocks<S>(c, index, first_block, end_block, frees_before_cut); });
  level_from_runs(index.runs(), index.run_at(first), index.run_at(cut));
  // The blocks alive at the end were counted above (block events: no
  // bucket's live counts are read at the end).
  on_finish(c.end_ns);
  answered_from_window_index_ = true;
  return true;
}

template <class S>
void Aggregator::count_window_blocks(const StoreColumns& c, const WindowIndex& index, std::size_t first_block,
                                     std::size_t end_block, std::uint64_t frees_before_cut) {
  // States for the buckets up to the highest the window's blocks name,
  // not for every bucket: a narrow window's roll-up then passes over few
  // (buckets are numbered mostly in order of their first allocation).
  std::uint32_t highest = 0;
  PackedReader buckets(c.bucket), buckets_ahead(c.bucket);
  for (std::size_t i = first_block; i < end_block; ++i) highest = std::max(highest, buckets[i]);
  ChunkedVector<S>& all = states<S>();
  if (first_block < end_block && all.size() <= highest) {
    if (highest >= tables_.bucket_count()) throw Error("store is inconsistent: a block's bucket is not in the bucket table");
    all.grow_to(std::size_t{highest} + 1);
  }
  const std::span<const std::uint32_t> ends = index.block_ends();
  // Blocks come in id order; their buckets' states are random reads, fetched ahead.
  constexpr std::size_t kAhead = 16;
  for (std::size_t i = first_block; i < end_block; ++i) {
    if (i + kAhead < end_block) prefetch_hint(&all[buckets_ahead[i + kAhead]]);  // all up to `highest`
    const std::uint32_t b = buckets[i];
    S& state = plan<S>(BucketId(b));
    const std::uint32_t end = ends[i];
    // The replay: a free before the cut ends the block in the window; a
    // later one leaves it outstanding at T2 (a temporary one is fed at T2,
    // still temporary; another one as still alive, not temporary).
    const bool freed_in = (end & StoreColumns::kBlockMask) < frees_before_cut;
    const bool temporary = end != WindowIndex::kNeverFreed && (end & StoreColumns::kTemporaryBit) != 0;
    if constexpr (S::kLiveAreAifo) {
      if (!freed_in) {
        add_live(state, WindowPart::kInside);  // this layout's AIFO blocks are its live ones
        continue;
      }
    }
    record(state, b, BlockEnd{.alloc_in = true, .freed_in = freed_in, .temporary = temporary}, 1, tallies_);
  }
}

}  // namespace heapql
