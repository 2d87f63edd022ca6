#include "engine/store_file/table_records.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "engine/store_file/store_format.h"

namespace heapql::store_file {

namespace {

// Every record's faults (a bit per rule) OR-ed together in a tight loop; then,
// when any is set, the first record with one, named by its lowest fault.
template <std::size_t kRules, class Faults>
std::optional<BadRecord> first_bad(std::size_t n, std::uint64_t first, const Faults& faults_of,
                                   const std::array<std::string_view, kRules>& what) {
  unsigned any = 0;
  for (std::size_t i = 0; i < n; ++i) any |= faults_of(i);
  if (any == 0) return std::nullopt;
  for (std::size_t i = 0; i < n; ++i) {
    if (const unsigned faults = faults_of(i); faults != 0) {
      return BadRecord{first + i, what[static_cast<std::size_t>(std::countr_zero(faults))]};
    }
  }
  return std::nullopt;  // (unreachable: some record had a fault)
}

template <class T>
T load(const char* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

}  // namespace

std::optional<BadRecord> first_bad_stack_node(std::span<const StackNode> nodes, std::uint64_t first,
                                              std::size_t frames) {
  static constexpr std::array<std::string_view, 2> kWhat = {"a stack node's frame out of range",
                                                            "a stack node whose caller comes after it"};
  return first_bad(nodes.size(), first, [&](std::size_t i) {
    const StackNode& node = nodes[i];
    return unsigned{node.frame.value >= frames} | unsigned{node.parent.valid() && node.parent.value >= first + i} << 1;
  }, kWhat);
}

std::optional<BadRecord> first_bad_bucket(std::string_view records, std::uint64_t first, std::size_t stacks,
                                          std::size_t heaps) {
  static constexpr std::array<std::string_view, 3> kWhat = {
      "a bucket's stack out of range", "a bucket's heap out of range", "a bucket with an unknown kind or flag"};
  return first_bad(records.size() / kBucketBytes, first, [&](std::size_t i) {
    // Read as bytes, not as Bucket: a kind or flag byte the file got wrong
    // is no value of BlockKind or bool.
    const char* r = records.data() + i * kBucketBytes;
    const auto stack = load<std::uint32_t>(r + 8);
    const auto heap = load<std::uint32_t>(r + 12);
    const auto flags = load<std::uint32_t>(r + 20);  // kind, realloc, zero padding
    return unsigned{stack != StackId().value && stack >= stacks} | unsigned{heap != HeapId().value && heap >= heaps} << 1 |
           unsigned{(flags & ~0x0101u) != 0} << 2;
  }, kWhat);
}

namespace {

constexpr std::uint64_t kNone32 = 0xFFFFFFFFu;  // an invalid id

}  // namespace

std::optional<BadRecord> first_bad_stack_node(const StackNodeRows::Rows& nodes, std::size_t frames) {
  static constexpr std::array<std::string_view, 2> kWhat = {"a stack node's frame out of range",
                                                            "a stack node whose caller comes after it"};
  // A block's rows are decoded only where its range leaves a rule in doubt:
  // its frames mostly lie below the count, but a chain's callers, each the
  // node before, lie within the block itself.
  using Rows = StackNodeRows::Rows;
  std::array<std::uint64_t, Rows::kBlockRows> frame, parent;
  for (std::size_t k = 0; k * Rows::kBlockRows < nodes.size(); ++k) {
    const std::uint64_t first = k * Rows::kBlockRows;
    const std::size_t n = std::min<std::size_t>(Rows::kBlockRows, nodes.size() - first);
    const Rows::BlockFields fields = nodes.block_fields(k);
    const auto frames_range = fields.range(0);
    const auto parents_range = fields.range(1);
    const bool frames_fit = !frames_range.wraps && frames_range.greatest < frames;
    const bool parents_fit = !parents_range.wraps && parents_range.greatest < first;
    if (frames_fit && parents_fit) continue;
    if (!frames_fit) fields.decode(0, frame.data());
    if (!parents_fit) fields.decode(1, parent.data());
    const auto faults = [&](std::size_t j) {
      return unsigned{!frames_fit && frame[j] >= frames} |
             unsigned{!parents_fit && parent[j] != kNone32 && parent[j] >= first + j} << 1;
    };
    if (auto bad = first_bad(n, first, faults, kWhat)) return bad;
  }
  return std::nullopt;
}

std::optional<BadRecord> first_bad_bucket(const BucketRows::Rows& buckets, std::size_t stacks, std::size_t heaps) {
  static constexpr std::array<std::string_view, 4> kWhat = {
      "a bucket's stack out of range", "a bucket's heap out of range", "a bucket with an unknown kind or flag",
      "a bucket's thread does not fit 32 bits"};
  // As for the stack tree: a block is decoded only where a field's range
  // leaves its rule in doubt (an id's range takes in the invalid id, or
  // passes the table's count).
  using Rows = BucketRows::Rows;
  const auto within = [&](const Rows::BlockFields& fields, std::size_t field, std::uint64_t count) {
    const auto range = fields.range(field);
    return !range.wraps && (range.greatest < count || (range.least == kNone32 && range.greatest == kNone32));
  };
  std::array<Rows::Row, Rows::kBlockRows> block;
  for (std::size_t k = 0; k * Rows::kBlockRows < buckets.size(); ++k) {
    const Rows::BlockFields fields = buckets.block_fields(k);
    if (within(fields, BucketRows::kStack, stacks) && within(fields, BucketRows::kHeap, heaps) &&
        within(fields, BucketRows::kFlags, 2) && within(fields, BucketRows::kThread, kNone32 + 1)) {
      continue;
    }
    buckets.decode_block(k, block.data());
    const std::uint64_t first = k * Rows::kBlockRows;
    const std::size_t n = std::min<std::size_t>(Rows::kBlockRows, buckets.size() - first);
    const auto faults = [&](std::size_t j) {
      const Rows::Row& b = block[j];
      const std::uint64_t stack = b[BucketRows::kStack], heap = b[BucketRows::kHeap];
      return unsigned{stack != kNone32 && stack >= stacks} | unsigned{heap != kNone32 && heap >= heaps} << 1 |
             unsigned{(b[BucketRows::kFlags] & ~std::uint64_t{0x0101}) != 0} << 2 |
             unsigned{b[BucketRows::kThread] > kNone32} << 3;
    };
    if (auto bad = first_bad(n, first, faults, kWhat)) return bad;
  }
  return std::nullopt;
}

}  // namespace heapql::store_file
