// Turns a reader's allocation and free records into block lifetimes: assigns
// block ids and event sequence numbers, pairs each free with its block
// (exactly, by address, or by bucket LIFO where the source has no addresses),
// decides "temporary" (semantics.md §8) and counts anomalies (§1).
// Holds state only for blocks that are alive now.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/ids.h"
#include "engine/store/source_info.h"
#include "engine/util/recently_freed.h"
#include "engine/ingest/bucket_lifo_lists.h"
#include "engine/store/events.h"
#include "engine/ingest/live_block_map.h"

namespace heapql {

// How a free finds its block: by address (exact); by bucket LIFO, the most
// recent live block of the free's bucket; or by bucket LIFO except where a
// block-identity file says a block ends out of that order (exact as well:
// the file was written from an exact reading, docs/heaptrack.md).
enum class FreePairing { kByAddress, kBucketLifo, kBucketLifoWithExceptions };

// Told, during an exact reading by address, of every block freed while it
// is not the most recent live block of its bucket, and of every block ended
// by an allocation over its address (semantics.md §1; `is_free` false): what
// a block-identity file keeps. `seq` is the end's own event number.
class OutOfOrderEnds {
 public:
  virtual ~OutOfOrderEnds() = default;
  // `temporary`: the thread's previous event allocated the block (only an
  // end by allocation can be, a free out of order never is).
  virtual void on_out_of_order_end(const LiveBlock& block, std::uint64_t seq, std::int64_t ns, bool is_free,
                                   bool temporary) = 0;
};

// One value per thread. Threads are few and one dominates, so a flat list
// with the first entry checked first beats a map.
template <class T>
class PerThread {
 public:
  explicit PerThread(T initial) : initial_(initial) {}
  T& operator[](std::uint32_t thread) {
    if (!values_.empty() && values_.front().first == thread) [[likely]] return values_.front().second;
    return find_or_add(thread);
  }

 private:
  [[gnu::noinline]] T& find_or_add(std::uint32_t thread) {
    for (auto& [t, value] : values_) {
      if (t == thread) return value;
    }
    return values_.emplace_back(thread, initial_).second;
  }

  T initial_;
  std::vector<std::pair<std::uint32_t, T>> values_;
};

class BlockMatcher {
 public:
  BlockMatcher(BlockIdentity identity, EventConsumer& consumer);
  BlockMatcher(FreePairing pairing, EventConsumer& consumer);

  BlockIdentity identity() const {
    return pairing_ == FreePairing::kBucketLifo ? BlockIdentity::kBucketLifo : BlockIdentity::kExact;
  }
  FreePairing pairing() const { return pairing_; }

  // kByAddress: tells `ends` of the blocks that end out of their bucket's
  // LIFO order (before the first event).
  void report_out_of_order_ends(OutOfOrderEnds& ends);
  // kBucketLifoWithExceptions: ends `block` (its id, bucket and allocation
  // as the identity file says) out of its bucket's order, as the event
  // numbered event_count(). False when that cannot be: no such block is
  // alive (counting: none allocated at that time is alive in its bucket).
  // With blocks kept, whether the file told each block's allocation truly
  // is settled by finish() (an Error naming `exceptions_file` otherwise).
  // `temporary` as OutOfOrderEnds was told (counting needs it; blocks kept
  // tell it themselves).
  bool end_out_of_order(const LiveBlock& block, bool temporary, std::uint32_t thread = 0);
  void set_exceptions_file(std::string name) { exceptions_file_ = std::move(name); }

  // The time of the events that follow, in ns since the trace start.
  void set_time(std::int64_t ns) { now_ns_ = ns; }
  std::int64_t time() const { return now_ns_; }

  // kExact: `address_key` identifies the block among live blocks (address plus
  // whatever scopes it, e.g. the heap). An allocation over a live key ends the
  // earlier block (an anomaly). kBucketLifo: address_key is ignored.
  void alloc(BucketId bucket, std::uint64_t address_key, std::uint32_t thread = 0) {
    if (counting_) [[likely]] return count_alloc(bucket, thread);
    alloc_block(bucket, address_key, thread);
  }

