#include "engine/store_file/table_records.h"

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

}  // namespace heapql::store_file
