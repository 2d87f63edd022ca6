#include "engine/store/block_matcher.h"

#include <algorithm>

#include "engine/error.h"

namespace heapql {

namespace {
constexpr std::uint64_t kNoEvent = ~std::uint64_t{0};
}

BlockMatcher::BlockMatcher(BlockIdentity identity, EventConsumer& consumer)
    : identity_(identity), consumer_(consumer) {}

std::uint64_t& BlockMatcher::last_seq_of(std::uint32_t thread) {
  for (auto& [t, seq] : last_seq_by_thread_) {
    if (t == thread) return seq;
  }
  return last_seq_by_thread_.emplace_back(thread, kNoEvent).second;
}

LiveBlock BlockMatcher::start_block(BucketId bucket, std::uint32_t thread) {
  if (next_block_ == BlockId::kInvalidValue) throw Error("trace has more than 2^32-1 blocks");
  LiveBlock block{BlockId(next_block_++), bucket, next_seq_++, now_ns_};
  last_seq_of(thread) = block.alloc_seq;
  ++live_count_;
  consumer_.on_alloc(block);
  return block;
}

void BlockMatcher::end_block(const LiveBlock& block, std::uint32_t thread) {
  std::uint64_t& last = last_seq_of(thread);
  const bool temporary = last == block.alloc_seq;
  const std::uint64_t seq = next_seq_++;
  last = seq;
  --live_count_;
  consumer_.on_free(block, seq, now_ns_, temporary);
}

void BlockMatcher::alloc(BucketId bucket, std::uint64_t address_key, std::uint32_t thread) {
  if (identity_ == BlockIdentity::kBucketLifo) {
    if (live_by_bucket_.size() <= bucket.index()) live_by_bucket_.resize(bucket.index() + 1);
    live_by_bucket_[bucket.index()].push_back(start_block(bucket, thread));
    return;
  }
  auto [it, inserted] = live_by_address_.try_emplace(address_key);
  if (!inserted) {
    // The earlier block's free was lost: it ends here (semantics.md §1).
    ++anomalies_.alloc_over_live;
    end_block(it->second, thread);
  }
  it->second = start_block(bucket, thread);
}

bool BlockMatcher::free_address(std::uint64_t address_key, std::uint32_t thread) {
  auto it = live_by_address_.find(address_key);
  if (it == live_by_address_.end()) {
    ++anomalies_.unmatched_frees;
    return false;
  }
  const LiveBlock block = it->second;
  live_by_address_.erase(it);
  end_block(block, thread);
  return true;
}

bool BlockMatcher::free_bucket(BucketId bucket, std::uint32_t thread) {
  if (bucket.index() >= live_by_bucket_.size() || live_by_bucket_[bucket.index()].empty()) return false;
  std::vector<LiveBlock>& live = live_by_bucket_[bucket.index()];
  const LiveBlock block = live.back();
  live.pop_back();
  end_block(block, thread);
  return true;
}

const LiveBlock* BlockMatcher::live_at(std::uint64_t address_key) const {
  auto it = live_by_address_.find(address_key);
  return it == live_by_address_.end() ? nullptr : &it->second;
}

void BlockMatcher::finish() {
  std::vector<LiveBlock> alive;
  alive.reserve(live_count_);
  for (const auto& [key, block] : live_by_address_) alive.push_back(block);
  for (const auto& bucket : live_by_bucket_) alive.insert(alive.end(), bucket.begin(), bucket.end());
  std::sort(alive.begin(), alive.end(), [](const LiveBlock& a, const LiveBlock& b) { return a.id < b.id; });
  for (const LiveBlock& block : alive) consumer_.on_still_alive(block);
  consumer_.on_finish(now_ns_);
}

}  // namespace heapql