  // kExact: false when no block lives at the key (counted as a double free
  // or an unmatched free, as count_unmatched_free does).
  bool free_address(std::uint64_t address_key, std::uint32_t thread = 0);
  // kExact: free_address in two steps, for a reader that checks the block
  // before it ends: take_live removes the block alive at the key (false
  // when there is none; nothing is counted), end_taken then frees it.
  bool take_live(std::uint64_t address_key, LiveBlock& out) { return live_by_address_.take(address_key, out); }
  void end_taken(std::uint64_t address_key, const LiveBlock& block, std::uint32_t thread = 0);
  // kExact: counts a free that found no live block at the key: a double free
  // when the key's latest free is among the last kFreesRemembered frees of
  // live blocks, else an unmatched free (an address never seen, one whose
  // allocation the trace does not hold, or one freed longer ago than that:
  // docs/heaptrack.md). True for a double free.
  bool count_unmatched_free(std::uint64_t address_key);
  // How many of the latest frees are remembered to tell double frees apart:
  // a bound, so that memory grows with live blocks, not with the distinct
  // addresses a trace used. 64 Ki frees cost at most 1.5 MiB (8-byte keys, a
  // half-full index of 4-byte positions); docs/heaptrack.md has the choice.
  static constexpr std::uint32_t kFreesRemembered = 65536;
  // The keys remembered now (tests: at most kFreesRemembered).
  std::size_t freed_keys_remembered() const { return recently_freed_.size(); }
  std::size_t live_keys() const { return live_by_address_.size(); }
  // kBucketLifo: ends the most recently allocated live block of the bucket;
  // false when the bucket has none (the caller counts it: semantics.md §1).
  bool free_bucket(BucketId bucket, std::uint32_t thread = 0) {
    if (counting_) [[likely]] return count_free(bucket, thread);
    return free_bucket_block(bucket, thread);
  }
  // Hints for an event of `bucket` that comes soon, where they apply
  // (takes_hints: blocks kept): far ahead, its list's top and the
  // consumer's state; near, the block a free pops (its top read by then).
  // By address, the list is the order that tells out-of-order ends, kept
  // only while they are reported; the block is found by its address
  // (prefetch_address).
  bool takes_hints() const { return !counting_; }
  void prefetch_far(BucketId bucket) const {
    with_hinted_lists([&](const auto& lists) { lists.prefetch_top(bucket); });
    consumer_.prefetch_bucket(bucket);
  }
  void prefetch_near_free(BucketId bucket) const {
    with_hinted_lists([&](const auto& lists) { lists.prefetch_top_block(bucket); });
  }
  // kExact: an allocation or free at `address_key` comes soon.
  void prefetch_address(std::uint64_t address_key) const { live_by_address_.prefetch(address_key); }
  // Bucket-LIFO sources whose consumer counts (counting() is true) may pass
  // runs of events at the current time instead (EventConsumer::on_bucket_run:
  // bucket << 1, | 1 for a free). Returns how many were applied; the event
  // after them is a free whose bucket had no live block.
  bool counting() const { return counting_; }
  // Counting: the bucket the thread's latest event allocated in, or
  // EventConsumer::kNoAllocation when that event was no allocation.
  std::uint32_t last_alloc_bucket(std::uint32_t thread = 0) { return last_alloc_bucket_[thread]; }
  std::size_t bucket_run(std::span<const std::uint32_t> events, std::uint32_t thread = 0) {
    const std::size_t applied = consumer_.on_bucket_run(events, now_ns_, last_alloc_bucket_[thread]);
    const std::uint64_t frees = count_frees(events.first(applied));
    next_seq_ += applied;
    next_block_ += applied - frees;
    live_count_ = live_count_ + (applied - frees) - frees;
    return applied;
  }
  // kExact: the bucket of the block alive at the key, if any.
  const LiveBlock* live_at(std::uint64_t address_key) const;

  // Emits on_still_alive for every live block (allocation order) and on_finish.
  void finish();

  const Anomalies& anomalies() const { return anomalies_; }
  Anomalies& anomalies() { return anomalies_; }
  std::uint64_t block_count() const { return next_block_; }
  std::uint64_t event_count() const { return next_seq_; }
  std::uint64_t live_count() const { return live_count_; }

