#include "engine/store/trace_store.h"

#include <algorithm>
#include <bit>

#include "engine/error.h"
#include "engine/store/free_column_ahead.h"
#include "engine/store/live_block_stacks.h"
#include "engine/util/on_both_cores.h"
#include "engine/util/prefetch_hint.h"

namespace heapql {

std::string_view block_identity_name(BlockIdentity identity) {
  return identity == BlockIdentity::kExact ? "exact" : "bucket-lifo";
}

TraceStore::TraceStore(TraceTables tables, SourceInfo source, StoreColumns columns,
                       std::shared_ptr<const void> owner, StoreFileChecks checks)
    : tables_(std::move(tables)),
      source_(std::move(source)),
      owner_(std::move(owner)),
      stack_tree_check_(std::move(checks.stack_tree)),
      stack_tree_by_copy_(std::move(checks.stack_tree_by_copy)),
      buckets_check_(std::move(checks.buckets)),
      blocks_check_(std::move(checks.blocks)),
      sums_check_(std::move(checks.bucket_sums)),
      columns_(columns) {}

void TraceStore::gather_blocks_when_read(std::function<void(StoreColumns&)> gather) {
  blocks_gather_ = LazyCheck([this, gather = std::move(gather)] { gather(columns_); });
}

void TraceStore::attach_stack_view(StackView view, std::function<void()> check) {
  stack_view_ = view;
  stack_view_check_ = LazyCheck(std::move(check));
}

void TraceStore::check_tables() const {
  if (stack_tree_check_.pending() && buckets_check_.pending()) {
    // Each big table on a core of its own.
    on_both_cores([&] { buckets_check_.run(); }, [&] { stack_tree_check_.run(); });
  } else {
    stack_tree_check_.run();
    buckets_check_.run();
  }
}

void TraceStore::check_bucket_sums() const {
  if (!sums_check_.pending()) return check_tables();
  // The sums (read against the block columns' lengths, not the tables)
  // beside the buckets, the two biggest checks.
  on_both_cores([&] { buckets_check_.run(); },
                [&] {
                  stack_tree_check_.run();
                  sums_check_.run();
                });
}

TraceStore::Builder::Builder(TraceStore& store, CheckpointRule checkpoints)
    : store_(store),
      bucket_(store.owned_.bucket, 0),
      alloc_seq_(store.owned_.alloc_seq, 0),
      free_order_(store.owned_.free_order, StoreColumns::kFreeRotation),
      columns_(store.tables_, bucket_, alloc_seq_, free_order_, store.owned_.time_changes, checkpoints) {}

void TraceStore::Builder::on_finish(std::int64_t end_ns) {
  columns_.on_finish(end_ns);
  OwnedColumns& owned = store_.owned_;
  const PackedColumn bucket = finished_column(bucket_, owned.bucket, 0);
  const PackedColumn alloc_seq = finished_column(alloc_seq_, owned.alloc_seq, 0);
  const PackedColumn free_order = finished_column(free_order_, owned.free_order, StoreColumns::kFreeRotation);
  owned.time_changes.shrink_to_fit();
  owned.bucket_sums = columns_.take_bucket_sums();
  owned.checkpoints = columns_.checkpoints();
  const PackedColumn checkpoint_ids = pack_values(columns_.checkpoint_ids(), 0, owned.checkpoint_ids);
  StoreColumns& c = store_.columns_;
  c = StoreColumns{};
  c.bucket = bucket, c.alloc_seq = alloc_seq, c.free_order = free_order, c.time_changes = owned.time_changes;
  c.bucket_sums = BucketSumList(owned.bucket_sums), c.peak = columns_.peak(), c.event_count = columns_.event_count();
  c.end_ns = columns_.end_ns(), c.checkpoints = owned.checkpoints, c.checkpoint_ids = checkpoint_ids;
}

namespace {

// The time of an event (frees look up their block's allocation), knowing
// that the changes from `after` on are later: galloping back from there,
// then bisecting, so that a recent event (most freed blocks are young) costs
// a step or two, not a search of every change.
std::int64_t time_of(std::span<const TimeChange> changes, std::uint32_t seq, std::size_t after) {
  std::size_t hi = std::min(after, changes.size()), lo = hi, step = 1;
  while (lo > 0 && changes[lo - 1].first_seq > seq) {
    hi = lo - 1;
    lo = lo > step ? lo - step : 0;
    step *= 2;
  }
  // The last change in [lo, hi) at or before seq (none: the one before lo,
  // whose first_seq is at or before seq, or no change at all), by halving
  // without a branch on the data: the frees' blocks are of any age, so the
  // halves' directions are random.
  std::size_t at = lo, n = hi - lo;  // the answer is in [at - 1, at + n)
  while (n > 0) {
    const std::size_t half = n / 2;
    // All ones when the answer lies past the middle change: then
    // [at + half + 1, at + n), else [at, at + half).
    const std::size_t past = std::size_t{0} - static_cast<std::size_t>(changes[at + half].first_seq <= seq);
    at += (half + 1) & past;
    n = half - (((n & 1) ^ 1) & past);
  }
  return at == 0 ? 0 : changes[at - 1].ns;
}

[[noreturn]] void inconsistent(const char* what) { throw Error(std::string("store is inconsistent: ") + what); }

// The trace's clock followed through events in ascending order: the time
// at an event, and how many changes lie at or before it (those after are
// later: time_of's `after`, and where a run of one time ends).
class ClockFollower {
 public:
  explicit ClockFollower(std::span<const TimeChange> changes) : changes_(changes) {}
  std::int64_t at(std::uint64_t seq) {
    while (next_ < changes_.size() && changes_[next_].first_seq <= seq) now_ = changes_[next_++].ns;
    return now_;
  }
  std::size_t passed() const { return next_; }
  // The first event of the next change, or `otherwise` when none is left.
  std::uint64_t next_change_seq(std::uint64_t otherwise) const {
    return next_ < changes_.size() ? changes_[next_].first_seq : otherwise;
  }

