// Strong integer ids for the interned tables, so a frame id can never be
// passed where a stack id is expected. Each is a 32-bit index into its table.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace heapql {

template <class Tag>
struct Id {
  static constexpr std::uint32_t kInvalidValue = std::numeric_limits<std::uint32_t>::max();

  std::uint32_t value = kInvalidValue;

  constexpr Id() = default;
  constexpr explicit Id(std::uint32_t v) : value(v) {}

  constexpr bool valid() const { return value != kInvalidValue; }
  constexpr std::uint32_t index() const { return value; }
  friend constexpr auto operator<=>(Id, Id) = default;
};

using StringId = Id<struct StringTag>;
using FrameId = Id<struct FrameTag>;
using StackId = Id<struct StackTag>;  // a node of the stack tree; invalid = the empty stack
using BucketId = Id<struct BucketTag>;
using ProcessId = Id<struct ProcessTag>;
using HeapId = Id<struct HeapTag>;
using BlockId = Id<struct BlockTag>;

}  // namespace heapql

template <class Tag>
struct std::hash<heapql::Id<Tag>> {
  std::size_t operator()(heapql::Id<Tag> id) const noexcept { return std::hash<std::uint32_t>{}(id.value); }
};
