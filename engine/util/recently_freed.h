// The keys of the latest frees of a source with addresses, a bounded number
// of them: so that a second free of an address is told apart from a free of
// an address never seen (semantics.md §1) with memory that does not grow
// with the distinct addresses a trace ever used. It remembers the keys of
// the last `capacity` frees; a key freed again counts once, at its latest
// free. A free of a key that is not alive is a double free when contains()
// finds it, that is when its latest free is among the last `capacity`.
//
// A ring of the keys in free order, and an open-addressing index of ring
// positions by key (at most half full, deletion by shifting the probe run
// back, so no tombstones). A key freed again moves to its new position; its
// old one is left in the ring and passed over when the ring comes round to
// it. Each index slot holds its key's hash beside the position, so a probe
// reads the ring only for a key whose hash matches, and a deletion none.
// Both grow with use up to the bound, so a small trace costs little.
//
// An exact reading frees once an event, and each free's index slot, at a
// random place, was a cache miss that its caller waited for (a seventh of
// a raw-twin read): frees wait in a short queue instead, their slots
// fetched as they come, and go into the index a few frees later, in order;
// a lookup puts the queue in first, so it sees every free before it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/util/flat_index.h"
#include "engine/util/prefetch_hint.h"

namespace heapql {

template <class Key, class Hash>
class RecentlyFreed {
 public:
  explicit RecentlyFreed(std::uint32_t capacity) : capacity_(std::max<std::uint32_t>(capacity, 1)) {}

  // A free of `key`.
  void add(const Key& key) {
    const std::uint32_t hash = hash_of(key);
    if (!slots_.empty()) prefetch_hint(&slots_[home(hash)]);
    if (queued_ == kQueue) {
      place(queue_[queue_head_].key, queue_[queue_head_].hash);
      queue_[queue_head_] = Queued{key, hash};
      queue_head_ = (queue_head_ + 1) % kQueue;
      return;
    }
    queue_[(queue_head_ + queued_++) % kQueue] = Queued{key, hash};
  }

  // Whether `key` is among the keys of the last `capacity` frees.
  bool contains(const Key& key) const {
    flush();
    return !slots_.empty() && slots_[find_slot(key, hash_of(key))] != kEmpty;
  }

  // Distinct keys held (at most capacity()).
  std::size_t size() const {
    flush();
    return size_;
  }
  std::uint32_t capacity() const { return capacity_; }
  std::size_t memory_bytes() const { return ring_.capacity() * sizeof(Key) + slots_.capacity() * sizeof(Slot); }

 private:
  using Slot = std::uint64_t;  // the key's hash << 32 | its ring position
  static constexpr Slot kEmpty = ~Slot{0};
  static constexpr std::uint32_t kPrefetchDistance = 8;
  static constexpr std::uint32_t kQueue = 8;
  struct Queued {
    Key key;
    std::uint32_t hash;
  };

  // The queued frees into the index, in order.
  void flush() const {
    for (; queued_ > 0; --queued_) {
      place(queue_[queue_head_].key, queue_[queue_head_].hash);
      queue_head_ = (queue_head_ + 1) % kQueue;
    }
  }

  // The free of `key` (whose hash is `hash`) into the ring and the index.
  void place(const Key& key, std::uint32_t hash) const {
    std::uint32_t position;
    if (ring_.size() < capacity_) {
      position = static_cast<std::uint32_t>(ring_.size());
      ring_.push_back(key);
    } else {
      position = next_;
      forget(position);
      ring_[position] = key;
      // Every free evicts the oldest: its slot is fetched a few frees ahead.
      if (capacity_ > kPrefetchDistance) {
        const std::uint32_t ahead = position + kPrefetchDistance;
        prefetch_hint(&slots_[home(hash_of(ring_[ahead < capacity_ ? ahead : ahead - capacity_]))]);
      }
    }
    next_ = position + 1 == capacity_ ? 0 : position + 1;
    if ((size_ + 1) * 2 > slots_.size()) grow();
    const std::size_t slot = find_slot(key, hash);
    if (slots_[slot] == kEmpty) ++size_;
    slots_[slot] = std::uint64_t{hash} << 32 | position;
  }

  // Mixed again: a Hash made for std::unordered_map's prime bucket counts
  // (or the identity of std::hash) may leave the low bits, which pick the
  // slot here, the same for all aligned addresses.
  static std::uint32_t hash_of(const Key& key) {
    return static_cast<std::uint32_t>(FlatIndex::mix(static_cast<std::uint64_t>(Hash{}(key))));
  }
  std::size_t home(std::uint32_t hash) const { return hash & mask_; }
  static std::uint32_t position_of(Slot s) { return static_cast<std::uint32_t>(s); }
  static std::uint32_t hash_in(Slot s) { return static_cast<std::uint32_t>(s >> 32); }

  // The key's slot, or the empty slot where it would go.
  std::size_t find_slot(const Key& key, std::uint32_t hash) const {
    std::size_t i = home(hash);
    while (slots_[i] != kEmpty && !(hash_in(slots_[i]) == hash && ring_[position_of(slots_[i])] == key)) {
      i = (i + 1) & mask_;
    }
    return i;
  }

  // The ring comes round to `position`: its key leaves the index, unless
  // it was freed again since (its slot then holds a later position). A
  // position is in the index once at most, so the probe compares positions,
  // not keys.
  void forget(std::uint32_t position) const {
    std::size_t hole = home(hash_of(ring_[position]));
    for (;; hole = (hole + 1) & mask_) {
      if (slots_[hole] == kEmpty) return;
      if (position_of(slots_[hole]) == position) break;
    }
    // Shift later members of the probe run back into the hole, unless their
    // home slot lies cyclically in (hole, j].
    for (std::size_t j = (hole + 1) & mask_; slots_[j] != kEmpty; j = (j + 1) & mask_) {
      const std::size_t h = home(hash_in(slots_[j]));
      const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (stays) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole] = kEmpty;
    --size_;
  }

  void grow() const {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, kEmpty);
    mask_ = slots_.size() - 1;
    for (const Slot s : old) {
      if (s == kEmpty) continue;
      std::size_t i = home(hash_in(s));
      while (slots_[i] != kEmpty) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  // Mutable: a lookup puts the queued frees in first.
  std::uint32_t capacity_;
  mutable std::vector<Key> ring_;     // keys in free order, oldest at next_ once full
  mutable std::uint32_t next_ = 0;    // the position the next free takes
  mutable std::vector<Slot> slots_;   // by key's hash
  mutable std::size_t mask_ = 0;
  mutable std::size_t size_ = 0;
  mutable Queued queue_[kQueue] = {};  // frees not yet placed, oldest at queue_head_
  mutable std::uint32_t queue_head_ = 0;
  mutable std::uint32_t queued_ = 0;
};

}  // namespace heapql