 private:
  std::span<const TimeChange> changes_;
  std::size_t next_ = 0;
  std::int64_t now_ = 0;
};

// The first event at or after `ns` (times never decrease; events before the
// first time change are at 0).
std::uint64_t first_event_at(const StoreColumns& c, std::int64_t ns) {
  if (ns <= 0) return 0;
  if (ns == kNeverNs) return c.event_count;
  const auto at = std::lower_bound(c.time_changes.begin(), c.time_changes.end(), ns,
                                   [](const TimeChange& change, std::int64_t t) { return change.ns < t; });
  return at == c.time_changes.end() ? c.event_count : std::min<std::uint64_t>(at->first_seq, c.event_count);
}

// How many blocks were allocated before event `seq` (the allocation
// sequence numbers ascend; the replay refuses a store where they do not).
std::size_t allocs_before(const StoreColumns& c, std::uint64_t seq) { return c.alloc_seq.lower_bound(seq); }

// Counts the allocations [from, to) into `counts` by bucket, checking each
// block's bucket and that allocation times ascend.
void count_allocations(const StoreColumns& c, std::size_t from, std::size_t to, std::vector<std::uint32_t>& counts) {
  std::uint32_t previous = from > 0 ? c.alloc_seq[from - 1] : 0;
  PackedReader buckets(c.bucket), seqs(c.alloc_seq);
  for (std::size_t i = from; i < to; ++i) {
    const std::uint32_t bucket = buckets[i];
    if (bucket >= counts.size()) inconsistent("a block's bucket is not in the bucket table");
    const std::uint32_t seq = seqs[i];
    if (i > 0 && seq <= previous) inconsistent("allocation sequence numbers are not ascending");
    previous = seq;
    ++counts[bucket];  // below 2^31: so are the blocks
  }
}

}  // namespace

template <class MarkFreed>
void TraceStore::skip_events(EventConsumer& consumer, std::size_t allocs, std::size_t frees, MarkFreed& mark_freed) const {
  const StoreColumns& c = columns_;
  const std::size_t buckets = tables_.bucket_count();
  std::vector<std::uint32_t> allocated(buckets, 0), freed(buckets, 0);
  on_both_cores(
      [&] {
        FreeColumnAhead free_order(c, 0, frees, allocs);
        for (std::size_t f = 0; f < frees; ++f) {
          const std::uint32_t i = free_order.word(f) & StoreColumns::kBlockMask;
          if (i >= allocs) inconsistent("a free of a block not yet allocated");
          mark_freed(i);
          const std::uint32_t bucket = c.bucket[i];
          if (bucket < buckets) ++freed[bucket];  // (else reported by the other half)
        }
      },
      [&] { count_allocations(c, 0, allocs, allocated); });
  // Every free counted was of a block allocated before (checked above).
  for (std::size_t b = 0; b < buckets; ++b) allocated[b] -= freed[b];
  hand_over_skipped(consumer, allocated);
}

template <class MarkFreed>
void TraceStore::skip_from_checkpoint(EventConsumer& consumer, const LiveCheckpoint& checkpoint, std::size_t allocs,
                                      std::size_t frees, std::vector<std::uint64_t>& freed_bits,
                                      MarkFreed& mark_freed) const {
  const StoreColumns& c = columns_;
  const std::size_t buckets = tables_.bucket_count();
  const std::size_t allocs_then = allocs_before(c, checkpoint.seq);
  const std::uint64_t frees_then = checkpoint.seq - allocs_then;
  if (allocs_then > allocs || frees_then > frees || checkpoint.count != allocs_then - frees_then) {
    inconsistent("a live checkpoint does not fit the events");
  }
  // Every block allocated before the checkpoint is freed, but those listed.
  for (std::size_t w = 0; w < allocs_then / 64; ++w) freed_bits[w] = ~std::uint64_t{0};
  if (allocs_then % 64 != 0) freed_bits[allocs_then / 64] = (std::uint64_t{1} << (allocs_then % 64)) - 1;
  std::vector<std::uint32_t> live(buckets, 0);
  PackedReader ids(c.checkpoint_ids);
  for (std::size_t k = 0, previous = 0; k < checkpoint.count; ++k) {
    const std::uint32_t i = ids[checkpoint.first + k];
    if (i >= allocs_then || (k > 0 && i <= previous)) inconsistent("a live checkpoint's blocks are out of order");
    previous = i;
    freed_bits[i / 64] &= ~(std::uint64_t{1} << (i % 64));
    const std::uint32_t bucket = c.bucket[i];
    if (bucket >= buckets) inconsistent("a block's bucket is not in the bucket table");
    ++live[bucket];
  }
  // Then the events from the checkpoint on, one by one.
  count_allocations(c, allocs_then, allocs, live);
  FreeColumnAhead free_order(c, frees_then, frees, allocs);
  for (std::size_t f = frees_then; f < frees; ++f) {
    const std::uint32_t i = free_order.word(f) & StoreColumns::kBlockMask;
    if (i >= allocs) inconsistent("a free of a block not yet allocated");
    mark_freed(i);
    const std::uint32_t bucket = c.bucket[i];
    if (bucket >= buckets || live[bucket] == 0) inconsistent("a free of a block not alive");
    --live[bucket];
  }
  hand_over_skipped(consumer, live);
}

void TraceStore::skip_back_from_checkpoint(EventConsumer& consumer, const LiveCheckpoint& checkpoint,
                                           std::size_t allocs, std::size_t frees,
                                           std::vector<std::uint64_t>& freed_bits) const {
  const StoreColumns& c = columns_;
  const std::size_t buckets = tables_.bucket_count();
  const std::size_t allocs_then = allocs_before(c, checkpoint.seq);
  const std::uint64_t frees_then = checkpoint.seq - allocs_then;
  if (allocs_then < allocs || frees_then < frees || frees_then > c.free_order.size() ||
      checkpoint.count != allocs_then - frees_then) {
    inconsistent("a live checkpoint does not fit the events");
  }
  // Every block allocated before the skipped events' end is freed by then,
  // but those the checkpoint lists and those freed between then and it.
  for (std::size_t w = 0; w < allocs / 64; ++w) freed_bits[w] = ~std::uint64_t{0};
  if (allocs % 64 != 0) freed_bits[allocs / 64] = (std::uint64_t{1} << (allocs % 64)) - 1;
  std::vector<std::uint32_t> live(buckets, 0);
  std::uint64_t alive = 0;
  const auto alive_then = [&](std::uint32_t i) {
    std::uint64_t& word = freed_bits[i / 64];
    const std::uint64_t bit = std::uint64_t{1} << (i % 64);
    if ((word & bit) == 0) inconsistent("a block freed twice");  // or listed alive and freed before the checkpoint
    word &= ~bit;
    const std::uint32_t bucket = c.bucket[i];
    if (bucket >= buckets) inconsistent("a block's bucket is not in the bucket table");
    ++live[bucket];
    ++alive;
  };
  PackedReader ids(c.checkpoint_ids);
  for (std::size_t k = 0, previous = 0; k < checkpoint.count; ++k) {
    const std::uint32_t i = ids[checkpoint.first + k];
    if (i >= allocs_then || (k > 0 && i <= previous)) inconsistent("a live checkpoint's blocks are out of order");
    previous = i;
    if (i >= allocs) break;  // the rest were allocated after the skipped events
    alive_then(i);
  }
  FreeColumnAhead free_order(c, frees, frees_then, allocs);
  for (std::size_t f = frees; f < frees_then; ++f) {
    const std::uint32_t i = free_order.word(f) & StoreColumns::kBlockMask;
    if (i >= allocs_then) inconsistent("a free of a block not yet allocated");
    if (i < allocs) alive_then(i);  // (a later block's free is replayed, or skipped, after)
  }
  if (alive != allocs - frees) inconsistent("a live checkpoint does not fit the events");
  hand_over_skipped(consumer, live);
}

std::size_t TraceStore::buckets_met_before(std::int64_t until_ns) const {
  if (columns_.has_events) return tables_.bucket_count();  // without reading the events twice
  blocks_gather_.run();
  const std::size_t allocs = allocs_before(columns_, first_event_at(columns_, until_ns));
  const std::size_t buckets = tables_.bucket_count();
  // Past an eighth of the blocks most buckets are met (they are numbered
  // about in order of first use), and reading every block's bucket would
  // cost more than setting the few states not met.
  if (allocs > columns_.block_count() / 8) return buckets;
  std::uint32_t highest = 0;
  try {
    PackedReader bucket(columns_.bucket);
    for (std::size_t i = 0; i < allocs; ++i) highest = std::max(highest, bucket[i]);
  } catch (const Error&) {
    return buckets;  // a damaged block: the replay refuses it, after the column's checksum
  }
  return allocs == 0 ? 0 : std::min<std::size_t>(std::size_t{highest} + 1, buckets);
}

void TraceStore::hand_over_skipped(EventConsumer& consumer, std::span<const std::uint32_t> live) const {
  check_tables();
  consumer.on_skipped_events(SkippedEvents{live});
}

void TraceStore::replay(EventConsumer& consumer, std::int64_t until_ns, const std::function<void()>& first) const {
  const bool from_events = columns_.has_events;
  if (!from_events) blocks_gather_.run();
  const auto replay_here = [&] {
    if (first) first();
    if (!from_events) {
      replay_blocks(consumer, until_ns);
    } else if (consumer.needs_blocks()) {
      replay_event_blocks(consumer, until_ns);
    } else {
      replay_events(consumer, until_ns);
    }
  };
  if (!blocks_check_.pending() && !buckets_check_.pending() && !stack_tree_check_.pending()) return replay_here();
  // The sections' checks run beside the replay (on the core its window
  // leaves free): first the tables, which the replay waits for before it
  // feeds the consumer anything (it reads them from then on) but not while
  // it counts the events before a window, which reads none; then the block
  // columns, waited for before the answer counts. (The replay reads no
  // bucket sum.) A check's error is thrown before the replay's, which it
  // explains; the replay reads nothing unchecked in a way that could
  // misbehave.
  on_both_cores(
      [&] {
        stack_tree_check_.run();
        buckets_check_.run();
        blocks_check_.run();
      },
      replay_here);
}

void TraceStore::replay_blocks(EventConsumer& consumer, std::int64_t until_ns) const {
  const StoreColumns& c = columns_;
  const std::uint64_t cut = first_event_at(c, until_ns);
  const std::size_t blocks = c.block_count();
  const std::size_t buckets = tables_.bucket_count();
  if (c.alloc_seq.size() != blocks) inconsistent("the bucket and allocation columns differ in length");
  if (c.event_count != blocks + c.free_order.size()) inconsistent("events are not allocations plus frees");
  // Which of the blocks allocated before the cut are freed: a bit each, to
  // refuse a block freed twice and to find those still alive at the end.
  const std::size_t allocs_before_cut = allocs_before(c, cut);
  std::vector<std::uint64_t> freed((allocs_before_cut + 63) / 64, 0);
  const auto is_freed = [&](std::size_t i) { return (freed[i / 64] & (std::uint64_t{1} << (i % 64))) != 0; };
  const auto mark_freed = [&](std::uint32_t i) {
    if (is_freed(i)) inconsistent("a block freed twice");
    freed[i / 64] |= std::uint64_t{1} << (i % 64);
  };
  // A block as its allocation left it (frees and the end look it up by id);
  // the time changes from `later_change` on are after its allocation.
  const auto block_at = [&](std::size_t i, std::size_t later_change) {
    const std::uint32_t alloc_seq = c.alloc_seq[i];
    return LiveBlock{BlockId(static_cast<std::uint32_t>(i)), BucketId(c.bucket[i]), alloc_seq,
                     time_of(c.time_changes, alloc_seq, later_change)};
  };
  // The events the consumer lets us skip, counted per bucket: allocations
  // on this core, frees on the other.
  const std::uint64_t skipped = std::min(first_event_at(c, consumer.skippable_before_ns()), cut);
  const std::size_t skipped_allocs = allocs_before(c, skipped);
  const std::size_t skipped_frees = static_cast<std::size_t>(skipped - skipped_allocs);
  if (skipped_frees > c.free_order.size()) inconsistent("more frees than the free column holds");
  if (skipped_allocs > allocs_before_cut) inconsistent("allocation sequence numbers are not ascending");
  if (skipped > 0) {
    // From the nearer of the live checkpoints either side of the skipped
    // events' end (counting forward reads the events between, back only
    // the frees), if there is one; else counting them all.
    const auto after = std::upper_bound(c.checkpoints.begin(), c.checkpoints.end(), skipped,
                                        [](std::uint64_t seq, const LiveCheckpoint& k) { return seq < k.seq; });
    const std::uint64_t forward_cost = after == c.checkpoints.begin()
                                           ? skipped
                                           : skipped - std::prev(after)->seq + std::prev(after)->count;
    const std::uint64_t back_cost = after == c.checkpoints.end()
                                        ? ~std::uint64_t{0}
                                        : (after->seq - skipped) / 2 + after->count;
    if (back_cost < forward_cost) {
      skip_back_from_checkpoint(consumer, *after, skipped_allocs, skipped_frees, freed);
    } else if (after != c.checkpoints.begin()) {
      skip_from_checkpoint(consumer, *std::prev(after), skipped_allocs, skipped_frees, freed, mark_freed);
    } else {
      skip_events(consumer, skipped_allocs, skipped_frees, mark_freed);
    }
  }
  // The temporary frees after the cut of blocks allocated before it, found
  // on the other core while this one replays up to the cut.
  std::vector<std::uint32_t> late_temporary;
  const std::uint64_t frees_before_cut = cut - std::min<std::uint64_t>(cut, allocs_before_cut);
  std::size_t next_alloc = skipped_allocs;
  std::size_t next_free = skipped_frees;
  ClockFollower clock(c.time_changes);
  check_tables();  // done by now if events were skipped; the consumer reads the tables from here on
  on_both_cores(
      [&] {
        PackedReader free_order(c.free_order);
        for (std::size_t f = frees_before_cut; f < c.free_order.size(); ++f) {
          const std::uint32_t word = free_order[f];
          if ((word & StoreColumns::kTemporaryBit) == 0) continue;
          const std::uint32_t i = word & StoreColumns::kBlockMask;
          if (i >= blocks) inconsistent("a free of a block that does not exist");
          if (i < allocs_before_cut) late_temporary.push_back(i);  // else allocated after the cut too
        }
      },
      [&] {
        PackedReader alloc_seqs(c.alloc_seq), alloc_buckets(c.bucket);
        // A free looks its block up in two packed columns, fetched ahead.
        const std::size_t frees = c.free_order.size();
        FreeColumnAhead free_order(c, next_free, frees, blocks, FreeColumnAhead::Lookups::kBucketAndAllocation);
        for (std::uint64_t seq = skipped; seq < cut; ++seq) {
          const std::int64_t now = clock.at(seq);
          if (next_alloc < allocs_before_cut && alloc_seqs[next_alloc] == seq) {
            const auto i = static_cast<std::uint32_t>(next_alloc++);
            const std::uint32_t bucket = alloc_buckets[i];
            if (bucket >= buckets) inconsistent("a block's bucket is not in the bucket table");
            consumer.on_alloc(LiveBlock{BlockId(i), BucketId(bucket), seq, now});
            continue;
          }
          if (next_free >= frees) inconsistent("an event is neither an allocation nor a free");
          const std::uint32_t word = free_order.word(next_free++);
          const std::uint32_t i = word & StoreColumns::kBlockMask;
          if (i >= next_alloc) inconsistent("a free of a block not yet allocated");
          mark_freed(i);
          consumer.on_free(block_at(i, clock.passed()), seq, now, (word & StoreColumns::kTemporaryBit) != 0);
        }
      });
  // From here on, blocks looked up were allocated before the cut.
  if (cut > 0) clock.at(cut - 1);
  if (next_alloc != allocs_before_cut || next_free != frees_before_cut) {
    inconsistent("allocation sequence numbers are not ascending");
  }
  for (const std::uint32_t i : late_temporary) {
    mark_freed(i);
    consumer.on_free(block_at(i, clock.passed()), cut, until_ns, true);
  }
  // The blocks never freed: a word of 64 at a time, most of them all freed.
  // They come in the order of their allocation times, so their times are
  // found walking the time changes once, not searched for each. Those
  // allocated before the time the consumer wants them from are left out: a
  // window's query would look each up to count it in no set (a million
  // blocks on a program that frees little).
  const std::size_t first_wanted =
      std::min(allocs_before(c, first_event_at(c, consumer.still_alive_wanted_from_ns())), next_alloc);
  ClockFollower alloc_clock(c.time_changes.first(clock.passed()));  // the changes before the cut
  for (std::size_t word = first_wanted / 64; word * 64 < next_alloc; ++word) {
    std::uint64_t alive = ~freed[word];
    if (word == first_wanted / 64) alive &= ~std::uint64_t{0} << (first_wanted % 64);
    if (word * 64 + 64 > next_alloc) alive &= (std::uint64_t{1} << (next_alloc - word * 64)) - 1;
    for (; alive != 0; alive &= alive - 1) {
      const std::size_t i = word * 64 + static_cast<std::size_t>(std::countr_zero(alive));
      const std::uint32_t alloc_seq = c.alloc_seq[i];
      const std::int64_t alloc_ns = alloc_clock.at(alloc_seq);
      consumer.on_still_alive(LiveBlock{BlockId(static_cast<std::uint32_t>(i)), BucketId(c.bucket[i]), alloc_seq, alloc_ns});
    }
  }
  consumer.on_finish(c.end_ns);
}

void TraceStore::replay_events(EventConsumer& consumer, std::int64_t until_ns) const {
  const StoreColumns& c = columns_;
  const StoreEvents& events = c.events;
  const std::size_t buckets = tables_.bucket_count();
  const std::uint64_t cut = first_event_at(c, until_ns);
  const std::uint64_t skipped = std::min(first_event_at(c, consumer.skippable_before_ns()), cut);
  FrameDecoder decoder;
  std::vector<std::uint32_t> words;
  std::size_t decoded = events.chunk_count();  // which chunk `words` holds: none yet
  const auto read_chunk = [&](std::size_t k) {
    if (decoded != k) events.decode(k, decoder, words, buckets);
    decoded = k;
  };
  std::uint32_t last_alloc = EventConsumer::kNoAllocation;  // the bucket the event before allocated in
  std::size_t k = 0;
  if (skipped > 0) {
    // The blocks alive before the skipped events' end, per bucket: from the
    // last live counts at or before it, then counting the events between.
    std::vector<std::uint32_t> live(buckets, 0);
    std::uint64_t seq = 0;
    if (!c.live_counts_unreadable.empty()) throw Error("store section 'live counts': " + c.live_counts_unreadable);
    if (c.has_live_counts) {
      const StoreLiveCounts& lists = c.live_counts;
      std::size_t j = lists.count();
      while (j > 0 && lists.seq(j - 1) > skipped) --j;
      if (j > 0) {
        seq = lists.seq(j - 1);
        lists.decode(j - 1, decoder, live, events.allocs_before_chunk(seq / events.chunk_events()));
      }
    }
    for (k = seq / events.chunk_events(); seq < skipped; ++k) {
      read_chunk(k);
      const std::uint64_t first = events.first_event(k);
      const std::uint64_t stop = std::min<std::uint64_t>(skipped - first, words.size());
      for (std::uint64_t e = seq - first; e < stop; ++e) {
        const std::uint32_t w = words[e];
        if (w & 1) {
          if (live[w >> 1] == 0) inconsistent("a free of a bucket with no live block");
          --live[w >> 1];
          last_alloc = EventConsumer::kNoAllocation;
        } else {
          ++live[w >> 1];
          last_alloc = w >> 1;
        }
      }
      seq = first + stop;
      if (seq == skipped) break;  // in this chunk: the window starts here
    }
    check_tables();  // the consumer reads the tables from here on
    consumer.on_skipped_events(SkippedEvents{live, true});
  } else {
    check_tables();
  }
  // The events up to the cut, in runs of one time.
  ClockFollower clock(c.time_changes);
  for (std::uint64_t seq = skipped; seq < cut;) {
    k = static_cast<std::size_t>(seq / events.chunk_events());
    read_chunk(k);
    const std::uint64_t first = events.first_event(k);
    const std::uint64_t end = std::min<std::uint64_t>(cut, first + words.size());
    while (seq < end) {
      const std::int64_t now = clock.at(seq);
      const std::uint64_t run_end = std::min<std::uint64_t>(end, clock.next_change_seq(end));
      const std::span<const std::uint32_t> run(words.data() + (seq - first), run_end - seq);
      if (consumer.on_bucket_run(run, now, last_alloc) != run.size()) {
        inconsistent("a free of a bucket with no live block");
      }
      seq = run_end;
    }
  }
  // A temporary free just past the cut (of the block allocated just before
  // it) ends in the window, as replay_blocks feeds it.
  if (cut < c.event_count && last_alloc != EventConsumer::kNoAllocation) {
    k = static_cast<std::size_t>(cut / events.chunk_events());
    read_chunk(k);
    const std::uint32_t w = words[cut - events.first_event(k)];
    if ((w & 1) && (w >> 1) == last_alloc && !consumer.on_bucket_free(BucketId(w >> 1), until_ns, true)) {
      inconsistent("a free of a bucket with no live block");
    }
  }
  consumer.on_finish(c.end_ns);
}

void TraceStore::replay_event_blocks(EventConsumer& consumer, std::int64_t until_ns) const {
  const StoreColumns& c = columns_;
  const StoreEvents& events = c.events;
  const std::size_t buckets = tables_.bucket_count();
  const std::uint64_t cut = first_event_at(c, until_ns);
  const std::uint64_t skipped = std::min(first_event_at(c, consumer.skippable_before_ns()), cut);
  LiveBlockStacks live(buckets);
  constexpr std::uint32_t kNone = LiveBlockStacks::kNone;
  using Node = LiveBlockStacks::Node;
  std::vector<std::uint32_t> skipped_live(skipped > 0 ? buckets : 0, 0);
  std::uint32_t next_id = 0, just_allocated = kNone;
  ClockFollower clock(c.time_changes);
  const auto block_of = [&](const Node& node, std::uint32_t b) {
    return LiveBlock{BlockId(node.id), BucketId(b), node.alloc_seq,
                     time_of(c.time_changes, node.alloc_seq, clock.passed())};
  };
  FrameDecoder decoder;
  std::vector<std::uint32_t> words;
  constexpr std::uint64_t kPrefetchAhead = 8;
  if (skipped == 0) check_tables();
  for (std::size_t k = 0; k < events.chunk_count() && events.first_event(k) < cut; ++k) {
    events.decode(k, decoder, words, buckets);
    const std::uint64_t first = events.first_event(k);
    const std::uint64_t end = std::min<std::uint64_t>(cut, first + words.size());
    for (std::uint64_t seq = first; seq < end; ++seq) {
      if (seq == skipped && skipped > 0) {
        check_tables();  // the consumer reads the tables from here on
        consumer.on_skipped_events(SkippedEvents{skipped_live, false});
      }
      const std::int64_t now = clock.at(seq);
      // The states of an event ahead, fetched now in two steps: its bucket's
      // top 16 events ahead; 8 ahead, the node a free will end (an old
      // block's lies far from the recent ones) and the consumer's state.
      if (seq + 2 * kPrefetchAhead < end) live.prefetch_top(words[seq + 2 * kPrefetchAhead - first] >> 1);
      if (seq + kPrefetchAhead < end) {
        const std::uint32_t ahead = words[seq + kPrefetchAhead - first];
        if (ahead & 1) live.prefetch_youngest(ahead >> 1);
        if (seq + kPrefetchAhead >= skipped) consumer.prefetch_bucket(BucketId(ahead >> 1));
      }
      const std::uint32_t w = words[seq - first];
      const std::uint32_t b = w >> 1;
      if ((w & 1) == 0) {
        live.push(b, next_id, static_cast<std::uint32_t>(seq));
        if (seq >= skipped) {
          consumer.on_alloc(LiveBlock{BlockId(next_id), BucketId(b), seq, now});
        } else {
          ++skipped_live[b];
        }
        just_allocated = next_id++;
      } else {
        const Node node = live.pop(b);
        if (seq >= skipped) {
          consumer.on_free(block_of(node, b), seq, now, node.id == just_allocated);
        } else {
          --skipped_live[b];
        }
        just_allocated = kNone;
      }
    }
  }
  if (skipped > 0 && skipped == cut) {
    check_tables();
    consumer.on_skipped_events(SkippedEvents{skipped_live, false});
  }
  // A temporary free just past the cut (of the block allocated just before
  // it) ends in the window, at until_ns, as replay_blocks feeds it.
  if (cut < c.event_count && just_allocated != kNone) {
    const std::size_t k = static_cast<std::size_t>(cut / events.chunk_events());
    events.decode(k, decoder, words, buckets);
    const std::uint32_t w = words[cut - events.first_event(k)];
    if ((w & 1) && live.youngest(w >> 1) == just_allocated) {
      const Node node = live.pop(w >> 1);
      consumer.on_free(block_of(node, w >> 1), cut, until_ns, true);
    }
  }
  // The blocks never freed before the cut, in allocation order, from the
  // time the consumer wants them.
  const std::uint64_t wanted_from = first_event_at(c, consumer.still_alive_wanted_from_ns());
  struct Alive {
    std::uint32_t id, alloc_seq, bucket;
  };
  std::vector<Alive> alive;
  live.each_alive([&](std::uint32_t b, const Node& node) {
    if (node.alloc_seq >= wanted_from) alive.push_back({node.id, node.alloc_seq, b});
  });
  std::sort(alive.begin(), alive.end(), [](const Alive& x, const Alive& y) { return x.id < y.id; });
  ClockFollower alloc_clock(c.time_changes.first(clock.passed()));  // the changes before the cut
  for (const Alive& a : alive) {
    consumer.on_still_alive(LiveBlock{BlockId(a.id), BucketId(a.bucket), a.alloc_seq, alloc_clock.at(a.alloc_seq)});
  }
  consumer.on_finish(c.end_ns);
}

}  // namespace heapql
