// A set of 64-bit address keys, open addressing, 8 bytes a slot: the
// addresses a trace has freed, kept so that a second free of one is told
// apart from a free of an address never seen (semantics.md §1). A node-based
// map kept every freed address at about 60 bytes each; this keeps them at
// 8-16 and keeps the map of live blocks small. A matched free inserts once
// an event, and tens of megabytes of slots cost a cache miss a probe, so
// inserts are filtered and batched (insert); a lookup (only an unmatched free
// makes one) puts the batch in first, so it sees every insert before it.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/store/flat_index.h"
#include "engine/store/huge_page_allocator.h"

namespace heapql {

class AddressSet {
 public:
  bool contains(std::uint64_t key) {
    if (key == kEmpty) return has_empty_key_;
    flush();
    if (slots_.empty()) return false;
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      if (slots_[i] == key) return true;
      if (slots_[i] == kEmpty) return false;
    }
  }

  void insert(std::uint64_t key) {
    if (key == kEmpty) {
      has_empty_key_ = true;
      return;
    }
    // Allocators hand the same addresses out again and again, so most
    // inserts repeat a recent one: a small direct-mapped memory of recent
    // keys, which stays in the cache, answers those without a probe of the
    // table, whose slots are a cache miss each.
    if (recent_.empty()) recent_.assign(std::size_t{1} << kRecentBits, kEmpty);  // a set never used costs nothing
    std::uint64_t& recent = recent_[FlatIndex::mix(key) >> (64 - kRecentBits)];
    if (recent == key) return;
    recent = key;
    // The rest wait, and go into the table together (flush), where their
    // misses can overlap instead of each stalling the caller.
    pending_.push_back(key);
    if (pending_.size() == kPendingKeys) flush();
  }

  std::size_t size() {
    flush();
    return size_ + (has_empty_key_ ? 1 : 0);
  }
  std::size_t memory_bytes() const {
    return (slots_.capacity() + pending_.capacity() + recent_.capacity()) * sizeof(std::uint64_t);
  }

 private:
  static constexpr std::uint64_t kEmpty = 0;
  static constexpr int kRecentBits = 14;  // 128 KiB of recent keys
  static constexpr std::size_t kPendingKeys = 4096;
  static constexpr std::size_t kPrefetchDistance = 16;

  void flush() {
    while ((size_ + pending_.size()) * 10 > slots_.size() * 7) grow();
    const std::size_t n = pending_.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (i + kPrefetchDistance < n) __builtin_prefetch(&slots_[slot_of(pending_[i + kPrefetchDistance])]);
      if (place(pending_[i])) ++size_;
    }
    pending_.clear();
  }

  std::size_t slot_of(std::uint64_t key) const { return static_cast<std::size_t>(FlatIndex::mix(key)) & mask_; }

  // False when the key was there already.
  bool place(std::uint64_t key) {
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      if (slots_[i] == key) return false;
      if (slots_[i] == kEmpty) {
        slots_[i] = key;
        return true;
      }
    }
  }

  void grow() {
    decltype(slots_) old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, kEmpty);
    mask_ = slots_.size() - 1;
    for (std::uint64_t key : old) {
      if (key != kEmpty) place(key);
    }
  }

  std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
  bool has_empty_key_ = false;
  std::vector<std::uint64_t> pending_;  // inserted, not yet in slots_
  std::vector<std::uint64_t> recent_;   // kRecentBits-indexed, made on the first insert
};

}  // namespace heapql
