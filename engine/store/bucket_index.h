// Finds a bucket by content, for interning buckets.
//
// Most stacks have one bucket (the walk bench trace: 1.9 M buckets of 1.7 M
// stacks), made just after the stack itself (heaptrack's `a` record follows
// its trace's `t` records). So the first bucket of each stack is kept in a
// column by stack id, whose recent end stays in cache, and only the others
// go in the hash index: a tenth of the inserts into tens of megabytes of
// slots, and of the hashing.
#pragma once

#include <cstdint>

#include "engine/ids.h"
#include "engine/store/chunked_vector.h"
#include "engine/store/flat_index.h"

namespace heapql {

class BucketIndex {
 public:
  // The bucket equal to `bucket` among `buckets` (all of which were added),
  // or an invalid id. `Buckets` indexes Buckets by id; `hash_of(bucket)`
  // hashes one.
  template <class Buckets, class Key, class HashOf>
  BucketId find(const Buckets& buckets, const Key& bucket, HashOf&& hash_of) const {
    if (bucket.stack.valid()) {
      const std::uint32_t first = first_of_stack(bucket.stack);
      if (first == kNone) return BucketId();  // the stack has no bucket yet
      if (buckets[first] == bucket) return BucketId(first);
    }
    const std::uint32_t found = others_.find(hash_of(bucket), [&](std::uint32_t entry) {
      return buckets[entries_[entry]] == bucket;
    });
    return found == FlatIndex::kAbsent ? BucketId() : BucketId(entries_[found]);
  }

  // Adds bucket `id` of `buckets`; ids are added in order.
  template <class Buckets, class HashOf>
  void add(const Buckets& buckets, std::uint32_t id, HashOf&& hash_of) {
    const StackId stack = buckets[id].stack;
    if (stack.valid()) {
      if (first_of_stack_.size() <= stack.index()) first_of_stack_.grow_to(stack.index() + std::size_t{1}, kNone);
      std::uint32_t& first = first_of_stack_[stack.index()];
      if (first == kNone) {
        first = id;
        return;
      }
    }
    const auto entry = static_cast<std::uint32_t>(entries_.size());
    entries_.push_back(id);
    others_.insert(hash_of(buckets[id]), entry,
                   [&](std::uint32_t stored) { return hash_of(buckets[entries_[stored]]); });
  }

  // A hint: find() of a bucket of `stack` comes soon.
  void prefetch(StackId stack) const {
    if (stack.index() < first_of_stack_.size()) __builtin_prefetch(&first_of_stack_[stack.index()]);
  }

  std::size_t memory_bytes() const {
    return first_of_stack_.memory_bytes() + others_.memory_bytes() + entries_.memory_bytes();
  }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  std::uint32_t first_of_stack(StackId stack) const {
    return stack.index() < first_of_stack_.size() ? first_of_stack_[stack.index()] : kNone;
  }

  ChunkedVector<std::uint32_t> first_of_stack_;  // by stack id: its first bucket, or kNone
  FlatIndex others_;                              // the other buckets' entries, by hash
  ChunkedVector<std::uint32_t> entries_;          // the bucket id of each entry
};

}  // namespace heapql
