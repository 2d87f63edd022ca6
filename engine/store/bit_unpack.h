// A packed column's block of 64 values unpacked at once (packed_column.h:
// value j at bits j*w .. j*w+w-1 of the block's w words), by a function made
// for each width: every value's word and shift are constants, so unpacking
// is a load, a shift, an or where a value spans two words, and a mask, with
// no branch. The replays decode most blocks they read whole (docs/store.md,
// "Where a windowed query's time goes", has the measurements).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace heapql {

class BitUnpack {
 public:
  static constexpr std::size_t kValues = 64;
  static constexpr unsigned kMaxWidth = 32;

  // base + each of the block's 64 values of `width` bits (0-32) from
  // `words` (its `width` words; none are read for width 0).
  static void block(unsigned width, const std::uint64_t* words, std::uint32_t base, std::uint32_t* out) {
    kByWidth[width](words, base, out);
  }

 private:
  using Unpacker = void (*)(const std::uint64_t*, std::uint32_t, std::uint32_t*);

  template <unsigned W, std::size_t J>
  static std::uint32_t value(const std::uint64_t* words) {
    constexpr std::size_t at = J * W;
    constexpr std::size_t word = at / 64;
    constexpr unsigned shift = at % 64;
    constexpr std::uint64_t mask = (std::uint64_t{1} << W) - 1;
    std::uint64_t v = words[word] >> shift;
    if constexpr (shift + W > 64) v |= words[word + 1] << (64 - shift);
    return static_cast<std::uint32_t>(v & mask);
  }

  template <unsigned W>
  static void unpack(const std::uint64_t* words, std::uint32_t base, std::uint32_t* out) {
    if constexpr (W == 0) {
      for (std::size_t j = 0; j < kValues; ++j) out[j] = base;
    } else {
      [&]<std::size_t... J>(std::index_sequence<J...>) {
        ((out[J] = base + value<W, J>(words)), ...);
      }(std::make_index_sequence<kValues>{});
    }
  }

  static constexpr std::array<Unpacker, kMaxWidth + 1> kByWidth =
      []<std::size_t... W>(std::index_sequence<W...>) {
        return std::array<Unpacker, kMaxWidth + 1>{&unpack<static_cast<unsigned>(W)>...};
      }(std::make_index_sequence<kMaxWidth + 1>{});
};

}  // namespace heapql
