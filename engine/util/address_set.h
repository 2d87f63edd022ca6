// A set of 64-bit address keys: the addresses a trace has freed, kept so
// that a second free of one is told apart from a free of an address never
// seen (semantics.md §1). A matched free inserts once an event, so inserts
// are filtered and batched (insert); a lookup (only an unmatched free makes
// one) puts the batch in first, so it sees every insert before it.
//
// Heap addresses are multiples of 16 and packed close together (a real
// trace's freed addresses fill few stretches of 4 KiB): those keys are a bit
// each, per 16 bytes, in a page of 40 bytes (its stretch and 256 bits) per
// 4 KiB of addresses that has any, found through a FlatIndex: a twentieth of
// the memory 8-byte slots take (docs/one-shot-speed.md). Other keys (tokens, odd
// addresses) go into an open-addressing table of 8-byte slots. Scattered
// addresses, one per 4 KiB, cost about 48 bytes each in pages against about
// 12 in slots: a process would need gigabytes of heap for that to matter.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/util/chunked_vector.h"
#include "engine/util/flat_index.h"
#include "engine/util/huge_page_allocator.h"
#include "engine/util/prefetch_hint.h"

namespace heapql {

class AddressSet {
 public:
  bool contains(std::uint64_t key) {
    if (key == kEmpty) return has_empty_key_;
    flush();
    if (in_pages(key)) {
      const std::uint32_t page = find_page(key >> kPageBits);
      return page != FlatIndex::kAbsent && (pages_[page].bits[granule_word(key)] >> granule_bit(key) & 1u) != 0;
    }
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
    return size_ + granules_ + (has_empty_key_ ? 1 : 0);
  }
  std::size_t memory_bytes() const {
    return (slots_.capacity() + pending_.capacity() + recent_.capacity()) * sizeof(std::uint64_t) +
           page_ids_.memory_bytes() + pages_.memory_bytes();
  }

 private:
  static constexpr std::uint64_t kEmpty = 0;
  static constexpr int kRecentBits = 14;  // 128 KiB of recent keys
  static constexpr std::size_t kPendingKeys = 4096;
  static constexpr std::size_t kPrefetchDistance = 16;

  void flush() {
    // Keys for the pages first; the others are moved to the front of the
    // batch, for the slots.
    const std::size_t n = pending_.size();
    std::size_t for_slots = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i + kPrefetchDistance < n && in_pages(pending_[i + kPrefetchDistance])) {
        page_ids_.prefetch(FlatIndex::mix(pending_[i + kPrefetchDistance] >> kPageBits));
      }
      const std::uint64_t key = pending_[i];
      if (!in_pages(key)) {
        pending_[for_slots++] = key;
        continue;
      }
      std::uint64_t& word = pages_[page_for(key >> kPageBits)].bits[granule_word(key)];
      const std::uint64_t bit = std::uint64_t{1} << granule_bit(key);
      if (!(word & bit)) ++granules_;
      word |= bit;
    }
    pending_.resize(for_slots);
    while ((size_ + pending_.size()) * 10 > slots_.size() * 7) grow();
    const std::size_t m = pending_.size();
    for (std::size_t i = 0; i < m; ++i) {
      if (i + kPrefetchDistance < m) prefetch_hint(&slots_[slot_of(pending_[i + kPrefetchDistance])]);
      if (place(pending_[i])) ++size_;
    }
    pending_.clear();
  }

  // Pages: a bit per 16-byte granule of 4 KiB of addresses (a stretch),
  // found by the stretch's number (key >> kPageBits) through page_ids_.
  static constexpr int kGranuleBits = 4;
  static constexpr int kPageBits = 12;
  struct Page {
    std::uint64_t stretch;
    std::uint64_t bits[(1u << (kPageBits - kGranuleBits)) / 64];
  };

  static bool in_pages(std::uint64_t key) { return (key & ((1u << kGranuleBits) - 1)) == 0; }
  static std::size_t granule_word(std::uint64_t key) { return (key >> kGranuleBits) % (1u << (kPageBits - kGranuleBits)) / 64; }
  static unsigned granule_bit(std::uint64_t key) { return static_cast<unsigned>(key >> kGranuleBits) % 64; }

  std::uint32_t find_page(std::uint64_t stretch) const {
    return page_ids_.find(FlatIndex::mix(stretch), [&](std::uint32_t page) { return pages_[page].stretch == stretch; });
  }

  std::uint32_t page_for(std::uint64_t stretch) {
    if (const std::uint32_t found = find_page(stretch); found != FlatIndex::kAbsent) return found;
    const auto page = static_cast<std::uint32_t>(pages_.size());
    pages_.push_back(Page{stretch, {}});
    page_ids_.insert(FlatIndex::mix(stretch), page,
                     [&](std::uint32_t stored) { return FlatIndex::mix(pages_[stored].stretch); });
    return page;
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
  ChunkedVector<Page> pages_;
  FlatIndex page_ids_;  // pages_ by stretch
  std::size_t granules_ = 0;  // keys in pages
};

}  // namespace heapql
