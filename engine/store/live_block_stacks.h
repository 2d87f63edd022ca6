// Each bucket's live blocks, youngest on top: how a store of events
// (store_events.h) pairs a free with its block, the bucket's youngest live
// one. Nodes in one pool, those freed reused; memory per live block.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/error.h"
#include "engine/util/prefetch_hint.h"

namespace heapql {

class LiveBlockStacks {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct Node {
    std::uint32_t id, below, alloc_seq;
  };

  explicit LiveBlockStacks(std::size_t buckets) : top_(buckets, kNone) {}

  void push(std::uint32_t bucket, std::uint32_t id, std::uint32_t alloc_seq) {
    std::uint32_t n;
    if (spare_.empty()) {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back({});
    } else {
      n = spare_.back();
      spare_.pop_back();
    }
    nodes_[n] = {id, top_[bucket], alloc_seq};
    top_[bucket] = n;
  }
  // The bucket's youngest live block, taken off; Error when it has none.
  Node pop(std::uint32_t bucket) {
    const std::uint32_t n = top_[bucket];
    if (n == kNone) throw Error("store is inconsistent: a free of a bucket with no live block");
    top_[bucket] = nodes_[n].below;
    spare_.push_back(n);
    return nodes_[n];
  }
  // The bucket's youngest live block's id, or kNone.
  std::uint32_t youngest(std::uint32_t bucket) const {
    return top_[bucket] == kNone ? kNone : nodes_[top_[bucket]].id;
  }
  // Hints, for an event a few ahead: its bucket's top, then the node a free will take.
  void prefetch_top(std::uint32_t bucket) const { prefetch_hint(&top_[bucket]); }
  void prefetch_youngest(std::uint32_t bucket) const {
    if (top_[bucket] != kNone) prefetch_hint(&nodes_[top_[bucket]]);
  }
  // f(bucket, node) for every live block, bucket by bucket, youngest first.
  template <class F>
  void each_alive(F&& f) const {
    for (std::uint32_t b = 0; b < top_.size(); ++b) {
      for (std::uint32_t n = top_[b]; n != kNone; n = nodes_[n].below) f(b, nodes_[n]);
    }
  }

 private:
  std::vector<std::uint32_t> top_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> spare_;
};

}  // namespace heapql
