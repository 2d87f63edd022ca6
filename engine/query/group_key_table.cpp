#include "engine/query/group_key_table.h"

#include <algorithm>

#include "engine/error.h"

namespace heapql {

namespace {

// Levels whose values are dense ids into the trace's tables, so that a
// bit per value stays within the memory of the tables themselves (a thread
// id, say, is not: it may be any 32-bit number).
bool values_are_table_ids(GroupBy level) {
  switch (level) {
    case GroupBy::kStack:
    case GroupBy::kFrame:
    case GroupBy::kImage:
    case GroupBy::kProcess:
    case GroupBy::kHeap:
    case GroupBy::kKind: return true;
    default: return false;
  }
}

// A key's hash from its values, value_at(level) for each level.
template <class ValueAt>
std::uint64_t key_hash(std::size_t width, ValueAt&& value_at) {
  std::uint64_t h = 0;
  for (std::size_t level = 0; level < width; ++level) h = FlatIndex::mix(h ^ value_at(level));
  return h;
}

}  // namespace

GroupKeyTable::GroupKeyTable(std::span<const GroupBy> levels) : width_(levels.size()) {
  // The impacting level's value is always 0: one other level makes the key.
  const auto varies = [](GroupBy level) { return level != GroupBy::kImpacting; };
  if (std::count_if(levels.begin(), levels.end(), varies) == 1) {
    const auto level = std::find_if(levels.begin(), levels.end(), varies);
    if (values_are_table_ids(*level)) by_value_level_ = static_cast<std::int32_t>(level - levels.begin());
  }
}

std::int32_t GroupKeyTable::intern(std::span<const std::uint32_t> values) {
  if (ranked_) throw Error("internal error: a group key interned after the keys were numbered");
  if (width_ == 0) {
    count_ = 1;
    return 0;
  }
  if (by_value_level_ >= 0) {
    bool others_zero = true;
    for (std::size_t level = 0; level < width_; ++level) {
      if (level != static_cast<std::size_t>(by_value_level_) && values[level] != 0) others_zero = false;
    }
    const std::uint32_t key = values[static_cast<std::size_t>(by_value_level_)] + 1;  // wraps for an invalid id
    if (others_zero && key < kValueKeyLimit) {
      value_keys_.set(key);
      return static_cast<std::int32_t>(key);
    }
  }
  return intern_by_hash(values);
}

std::int32_t GroupKeyTable::intern_by_hash(std::span<const std::uint32_t> values) {
  const std::uint64_t hash = key_hash(width_, [&](std::size_t level) { return values[level]; });
  const std::uint32_t found = interned_ids_.find(hash, [&](std::uint32_t id) {
    for (std::size_t level = 0; level < width_; ++level) {
      if (values_[id * width_ + level] != values[level]) return false;
    }
    return true;
  });
  std::uint32_t id = found;
  if (found == FlatIndex::kAbsent) {
    if (interned_count_ >= kMaxInterned) throw Error("more than 2^31 - 2^30 group keys: the query's rows do not fit");
    id = static_cast<std::uint32_t>(interned_count_++);
    for (const std::uint32_t v : values) values_.push_back(v);
    interned_ids_.insert(hash, id, [&](std::uint32_t stored) {
      return key_hash(width_, [&](std::size_t level) { return values_[stored * width_ + level]; });
    });
  }
  return static_cast<std::int32_t>(by_value_level_ >= 0 ? kValueKeyLimit + id : id);
}

bool GroupKeyTable::rank() {
  if (ranked_) return false;
  ranked_ = true;
  if (width_ == 0) return false;
  interned_ids_ = FlatIndex();
  if (by_value_level_ < 0) {
    count_ = interned_count_;
    return false;
  }
  value_ranks_ = DenseRank(value_keys_.take_words());
  count_ = value_ranks_.count() + interned_count_;
  // The keys by value, in value order, come first: their one varying
  // level's values (the interned keys' values stay where they are). Only
  // that level's, and appended, not zeroed first: millions of fresh pages
  // are each a fault (walk's window, 1.7 M keys: 7 ms for them all).
  value_level_values_.reserve(value_ranks_.count());
  value_ranks_.each([&](std::size_t key) { value_level_values_.push_back(static_cast<std::uint32_t>(key - 1)); });
  return true;
}

std::int32_t GroupKeyTable::ranked(std::int32_t key) const {
  if (by_value_level_ < 0 || key < 0) return key;
  const auto k = static_cast<std::uint32_t>(key);
  if (k >= kValueKeyLimit) return static_cast<std::int32_t>(value_ranks_.count() + (k - kValueKeyLimit));
  return static_cast<std::int32_t>(value_ranks_(k));
}

}  // namespace heapql
