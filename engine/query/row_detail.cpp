// The drill-down (row_detail.h): one replay of the store's events up to the
// window's end, each block of the row's buckets kept or not by the rule the
// aggregator counts it by, then binned.
#include "engine/query/row_detail.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/query/block_measures.h"
#include "engine/query/byte_sums.h"
#include "engine/query/group_key.h"
#include "engine/query/query_plan.h"

namespace heapql {

namespace {

// Lifetime bins: [0, 1 us), then a decade each up to [100 s, 1000 s), then
// 1000 s and more.
constexpr std::size_t kLifetimeBins = 11;
constexpr std::uint64_t kFirstLifetimeBoundNs = 1000;

// The upper bounds of the bins but the last: 1 us, 10 us, ... 1000 s.
constexpr std::array<std::uint64_t, kLifetimeBins - 1> kLifetimeBoundsNs = [] {
  std::array<std::uint64_t, kLifetimeBins - 1> bounds{};
  std::uint64_t bound = kFirstLifetimeBoundNs;
  for (std::uint64_t& b : bounds) b = bound, bound *= 10;
  return bounds;
}();

std::uint64_t lifetime_bound_ns(std::size_t bin) { return kLifetimeBoundsNs[bin]; }

std::size_t lifetime_bin(std::int64_t lifetime_ns) {
  return static_cast<std::size_t>(std::upper_bound(kLifetimeBoundsNs.begin(), kLifetimeBoundsNs.end(),
                                                   static_cast<std::uint64_t>(lifetime_ns)) -
                                  kLifetimeBoundsNs.begin());
}

struct StackPart {
  Measures measures;
  std::uint64_t bytes = 0;
  StackId stack;
  StackId culled;  // the stack as the query's culling leaves it
};
constexpr std::uint32_t kNoPart = 0xFFFFFFFFu;

// One bucket of the row: its blocks by impacting type (at the peak, all as
// AIFO). Sizes and stacks are a bucket's, so they are binned from these at
// the end; only the lifetimes are binned block by block.
struct RowBucket {
  BucketId bucket;
  std::uint64_t size = 0;
  std::array<std::uint64_t, 4> blocks_by_type{};
};

// What the pass keeps of the row's blocks.
struct RowBins {
  std::vector<RowBucket> buckets;
  std::array<std::pair<std::uint64_t, std::uint64_t>, kLifetimeBins> lifetimes{};  // blocks, bytes
  std::uint64_t not_freed_blocks = 0, not_freed_bytes = 0;
};

// A bucket's place in the pass, decided at its first block: one of these,
// or its index in RowBins::buckets (a bucket of the row).
constexpr std::int32_t kUnknownBucket = -3, kNotCounted = -2, kCountedElsewhere = -1;

// Feeds on the store's block events (EventConsumer) and keeps the blocks of
// the row: those of its buckets (which pass the query's bucket filters and
// have its key) that the query counts as they end, of the row's impacting
// type when that is a level; or, for the blocks alive at the peak, those
// alive at the moment the query's peak was first reached, found again by
// following the outstanding level as the aggregator does (semantics.md §8).
class RowBlocks final : public EventConsumer {
 public:
  RowBlocks(const TraceTables& tables, const Query& query, StackFilters filters, const Row& row,
            const Peak& peak)
      : tables_(tables), plan_(tables, query, std::move(filters)), at_peak_(query.block_set == BlockSet::kAtPeak),
        peak_bytes_(peak.bytes) {
    for (std::size_t level = 0; level < query.by.size(); ++level) {
      if (query.by[level] == GroupBy::kImpacting) {
        row_type_ = static_cast<Impacting>(row.key[level].id);
      } else {
        key_.emplace_back(query.by[level], static_cast<std::uint32_t>(row.key[level].id));
      }
    }
  }

  RowBins take_bins() { return std::move(bins_); }
  // A full stack as the query's culling leaves it.
  StackId culled(StackId stack) { return plan_.culled(stack); }

  std::int64_t skippable_before_ns() const override { return plan_.t1(); }
  void on_skipped_events(const SkippedEvents& skipped) override {
    if (!at_peak_) return;  // the window's blocks: those before it that matter end later, with their times
    for (std::size_t b = 0; b < skipped.live.size(); ++b) {
      if (skipped.live[b] == 0) continue;
      const BucketId bucket(static_cast<std::uint32_t>(b));
      if (slot(bucket) == kNotCounted) continue;
      level_bytes_ = checked_bytes(level_bytes_ + bytes_times(skipped.live[b], tables_.bucket(bucket).size));
    }
  }