 private:
  // Calls f with the bucket lists that events of a bucket walk: the live
  // blocks' (bucket LIFO), or the order that tells out-of-order ends (by
  // address, while they are reported); none otherwise.
  template <class F>
  void with_hinted_lists(F&& f) const {
    if (pairing_ != FreePairing::kByAddress) {
      f(lists_);
    } else if (out_of_order_ends_ != nullptr) {
      f(order_);
    }
  }
  // The frees among run words (bit 0), two words to an add.
  static std::uint64_t count_frees(std::span<const std::uint32_t> events) {
    std::uint64_t pairs = 0;  // low half: even words' frees, high half: odd words'
    std::size_t i = 0;
    for (; i + 2 <= events.size(); i += 2) {
      std::uint64_t two;
      std::memcpy(&two, &events[i], sizeof two);
      pairs += two & 0x0000000100000001u;
    }
    std::uint64_t frees = (pairs & 0xFFFFFFFFu) + (pairs >> 32);
    if (i < events.size()) frees += events[i] & 1;
    return frees;
  }
  void end_block(const LiveBlock& block, std::uint32_t thread);
  LiveBlock start_block(BucketId bucket, std::uint32_t thread);

  void alloc_block(BucketId bucket, std::uint64_t address_key, std::uint32_t thread);
  bool free_bucket_block(BucketId bucket, std::uint32_t thread);
  // kByAddress, reporting out-of-order ends: `block` is about to end.
  void note_end(const LiveBlock& block, bool is_free, std::uint32_t thread);
  // A block that ended out of order leaves its bucket's list: it must be
  // the one the identity file claimed (checked at finish()).
  void check_claimed(const LiveBlock& block);
  static std::uint64_t claim_hash(const LiveBlock& block);

  // The LIFO block of a bucket is its most recent allocation, so its free is
  // "temporary" exactly when the thread's previous event allocated in that
  // bucket. Inline: a one-shot query on a heaptrack file spends most of its
  // events here.
  void count_alloc(BucketId bucket, std::uint32_t thread) {
    ++next_seq_;
    ++next_block_;
    ++live_count_;
    last_alloc_bucket_[thread] = bucket.value;
    consumer_.on_bucket_alloc(bucket, now_ns_);
  }
  bool count_free(BucketId bucket, std::uint32_t thread) {
    std::uint32_t& last = last_alloc_bucket_[thread];
    const bool temporary = last == bucket.value;
    if (!consumer_.on_bucket_free(bucket, now_ns_, temporary)) return false;  // it had no live block
    last = kNoAllocation;
    ++next_seq_;
    --live_count_;
    return true;
  }

  FreePairing pairing_;
  EventConsumer& consumer_;
  bool counting_;
  // Counting (the consumer keeps the live counts): per thread, the bucket of
  // the latest event if it was an allocation (for "temporary").
  static constexpr std::uint32_t kNoAllocation = EventConsumer::kNoAllocation;
  PerThread<std::uint32_t> last_alloc_bucket_{kNoAllocation};
  std::int64_t now_ns_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t next_block_ = 0;
  std::uint64_t live_count_ = 0;
  Anomalies anomalies_;
  // kExact: by key, the live blocks; and the keys of the latest frees, so
  // that a second free of one is told apart (semantics.md §1).
  LiveBlockMap live_by_address_;
  RecentlyFreed<std::uint64_t, std::hash<std::uint64_t>> recently_freed_{kFreesRemembered};
  // Bucket-LIFO pairings: each bucket's live blocks, most recent first.
  BucketLifoLists<LiveBlock> lists_;
  // A reading by address that reports out-of-order ends: the same order, of
  // ids alone.
  BucketLifoLists<BlockOnly> order_;
  OutOfOrderEnds* out_of_order_ends_ = nullptr;
  // With exceptions, blocks kept: the blocks that ended out of order as the
  // identity file told them, against the same blocks as they leave their
  // buckets' lists: a sum of each one's hash, added for a claim and taken
  // for the block itself, which is 0 at the end when every claim held.
  std::uint64_t claims_balance_ = 0;
  std::uint64_t claims_open_ = 0;
  std::string exceptions_file_;
  // seq of the latest event per thread, to decide "temporary"; threads are
  // few, so a flat list beats a map.
  PerThread<std::uint64_t> last_seq_{~std::uint64_t{0}};
};

}  // namespace heapql
