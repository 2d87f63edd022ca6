// The aggregator's group keys: each distinct tuple of level values (one per
// `--by` level) is a key, and the result's rows are numbered by key.
//
// Most queries group by one level whose values are ids into the trace's own
// tables (`--by stack`, `--by frame`, ..., with or without the impacting
// level, whose value is always 0). Their key is then the value itself while
// the trace streams in: no hash index, no lookup, a bit per value to
// remember which exist (on a trace with millions of stacks, a `--by stack`
// query so saves the index's memory and part of the parser thread's work).
// Every other key is interned through a hash index. Once every key is
// known, rank() numbers them densely, by value; until then a key is only
// good for telling keys apart.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/query/query.h"
#include "engine/util/chunked_vector.h"
#include "engine/util/dense_rank.h"
#include "engine/util/flat_index.h"
#include "engine/util/id_bits.h"

namespace heapql {

class GroupKeyTable {
 public:
  explicit GroupKeyTable(std::span<const GroupBy> levels);

  // The key of `values` (one per level): 0 or more.
  std::int32_t intern(std::span<const std::uint32_t> values);

  // Numbers the keys 0 .. count() - 1: the keys by value in value order,
  // then the interned ones in the order they came. Returns whether any key
  // changed (the caller then rewrites the keys it holds with ranked()).
  // No key may be interned after.
  bool rank();
  std::int32_t ranked(std::int32_t key) const;

  // After rank(): how many keys there are, and each one's values.
  std::size_t count() const { return count_; }
  std::uint32_t value(std::size_t key, std::size_t level) const {
    const std::size_t by_value = value_level_values_.size();  // keys by value come first
    if (key < by_value) return level == static_cast<std::size_t>(by_value_level_) ? value_level_values_[key] : 0;
    return values_[(key - by_value) * width_ + level];
  }

 private:
  // A key by value is the value plus one (so that an invalid id, all bits
  // set, is key 0), below this limit; interned keys come after it.
  static constexpr std::uint32_t kValueKeyLimit = 1u << 30;
  static constexpr std::uint32_t kMaxInterned = 0x7FFFFFFFu - kValueKeyLimit;

  std::int32_t intern_by_hash(std::span<const std::uint32_t> values);

  std::size_t width_;
  std::int32_t by_value_level_ = -1;  // the level whose values are keys, if any
  IdBits value_keys_;                 // the keys by value that exist (until ranked)
  DenseRank value_ranks_;             // once ranked: their dense numbers
  ChunkedVector<std::uint32_t> values_;  // interned keys' values, key after key
  std::vector<std::uint32_t> value_level_values_;  // once ranked: each key by value's value
  std::size_t interned_count_ = 0;
  FlatIndex interned_ids_;
  bool ranked_ = false;
  std::size_t count_ = 0;
};

}  // namespace heapql