  void on_alloc(const LiveBlock& block) override {
    if (!at_peak_ || slot(block.bucket) == kNotCounted) return;
    enter_window(block.alloc_ns, block.alloc_seq);
    level_bytes_ = checked_bytes(level_bytes_ + tables_.bucket(block.bucket).size);
    note_level(block.alloc_ns, block.alloc_seq + 1);
  }

  void on_free(const LiveBlock& block, std::uint64_t free_seq, std::int64_t free_ns, bool temporary) override {
    const std::int32_t at = slot(block.bucket);
    if (at == kNotCounted) return;
    if (at_peak_) {
      enter_window(free_ns, free_seq);
      level_bytes_ -= tables_.bucket(block.bucket).size;
      note_level(free_ns, free_seq + 1);
    }
    if (at >= 0) ended(bins_.buckets[static_cast<std::size_t>(at)], block, free_seq, free_ns, temporary);
  }

  void on_still_alive(const LiveBlock& block) override {
    const std::int32_t at = slot(block.bucket);
    if (at >= 0) ended(bins_.buckets[static_cast<std::size_t>(at)], block, kNeverSeq, kNeverNs, false);
  }

  void on_finish(std::int64_t) override {
    if (at_peak_) enter_window(plan_.t1(), kNeverSeq);
  }

 private:
  static constexpr std::uint64_t kNeverSeq = ~std::uint64_t{0};

  std::int32_t slot(BucketId id) {
    if (slots_.size() <= id.index()) {
      slots_.resize(std::max(tables_.bucket_count(), std::size_t{id.index()} + 1), kUnknownBucket);
    }
    std::int32_t& at = slots_[id.index()];
    if (at != kUnknownBucket) return at;
    const Bucket& bucket = tables_.bucket(id);
    if (!plan_.counts_bucket(bucket)) return at = kNotCounted;
    const StackId culled = plan_.culled(bucket.stack);
    for (const auto& [level, value] : key_) {
      if (key_level_value(tables_, level, bucket, culled) != value) return at = kCountedElsewhere;
    }
    bins_.buckets.push_back(RowBucket{id, bucket.size, {}});
    return at = static_cast<std::int32_t>(bins_.buckets.size() - 1);
  }

  // As the aggregator looks at the level: at the window's start (before the
  // first counted event at or after T1, or at the end), then after every
  // counted event inside the window. The peak is the first look at the
  // query's peak size; `moment` counts the events before it.
  void enter_window(std::int64_t ns, std::uint64_t moment) {
    if (in_window_ || ns < plan_.t1()) return;
    in_window_ = true;
    look(moment);
  }
  void note_level(std::int64_t ns, std::uint64_t moment) {
    if (ns >= plan_.t1() && ns < plan_.t2()) look(moment);
  }
  void look(std::uint64_t moment) {
    if (!peak_moment_ && level_bytes_ == peak_bytes_) peak_moment_ = moment;
  }

  // A block of the row's buckets ends (free_seq kNeverSeq: alive at the
  // end, or past the replay's cut).
  void ended(RowBucket& bucket, const LiveBlock& block, std::uint64_t free_seq, std::int64_t free_ns,
             bool temporary) {
    if (block.alloc_ns >= plan_.t2()) return;  // allocated after the window: in no set
    const BlockEnd end{.alloc_in = block.alloc_ns >= plan_.t1(),
                       .freed_in = free_ns < plan_.t2(),
                       .temporary = temporary,
                       .free_ns = free_ns,
                       .alloc_ns = block.alloc_ns};
    Impacting type = Impacting::kAifo;
    if (at_peak_) {
      // Alive at the peak: allocated before its moment, not freed before it.
      if (!peak_moment_ || block.alloc_seq >= *peak_moment_ || free_seq < *peak_moment_) return;
    } else {
      // The aggregator's record_by_type: the block's type in the window, then the keep rule.
      if (end.alloc_in) {
        type = end.freed_in ? Impacting::kAifi : Impacting::kAifo;
      } else {
        if (!plan_.impacting_mode() || end.free_ns < plan_.t1()) return;
        type = end.freed_in ? Impacting::kAofi : Impacting::kAofo;
      }
      if (!plan_.counts_block(type, end)) return;
      if (row_type_ && type != *row_type_) return;
    }
    ++bucket.blocks_by_type[static_cast<std::size_t>(type)];
    // semantics.md §4: freed inside the window, free - alloc; outstanding,
    // T2 - alloc, unbounded in an open window.
    if (!end.freed_in && plan_.t2() == kNeverNs) {
      ++bins_.not_freed_blocks;
      bins_.not_freed_bytes += bucket.size;
    } else {
      const std::int64_t lifetime = (end.freed_in ? end.free_ns : plan_.t2()) - block.alloc_ns;
      auto& by_lifetime = bins_.lifetimes[lifetime_bin(lifetime)];
      ++by_lifetime.first;
      by_lifetime.second += bucket.size;
    }
  }

