// Each bucket's live blocks, most recent first: one pooled array, each
// bucket's blocks a linked list from its most recent one, freed slots
// reused. A block may also end out of its bucket's order (exact identity
// told as bucket LIFO plus exceptions, docs/heaptrack.md): it is marked
// ended by its id and dropped when it reaches its bucket's top.
// `Entry` is what is kept of a block: a LiveBlock, or (where only the order
// matters) its id alone; it has an `id` member.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/error.h"
#include "engine/util/chunked_vector.h"
#include "engine/util/prefetch_hint.h"
#include "engine/store/events.h"

namespace heapql {

struct BlockOnly {
  BlockId id;
};

template <class Entry>
class BucketLifoLists {
 public:
  void push(BucketId bucket, const Entry& block) {
    const std::size_t b = bucket.index();
    if (top_.size() <= b) top_.resize(std::max<std::size_t>(b + 1, top_.size() * 2), kNone);
    std::uint32_t slot = free_slot_;
    if (slot == kNone) {
      if (pool_.size() >= kNone) throw Error("more than 2^32-1 blocks alive at once");
      slot = static_cast<std::uint32_t>(pool_.size());
      pool_.push_back(Pooled{});
    } else {
      free_slot_ = pool_[slot].next;
      // The free slots are chained through the pool, most recently freed
      // first; after a run of frees the next one's link is a random place
      // that the next push would wait for.
      if (free_slot_ != kNone) prefetch_hint(&pool_[free_slot_]);
    }
    pool_[slot] = Pooled{block, top_[b]};
    top_[b] = slot;
    if (track_ended_) {
      set_alive(block.id, true);
      ++live_;
    }
  }

  // Hints: the bucket is pushed to or popped soon. Its top first; then,
  // once that is in the cache, the block a pop reads.
  void prefetch_top(BucketId bucket) const {
    if (bucket.index() < top_.size()) prefetch_hint(&top_[bucket.index()]);
  }
  void prefetch_top_block(BucketId bucket) const {
    if (bucket.index() < top_.size() && top_[bucket.index()] != kNone) prefetch_hint(&pool_[top_[bucket.index()]]);
  }

  // The bucket's most recent block still alive, or nullptr. Blocks that
  // ended out of order are dropped on the way, each handed to `dropped`.
  template <class Dropped>
  const Entry* top(BucketId bucket, Dropped&& dropped) {
    if (bucket.index() >= top_.size()) return nullptr;
    std::uint32_t& top = top_[bucket.index()];
    while (top != kNone && track_ended_ && !alive(pool_[top].block.id)) {
      dropped(pool_[top].block);
      --ended_;
      release(top);
    }
    return top == kNone ? nullptr : &pool_[top].block;
  }
  const Entry* top(BucketId bucket) {
    return top(bucket, [](const Entry&) {});
  }

  // Removes the block top() returned.
  void pop(BucketId bucket) {
    std::uint32_t& top = top_[bucket.index()];
    if (track_ended_) {
      set_alive(pool_[top].block.id, false);
      --live_;
    }
    release(top);
  }

  // Out-of-order ends: only once track_out_of_order_ends() was called, before
  // the first push. `id` must be alive (alive_block says). When the lists
  // hold more than half as many ended blocks as live ones, every list is
  // compacted (the ended ones handed to `dropped`), so that they stay within
  // one and a half times the live blocks even where long-lived blocks sit on
  // top of many that end out of order; each compaction removes a third of
  // them, so its cost is spread over the ends that made it due.
  void track_out_of_order_ends() { track_ended_ = true; }
  bool alive_block(BlockId id) const { return track_ended_ && id.value / 64 < alive_.size() && alive(id); }
  template <class Dropped>
  void end_out_of_order(BlockId id, Dropped&& dropped) {
    set_alive(id, false);
    --live_;
    if (++ended_ * 2 > live_ + kCompactSlack) compact(dropped);
  }

  // The slots of every block still alive, in block id order (block() reads
  // one; valid until the next push or pop); the ones that ended out of order
  // go to `dropped` instead. Slots, not copies of the blocks: at a trace's
  // end a C++ program's leaks are millions of blocks.
  template <class Dropped>
  std::vector<std::uint32_t> alive_in_id_order(Dropped&& dropped) const {
    std::vector<std::uint32_t> slots;
    for (std::uint32_t top : top_) {
      for (std::uint32_t slot = top; slot != kNone; slot = pool_[slot].next) {
        const Entry& block = pool_[slot].block;
        if (!track_ended_ || alive(block.id)) {
          slots.push_back(slot);
        } else {
          dropped(block);
        }
      }
    }
    std::sort(slots.begin(), slots.end(),
              [&](std::uint32_t a, std::uint32_t b) { return pool_[a].block.id < pool_[b].block.id; });
    return slots;
  }
  const Entry& block(std::uint32_t slot) const { return pool_[slot].block; }

 private:
  struct Pooled {
    Entry block;
    std::uint32_t next;  // next older block of the bucket, or kNone
  };
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  static constexpr std::uint64_t kCompactSlack = 1024;

  template <class Dropped>
  void compact(Dropped& dropped) {
    for (std::uint32_t& top : top_) {
      for (std::uint32_t* link = &top; *link != kNone;) {
        if (alive(pool_[*link].block.id)) {
          link = &pool_[*link].next;
        } else {
          dropped(pool_[*link].block);
          release(*link);
        }
      }
    }
    ended_ = 0;
  }

  void release(std::uint32_t& top) {
    const std::uint32_t slot = top;
    top = pool_[slot].next;
    pool_[slot].next = free_slot_;
    free_slot_ = slot;
  }
  bool alive(BlockId id) const { return (alive_[id.value / 64] >> (id.value % 64)) & 1; }
  void set_alive(BlockId id, bool on) {
    const std::size_t word = id.value / 64;
    if (word >= alive_.size()) alive_.resize(std::max<std::size_t>(word + 1, alive_.size() * 2), 0);
    const std::uint64_t bit = std::uint64_t{1} << (id.value % 64);
    alive_[word] = on ? alive_[word] | bit : alive_[word] & ~bit;
  }

  // In chunks: the pool holds every live block (2.1 M at a clang++ compile's
  // peak), and a vector's doubling held up to three times that while it grew.
  ChunkedVector<Pooled> pool_;
  std::uint32_t free_slot_ = kNone;  // chained through Pooled::next
  std::vector<std::uint32_t> top_;   // per bucket: its most recent block's slot
  bool track_ended_ = false;
  std::vector<std::uint64_t> alive_;  // a bit per block id, with out-of-order ends tracked
  std::uint64_t live_ = 0, ended_ = 0;  // blocks in the lists, with out-of-order ends tracked
};

}  // namespace heapql
