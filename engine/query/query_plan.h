// What a query decides before its first event (semantics.md §2-§8): its
// window, the layout of its bucket states, its compiled frame patterns, and
// the one rule of which blocks count. The rule has two stages: a bucket's
// own filters (size, kind, thread, process, heap, frame patterns), decided
// once per bucket, then a block's (impacting type, temporariness,
// lifetime), decided as the block ends. Every path that counts blocks asks
// here: block events, bucket events and their runs, the store's bucket sums.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "engine/query/query.h"
#include "engine/query/stack_plan.h"
#include "engine/store/events.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// Compiles the frame patterns of a query: cull, require, exclude and the
// suppressions (reads cull lists and suppression files). Throws Error for a
// bad pattern or file.
StackFilters compile_stack_filters(const Query& query);
// Adds the trace's own suppression lines (SourceInfo::embedded_suppressions)
// when the query asks for them.
void add_embedded_suppressions(StackFilters& filters, const Query& query, std::span<const std::string> embedded);

// Which state each bucket keeps (bucket_states.h): the least the query needs.
enum class BucketLayout : std::uint8_t { kWholeTrace, kOpenWindow, kFull, kPeak };

// Where a time falls: before T1, inside [T1, T2), or at or after T2.
enum class WindowPart : std::uint8_t { kBefore, kInside, kAfter };

// How blocks of one bucket end (freed, or alive at the trace's end), as the
// counts and the keep rule read it; n blocks at once when they end alike.
struct BlockEnd {
  bool alloc_in = false;  // allocated inside the window
  bool freed_in = false;  // freed before T2 (else outstanding at T2, or alive at the end)
  bool temporary = false;
  std::int64_t free_ns = kNeverNs;                      // kNeverNs: alive at the end, or not known (bucket sums)
  std::optional<std::int64_t> alloc_ns = std::nullopt;  // known from block events only
};

class QueryPlan {
 public:
  // Throws Error for a query that cannot mean anything (validate).
  QueryPlan(const TraceTables& tables, Query query, StackFilters filters);

  const Query& query() const { return query_; }
  const StackFilters& filters() const { return stack_plan_.filters(); }
  std::int64_t t1() const { return t1_; }
  std::int64_t t2() const { return t2_; }  // kNeverNs when open
  WindowPart window_part(std::int64_t ns) const {
    return ns < t1_ ? WindowPart::kBefore : ns < t2_ ? WindowPart::kInside : WindowPart::kAfter;
  }
  BucketLayout layout() const { return layout_; }
  // WPA's set of blocks and measures (§7).
  bool impacting_mode() const { return impacting_mode_; }
  // The impacting type is a level of the group key: 4 rows a key.
  bool impacting_level() const { return impacting_level_; }
  // Impacting types, temporary only or lifetimes: blocks are kept or not as they end.
  bool has_block_filters() const { return has_block_filters_; }
  // Lifetime filters need each block's own times (block events, not bucket events).
  bool needs_blocks() const { return needs_blocks_; }
  // The whole trace, with nothing that needs a block's own times (lifetimes,
  // a series): what the bucket sums can answer.
  bool of_whole_trace_without_times() const;
  // The series' first bucket width; 0: no series.
  std::int64_t first_series_bucket_ns() const { return first_series_bucket_ns_; }

  // Stage one, once per bucket: whether its blocks count at all (the
  // filters its bucket decides, the frame patterns on its full stack).
  bool counts_bucket(const Bucket& bucket);
  // Whether counts_bucket is true of every bucket: no size, kind, thread,
  // process or heap filter, and no require, exclude or suppression pattern.
  bool counts_every_bucket() const;
  StackId culled(StackId full_stack) { return stack_plan_.culled(full_stack); }

  // Whether a block allocated before T1 and outstanding at T2 (§7's AOFO)
  // may count: the impacting mode with that type asked for, and not only
  // temporary blocks (a lifetime range is told per block: it may).
  bool may_count_outstanding_from_before() const {
    return impacting_mode_ && counts_block(Impacting::kAofo, BlockEnd{});
  }

  // Stage two, for blocks of a counted bucket as they end: of an impacting
  // type asked for, temporary when only those count, and of a lifetime in
  // the range asked (§4: an outstanding block lives until T2, for ever in an
  // open window). A lifetime is known from block events only; the paths
  // without them (bucket events, sums) are taken only without lifetimes.
  // Inline: on the per-event path.
  bool counts_block(Impacting type, const BlockEnd& end) const {
    if (!has_block_filters_) return true;
    if (impacting_mask_ != 0 && (impacting_mask_ & (1u << static_cast<unsigned>(type))) == 0) return false;
    if (query_.temporary_only && !end.temporary) return false;
    if (!end.alloc_ns || !needs_blocks_) return true;
    const std::int64_t lifetime =
        end.freed_in ? end.free_ns - *end.alloc_ns : (t2_ == kNeverNs ? kNeverNs : t2_ - *end.alloc_ns);
    return (!query_.lifetime_min_ns || lifetime >= *query_.lifetime_min_ns) &&
           (!query_.lifetime_end_ns || lifetime < *query_.lifetime_end_ns);
  }

 private:
  const TraceTables& tables_;
  Query query_;
  std::int64_t t1_;
  std::int64_t t2_;
  std::uint32_t impacting_mask_ = 0;  // a bit per Impacting asked for; 0: all
  bool impacting_mode_;
  bool impacting_level_;
  bool has_block_filters_;
  bool needs_blocks_;
  BucketLayout layout_;
  std::int64_t first_series_bucket_ns_ = 0;
  StackPlan stack_plan_;
};

}  // namespace heapql