  const TraceTables& tables_;
  QueryPlan plan_;
  const bool at_peak_;
  std::vector<std::pair<GroupBy, std::uint32_t>> key_;  // the row's key, but its impacting level
  std::optional<Impacting> row_type_;                    // the impacting level's value
  std::vector<std::int32_t> slots_;                      // by bucket
  std::uint64_t peak_bytes_;
  std::uint64_t level_bytes_ = 0;
  bool in_window_ = false;
  std::optional<std::uint64_t> peak_moment_;
  RowBins bins_;
};

// The stacks listed: by the row's sort measure, then bytes, then blocks,
// descending; stacks tied on all three by their text (semantics.md §3).
void list_stacks(RowDetail& detail, const TraceTables& tables, Measure sort, const std::vector<StackPart>& parts) {
  struct Entry {
    std::uint64_t value, bytes, blocks;
    std::uint32_t stack;
    std::uint32_t part;
    std::uint32_t rank = 0;  // among the stacks tied with it
  };
  std::vector<Entry> entries;
  entries.reserve(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const StackPart& part = parts[i];
    entries.push_back(Entry{part.measures.value(sort), part.bytes, part.measures.blocks, part.stack.value,
                            static_cast<std::uint32_t>(i)});
  }
  const auto triple = [](const Entry& e) { return std::tuple(e.value, e.bytes, e.blocks); };
  const auto larger = [&](const Entry& a, const Entry& b) { return triple(a) > triple(b); };
  const std::size_t shown = std::min(entries.size(), kDetailStacks);
  if (entries.size() > shown) {
    // Only the candidates: the first `shown`, and every stack tied with the last of them.
    std::nth_element(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(shown - 1), entries.end(), larger);
    const auto last = triple(entries[shown - 1]);
    const auto end = std::partition(entries.begin(), entries.end(), [&](const Entry& e) { return triple(e) >= last; });
    entries.erase(end, entries.end());
  }
  std::sort(entries.begin(), entries.end(), larger);
  const KeyOrder order(tables, std::vector<GroupBy>{GroupBy::kStack});
  for (std::size_t begin = 0; begin < shown;) {
    std::size_t end = begin + 1;
    while (end < entries.size() && triple(entries[end]) == triple(entries[begin])) ++end;
    if (end - begin > 1) {
      std::vector<std::uint64_t> stacks;
      for (std::size_t i = begin; i < end; ++i) stacks.push_back(entries[i].stack);
      const std::vector<std::uint32_t> ranks = order.rank(stacks);
      for (std::size_t i = begin; i < end; ++i) entries[i].rank = ranks[i - begin];
      std::sort(entries.begin() + static_cast<std::ptrdiff_t>(begin), entries.begin() + static_cast<std::ptrdiff_t>(end),
                [](const Entry& a, const Entry& b) { return std::pair(a.rank, a.stack) < std::pair(b.rank, b.stack); });
    }
    begin = end;
  }
  std::uint64_t listed_blocks = 0, listed_bytes = 0;
  for (std::size_t i = 0; i < shown; ++i) {
    const StackPart& part = parts[entries[i].part];
    DetailStack s;
    s.stack = StackId(entries[i].stack);
    s.frames = render_key_value(tables, GroupBy::kStack, entries[i].stack, order.frame_texts()).frames;
    std::vector<FrameId> culled;
    if (part.culled.valid()) tables.stack_frames(part.culled, culled);
    s.culled_frames = s.frames.size() - culled.size();
    s.measures = part.measures;
    s.bytes = part.bytes;
    listed_blocks += part.measures.blocks;
    listed_bytes += part.bytes;
    detail.stacks.push_back(std::move(s));
  }
  detail.other_stacks = parts.size() - shown;
  detail.other_blocks = detail.blocks - listed_blocks;
  detail.other_bytes = detail.bytes - listed_bytes;
}

}  // namespace

std::optional<RowDetail> describe_row(const TraceStore& store, const Query& query, StackFilters filters,
                                      const Result& result) {
  if (!query.detail || *query.detail < 1 || *query.detail > result.rows.size()) return std::nullopt;
  const Row& row = result.rows[*query.detail - 1];
  RowBlocks pass(store.tables(), query, std::move(filters), row, result.peak);
  store.replay(pass, query.window.end_ns.value_or(kNeverNs));
  RowBins bins = pass.take_bins();
  const TraceTables& tables = store.tables();

  RowDetail detail;
  detail.row = *query.detail;
  detail.key = row.key;
  // The buckets' blocks by stack (numbered as first met: a row may have a
  // million stacks, and a hash map of them cost more than the replay) and by size.
  std::vector<std::uint32_t> part_of_stack(tables.stack_count(), kNoPart);
  std::vector<StackPart> stacks;
  std::array<std::pair<std::uint64_t, std::uint64_t>, 65> sizes{};  // by bit width of the size: blocks, bytes
  const bool at_peak = query.block_set == BlockSet::kAtPeak;
  const bool impacting_mode = query.uses_impacting();
  for (const RowBucket& b : bins.buckets) {
    const Bucket& bucket = tables.bucket(b.bucket);
    for (std::size_t t = 0; t < b.blocks_by_type.size(); ++t) {
      const std::uint64_t n = b.blocks_by_type[t];
      if (n == 0) continue;
      const Measures m = block_measures(n, static_cast<Impacting>(t), bucket, at_peak, impacting_mode);
      const std::uint64_t bytes = bytes_times(n, bucket.size);
      detail.blocks += n;
      add_bytes(detail.bytes, bytes);
      std::uint32_t& at = part_of_stack.at(bucket.stack.value);
      if (at == kNoPart) {
        at = static_cast<std::uint32_t>(stacks.size());
        StackPart part;
        part.stack = bucket.stack;
        part.culled = pass.culled(bucket.stack);
        stacks.push_back(part);
      }
      stacks[at].measures.add(m);
      stacks[at].bytes += bytes;
      auto& by_size = sizes[static_cast<std::size_t>(std::bit_width(bucket.size))];
      by_size.first += n;
      by_size.second += bytes;
    }
  }
  list_stacks(detail, tables, query.sort, stacks);
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const auto [blocks, bytes] = sizes[k];
    if (blocks == 0) continue;
    // Bit width k: sizes [2^(k-1), 2^k); 0 bytes alone in [0, 1).
    const std::optional<std::uint64_t> to = k < 64 ? std::optional<std::uint64_t>(std::uint64_t{1} << k) : std::nullopt;
    detail.sizes.push_back(DetailBin{k == 0 ? 0 : std::uint64_t{1} << (k - 1), to, blocks, bytes});
  }
  for (std::size_t k = 0; k < kLifetimeBins; ++k) {
    const auto [blocks, bytes] = bins.lifetimes[k];
    if (blocks == 0) continue;
    const std::uint64_t from = k == 0 ? 0 : lifetime_bound_ns(k - 1);
    const std::optional<std::uint64_t> to =
        k + 1 < kLifetimeBins ? std::optional<std::uint64_t>(lifetime_bound_ns(k)) : std::nullopt;
    detail.lifetimes.push_back(DetailBin{from, to, blocks, bytes});
  }
  detail.not_freed_blocks = bins.not_freed_blocks;
  detail.not_freed_bytes = bins.not_freed_bytes;
  return detail;
}

std::string detail_beyond_rows(std::uint64_t row, std::size_t rows) {
  if (rows == 0) return fmt::format("--detail {}: the answer has no rows (it needs --by, without --totals)", row);
  return fmt::format("--detail {}: the answer has {} row{}", row, rows, rows == 1 ? "" : "s");
}

}  // namespace heapql
