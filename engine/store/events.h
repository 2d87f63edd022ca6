// The event stream between a block source (a reader's block matcher, or the
// store replaying itself) and whoever consumes blocks (the store builder, the
// aggregator). One interface, so a one-shot query straight off a reader and a
// query replayed from the store see exactly the same events in the same order.
#pragma once

#include <cstdint>
#include <limits>
#include <span>

#include "engine/ids.h"

namespace heapql {

constexpr std::int64_t kNeverNs = std::numeric_limits<std::int64_t>::max();

// A block while it lives. `seq` counts allocation and free events together, in
// trace order, from 0.
struct LiveBlock {
  BlockId id;
  BucketId bucket;
  std::uint64_t alloc_seq = 0;
  std::int64_t alloc_ns = 0;
};

// The events before some time, as counts per bucket (indexed by bucket id):
// the blocks alive then.
struct SkippedEvents {
  std::span<const std::uint32_t> live;
  // How those blocks end later: by on_free, each with its allocation time
  // (false), or by bucket runs (on_bucket_run), a bucket's youngest first
  // (true: a source that holds the trace as its events, store_events.h).
  bool ended_by_bucket_runs = false;
};

class EventConsumer {
 public:
  virtual ~EventConsumer() = default;
  // Called in seq order.
  virtual void on_alloc(const LiveBlock& block) = 0;
  virtual void on_free(const LiveBlock& block, std::uint64_t free_seq, std::int64_t free_ns, bool temporary) = 0;
  // After the last event: once for every block still alive, in allocation
  // order (those allocated from still_alive_wanted_from_ns on, at least), then on_finish.
  virtual void on_still_alive(const LiveBlock& block) = 0;
  // The blocks still alive at the end that were allocated before this time
  // count in nothing this consumer keeps (a window's query that counts no
  // block allocated before its window and outstanding at its end): a
  // source may leave them out of on_still_alive. 0: every block.
  virtual std::int64_t still_alive_wanted_from_ns() const { return 0; }
  // end_ns: the trace's last timestamp.
  virtual void on_finish(std::int64_t end_ns) = 0;
  // The trace's clock has reached `ns` between events (heaptrack's `c`
  // records, every 10 ms of a recording). A consumer that follows a
  // recording as it is made (the live journal) publishes on it while the
  // program allocates nothing; the others need not look.
  virtual void on_clock(std::int64_t /*ns*/) {}
  // A hint: an event of `bucket` comes soon. A consumer that keeps state per
  // bucket fetches it now (a read keeps every live block, and its events
  // pick buckets at random).
  virtual void prefetch_bucket(BucketId /*bucket*/) const {}

  // A consumer to which the events before some time change nothing but which
  // blocks are alive (a query whose window starts then) says so here; a
  // source that holds every block (the store) may then deliver those events
  // at once through on_skipped_events instead of one by one. 0: none.
  virtual std::int64_t skippable_before_ns() const { return 0; }
  virtual void on_skipped_events(const SkippedEvents& /*skipped*/) {}

  // Bucket-LIFO sources pair a free with the most recent live block of its
  // bucket, so a consumer that needs no per-block record can follow the
  // stream as bucket events alone: memory per bucket, not per live block.
  // A consumer that returns false here receives on_bucket_alloc and
  // on_bucket_free instead of on_alloc, on_free and on_still_alive. It keeps
  // the live count of every bucket, so on_bucket_free says whether the bucket
  // had a live block to free (false: the source is inconsistent).
  virtual bool needs_blocks() const { return true; }
  virtual void on_bucket_alloc(BucketId /*bucket*/, std::int64_t /*ns*/) {}
  virtual bool on_bucket_free(BucketId /*bucket*/, std::int64_t /*ns*/, bool /*temporary*/) { return false; }
  // The end of a block that may not be its bucket's most recent one, told
  // by its allocation time (exact identity told as bucket LIFO plus
  // exceptions): false when the bucket has no live block allocated then.
  virtual bool on_bucket_free_allocated_at(BucketId /*bucket*/, std::int64_t /*ns*/, std::int64_t /*alloc_ns*/,
                                           bool /*temporary*/) {
    return false;
  }

  // Whether this consumer's bucket counts never look at a freed block's
  // allocation time (every block counts alike, as in a whole-trace query):
  // a free out of its bucket's LIFO order then differs only in not being
  // temporary.
  virtual bool frees_ignore_allocation_time() const { return false; }

  // Bucket events of one thread that share a timestamp, in order: each word
  // is a bucket id << 1, | 1 for a free. A free is temporary when the
  // thread's previous event allocated in the same bucket: `last_alloc` holds
  // that bucket (kNoAllocation when the previous event was no allocation)
  // and is kept up to date. Returns how many events were applied: all of
  // them, or up to the first free whose bucket had no live block (that one
  // is not applied). One call per run, not per event, so that a consumer can
  // look ahead (prefetch) and skip a virtual call per event.
  static constexpr std::uint32_t kNoAllocation = 0xFFFFFFFFu;
  virtual std::size_t on_bucket_run(std::span<const std::uint32_t> events, std::int64_t ns, std::uint32_t& last_alloc) {
    for (std::size_t i = 0; i < events.size(); ++i) {
      const BucketId bucket(events[i] >> 1);
      if (events[i] & 1) {
        if (!on_bucket_free(bucket, ns, last_alloc == bucket.value)) return i;
        last_alloc = kNoAllocation;
      } else {
        last_alloc = bucket.value;
        on_bucket_alloc(bucket, ns);
      }
    }
    return events.size();
  }
};

// Counted irregularities (semantics.md §1): never a crash, always reported.
struct Anomalies {
  std::uint64_t unmatched_frees = 0;   // a free of an address with no live block and never freed before
  std::uint64_t double_frees = 0;      // exact identity: a second free of an address freed and not reallocated
  std::uint64_t alloc_over_live = 0;   // an allocation at a still-live address: the earlier block ends there
  std::uint64_t decreasing_timestamps = 0;  // a clock line earlier than the previous one (kept at the previous)
  std::uint64_t skipped_records = 0;   // record types the format says to skip
  std::uint64_t total() const {
    return unmatched_frees + double_frees + alloc_over_live + decreasing_timestamps + skipped_records;
  }
};

}  // namespace heapql
