#include "engine/store/block_matcher.h"

#include <algorithm>

#include "engine/error.h"

namespace heapql {

BlockMatcher::BlockMatcher(BlockIdentity identity, EventConsumer& consumer)
    : identity_(identity),
      consumer_(consumer),
      counting_(identity == BlockIdentity::kBucketLifo && !consumer.needs_blocks()) {}

LiveBlock BlockMatcher::start_block(BucketId bucket, std::uint32_t thread) {
  if (next_block_ == BlockId::kInvalidValue) throw Error("trace has more than 2^32-1 blocks");
  LiveBlock block{BlockId(static_cast<std::uint32_t>(next_block_++)), bucket, next_seq_++, now_ns_};
  last_seq_[thread] = block.alloc_seq;
  ++live_count_;
  consumer_.on_alloc(block);
  return block;
}

void BlockMatcher::end_block(const LiveBlock& block, std::uint32_t thread) {
  std::uint64_t& last = last_seq_[thread];
  const bool temporary = last == block.alloc_seq;
  const std::uint64_t seq = next_seq_++;
  last = seq;
  --live_count_;
  consumer_.on_free(block, seq, now_ns_, temporary);
}

void BlockMatcher::alloc_block(BucketId bucket, std::uint64_t address_key, std::uint32_t thread) {
  if (identity_ == BlockIdentity::kBucketLifo) {
    if (bucket_top_.size() <= bucket.index()) bucket_top_.resize(std::max<std::size_t>(bucket.index() + 1, bucket_top_.size() * 2), kNone);
    std::uint32_t slot = free_slot_;
    if (slot == kNone) {
      if (pool_.size() >= kNone) throw Error("more than 2^32-1 blocks alive at once");
      slot = static_cast<std::uint32_t>(pool_.size());
      pool_.emplace_back();
    } else {
      free_slot_ = pool_[slot].next;
    }
    std::uint32_t& top = bucket_top_[bucket.index()];
    pool_[slot] = PooledBlock{start_block(bucket, thread), top};
    top = slot;
    return;
  }
  auto [slot, added] = live_by_address_.find_or_add(address_key);
  if (!added) {
    // The earlier block's free was lost: it ends here (semantics.md §1).
    ++anomalies_.alloc_over_live;
    end_block(*slot, thread);
  }
  *slot = start_block(bucket, thread);
}

bool BlockMatcher::free_address(std::uint64_t address_key, std::uint32_t thread) {
  LiveBlock block;
  if (!take_live(address_key, block)) {
    count_unmatched_free(address_key);
    return false;
  }
  end_taken(address_key, block, thread);
  return true;
}

void BlockMatcher::end_taken(std::uint64_t address_key, const LiveBlock& block, std::uint32_t thread) {
  freed_addresses_.insert(address_key);
  end_block(block, thread);
}

void BlockMatcher::count_unmatched_free(std::uint64_t address_key) {
  if (live_by_address_.find(address_key) == nullptr && freed_addresses_.contains(address_key)) {
    ++anomalies_.double_frees;
  } else {
    ++anomalies_.unmatched_frees;
  }
}

bool BlockMatcher::free_bucket_block(BucketId bucket, std::uint32_t thread) {
  if (bucket.index() >= bucket_top_.size() || bucket_top_[bucket.index()] == kNone) return false;
  std::uint32_t& top = bucket_top_[bucket.index()];
  const std::uint32_t slot = top;
  const LiveBlock block = pool_[slot].block;
  top = pool_[slot].next;
  pool_[slot].next = free_slot_;
  free_slot_ = slot;
  end_block(block, thread);
  return true;
}

const LiveBlock* BlockMatcher::live_at(std::uint64_t address_key) const {
  return live_by_address_.find(address_key);
}

void BlockMatcher::finish() {
  if (counting_) {
    consumer_.on_finish(now_ns_);  // the consumer's own counters know what is still alive
    return;
  }
  std::vector<LiveBlock> alive;
  alive.reserve(live_count_);
  live_by_address_.for_each([&](const LiveBlock& block) { alive.push_back(block); });
  for (std::uint32_t top : bucket_top_) {
    for (std::uint32_t slot = top; slot != kNone; slot = pool_[slot].next) alive.push_back(pool_[slot].block);
  }
  std::sort(alive.begin(), alive.end(), [](const LiveBlock& a, const LiveBlock& b) { return a.id < b.id; });
  for (const LiveBlock& block : alive) consumer_.on_still_alive(block);
  consumer_.on_finish(now_ns_);
}

}  // namespace heapql
