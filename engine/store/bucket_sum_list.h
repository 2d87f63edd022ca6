// A store's bucket sums, as a store holds them:
// in memory as they were counted (a store built by ingest), narrowed to 32
// bits (a recording in progress, read from its live journal), or packed in
// a store file, five packed columns read in place
// (docs/store-format.md, "Packed tables"). Read a chunk at a time, in order
// of the buckets' first allocation, so that a file's sums are never decoded
// whole (32 bytes a bucket: 62 MB on a trace of 1.9 M buckets, against 4 MB
// packed).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "engine/store/packed_column.h"

namespace heapql {

// One bucket's blocks over the whole trace, so that a whole-trace query
// reads buckets, not blocks (docs/store.md). 32 bytes.
struct BucketSum {
  std::uint32_t bucket = 0;
  std::uint32_t live_at_peak = 0;  // its blocks alive at the trace's peak
  std::uint64_t allocs = 0;
  std::uint64_t frees = 0;
  std::uint64_t temporary_frees = 0;
};
static_assert(sizeof(BucketSum) == 32);

// A bucket sum whose counts fit 32 bits, as every count of a store does (a
// store holds fewer than 2^31 blocks), its bucket kept apart: 16 bytes, for
// the sums a live journal's reader gathers in a fresh array on every query.
struct NarrowBucketSum {
  std::uint32_t allocs = 0;
  std::uint32_t frees = 0;
  std::uint32_t temporary_frees = 0;
  std::uint32_t live_at_peak = 0;
};
static_assert(sizeof(NarrowBucketSum) == 16);

// The packed columns, in this order.
enum class BucketSumColumn : std::size_t { kBucket, kLiveAtPeak, kAllocs, kFrees, kTemporaryFrees };
inline constexpr std::size_t kBucketSumColumns = 5;

class BucketSumList {
 public:
  static constexpr std::size_t kChunk = std::size_t{1} << 12;  // a multiple of a packed block

  BucketSumList() = default;
  explicit BucketSumList(std::span<const BucketSum> in_memory) : in_memory_(in_memory) {}
  explicit BucketSumList(const std::array<PackedColumn, kBucketSumColumns>& packed) : packed_(packed) {}
  // Narrow sums, the i-th of bucket `buckets[i]`, or of bucket i when
  // `buckets` is empty (buckets first allocated in the order of their ids).
  BucketSumList(std::span<const NarrowBucketSum> narrow, std::span<const std::uint32_t> buckets)
      : narrow_(narrow), narrow_buckets_(buckets) {}
  // Sums a file holds but whose columns do not fit its section: reading
  // them throws `why`, so that the query that reads them reports it (after
  // their checksum, whose damage would explain it), and no other does.
  static BucketSumList unreadable(std::string why) {
    BucketSumList list;
    list.unreadable_ = std::move(why);
    return list;
  }

  std::size_t size() const { return packed_[0].size() + in_memory_.size() + narrow_.size(); }
  bool empty() const { return size() == 0 && unreadable_.empty(); }

  // Calls `chunk(std::span<const BucketSum>)` for the sums in order, a chunk at a
  // time. A damaged packed block throws (packed_column.h).
  template <class F>
  void each_chunk(F&& chunk) const {
    if (!in_memory_.empty()) {
      chunk(in_memory_);
      return;
    }
    if (!unreadable_.empty()) throw Error(unreadable_);
    if (!narrow_.empty()) {
      each_narrow_chunk(chunk);
      return;
    }
    const std::size_t n = packed_[0].size();
    std::vector<BucketSum> sums(std::min(n, kChunk));
    std::array<std::uint32_t, PackedColumn::kBlockValues> values{};
    for (std::size_t first = 0; first < n; first += kChunk) {
      const std::size_t count = std::min(kChunk, n - first);
      for (std::size_t column = 0; column < kBucketSumColumns; ++column) {
        for (std::size_t at = 0; at < count; at += PackedColumn::kBlockValues) {
          packed_[column].decode_block((first + at) / PackedColumn::kBlockValues, values.data());
          set(std::span<BucketSum>(sums.data() + at, std::min(PackedColumn::kBlockValues, count - at)), column,
              values.data());
        }
      }
      chunk(std::span<const BucketSum>(sums.data(), count));
    }
  }

  // Every sum, for tests and small stores.
  std::vector<BucketSum> all() const {
    std::vector<BucketSum> out;
    out.reserve(size());
    each_chunk([&](std::span<const BucketSum> chunk) { out.insert(out.end(), chunk.begin(), chunk.end()); });
    return out;
  }

 private:
  template <class F>
  void each_narrow_chunk(F&& chunk) const {
    std::vector<BucketSum> sums(std::min(narrow_.size(), kChunk));
    for (std::size_t first = 0; first < narrow_.size(); first += kChunk) {
      const std::size_t count = std::min(kChunk, narrow_.size() - first);
      for (std::size_t j = 0; j < count; ++j) {
        const NarrowBucketSum& n = narrow_[first + j];
        const std::size_t i = first + j;
        sums[j] = BucketSum{narrow_buckets_.empty() ? static_cast<std::uint32_t>(i) : narrow_buckets_[i], n.live_at_peak,
                            n.allocs, n.frees, n.temporary_frees};
      }
      chunk(std::span<const BucketSum>(sums.data(), count));
    }
  }

  // One column's values into its field of each sum.
  static void set(std::span<BucketSum> sums, std::size_t column, const std::uint32_t* values) {
    const auto each = [&](auto field) {
      for (std::size_t j = 0; j < sums.size(); ++j) sums[j].*field = values[j];
    };
    switch (static_cast<BucketSumColumn>(column)) {
      case BucketSumColumn::kBucket: return each(&BucketSum::bucket);
      case BucketSumColumn::kLiveAtPeak: return each(&BucketSum::live_at_peak);
      case BucketSumColumn::kAllocs: return each(&BucketSum::allocs);
      case BucketSumColumn::kFrees: return each(&BucketSum::frees);
      case BucketSumColumn::kTemporaryFrees: return each(&BucketSum::temporary_frees);
    }
  }

  std::span<const BucketSum> in_memory_;
  std::span<const NarrowBucketSum> narrow_;
  std::span<const std::uint32_t> narrow_buckets_;
  std::array<PackedColumn, kBucketSumColumns> packed_{};
  std::string unreadable_;
};

}  // namespace heapql
