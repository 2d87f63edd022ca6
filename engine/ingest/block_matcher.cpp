#include "engine/ingest/block_matcher.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/error.h"

namespace heapql {

BlockMatcher::BlockMatcher(BlockIdentity identity, EventConsumer& consumer)
    : BlockMatcher(identity == BlockIdentity::kExact ? FreePairing::kByAddress : FreePairing::kBucketLifo, consumer) {}

BlockMatcher::BlockMatcher(FreePairing pairing, EventConsumer& consumer)
    : pairing_(pairing),
      consumer_(consumer),
      counting_(pairing != FreePairing::kByAddress && !consumer.needs_blocks()) {
  if (pairing == FreePairing::kBucketLifoWithExceptions) lists_.track_out_of_order_ends();
}

void BlockMatcher::report_out_of_order_ends(OutOfOrderEnds& ends) {
  out_of_order_ends_ = &ends;
  order_.track_out_of_order_ends();
}

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
  if (pairing_ != FreePairing::kByAddress) {
    const LiveBlock block = start_block(bucket, thread);
    lists_.push(bucket, block);
    return;
  }
  auto [slot, added] = live_by_address_.find_or_add(address_key);
  if (!added) {
    // The earlier block's free was lost: it ends here (semantics.md §1).
    ++anomalies_.alloc_over_live;
    note_end(*slot, false, thread);
    end_block(*slot, thread);
  }
  *slot = start_block(bucket, thread);
  if (out_of_order_ends_ != nullptr) order_.push(bucket, BlockOnly{slot->id});
}

void BlockMatcher::note_end(const LiveBlock& block, bool is_free, std::uint32_t thread) {
  if (out_of_order_ends_ == nullptr) return;
  // An end by allocation is no free of the interpreted file: it is always
  // told, whichever block of its bucket it is.
  const BlockOnly* top = order_.top(block.bucket);
  if (top != nullptr && top->id == block.id) {
    order_.pop(block.bucket);
    if (is_free) return;
  } else {
    order_.end_out_of_order(block.id, [](const BlockOnly&) {});
  }
  out_of_order_ends_->on_out_of_order_end(block, next_seq_, now_ns_, is_free, last_seq_[thread] == block.alloc_seq);
}

bool BlockMatcher::end_out_of_order(const LiveBlock& block, bool temporary, std::uint32_t thread) {
  if (counting_) {
    if (!consumer_.on_bucket_free_allocated_at(block.bucket, now_ns_, block.alloc_ns, temporary)) return false;
    last_alloc_bucket_[thread] = kNoAllocation;
    ++next_seq_;
    --live_count_;
    return true;
  }
  if (block.id.value >= next_block_ || block.alloc_seq >= next_seq_ || block.alloc_ns > now_ns_ ||
      !lists_.alive_block(block.id)) {
    return false;
  }
  claims_balance_ += claim_hash(block);
  ++claims_open_;
  lists_.end_out_of_order(block.id, [&](const LiveBlock& ended) { check_claimed(ended); });
  end_block(block, thread);
  return true;
}

std::uint64_t BlockMatcher::claim_hash(const LiveBlock& block) {
  // splitmix64 of the fields, so that no two plausible blocks cancel out.
  auto mix = [](std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  };
  return mix(mix(mix(std::uint64_t{block.id.value} << 32 | block.bucket.value) ^ block.alloc_seq) ^
             static_cast<std::uint64_t>(block.alloc_ns));
}

void BlockMatcher::check_claimed(const LiveBlock& block) {
  claims_balance_ -= claim_hash(block);
  --claims_open_;
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
  recently_freed_.add(address_key);
  note_end(block, true, thread);
  end_block(block, thread);
}

bool BlockMatcher::count_unmatched_free(std::uint64_t address_key) {
  if (live_by_address_.find(address_key) == nullptr && recently_freed_.contains(address_key)) {
    ++anomalies_.double_frees;
    return true;
  }
  ++anomalies_.unmatched_frees;
  return false;
}

bool BlockMatcher::free_bucket_block(BucketId bucket, std::uint32_t thread) {
  const LiveBlock* top = lists_.top(bucket, [&](const LiveBlock& ended) { check_claimed(ended); });
  if (top == nullptr) return false;
  const LiveBlock block = *top;
  lists_.pop(bucket);
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
  if (pairing_ == FreePairing::kByAddress) {
    std::vector<LiveBlock> alive;
    alive.reserve(live_count_);
    live_by_address_.for_each([&](const LiveBlock& block) { alive.push_back(block); });
    std::sort(alive.begin(), alive.end(), [](const LiveBlock& a, const LiveBlock& b) { return a.id < b.id; });
    for (const LiveBlock& block : alive) consumer_.on_still_alive(block);
  } else {
    const std::vector<std::uint32_t> alive =
        lists_.alive_in_id_order([&](const LiveBlock& ended) { check_claimed(ended); });
    if (claims_open_ != 0 || claims_balance_ != 0) {
      throw Error(SourceLocation::of_file(exceptions_file_),
                  "disagrees with the trace: a block it ends out of order is not alive in that bucket, or not "
                  "allocated as it says");
    }
    for (const std::uint32_t slot : alive) consumer_.on_still_alive(lists_.block(slot));
  }
  consumer_.on_finish(now_ns_);
}

}  // namespace heapql
