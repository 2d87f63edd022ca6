// Address rounding and the whole aligned units inside a block
// (engine/platform/aligned_stretch.h): what the memory hints and the aligned
// carvings rely on to touch nothing outside a block.
#include "engine/platform/aligned_stretch.h"

#include <gtest/gtest.h>

#include <cstdint>

using heapql::AlignedStretch;
using heapql::round_up_to;
using heapql::whole_units_inside;

namespace {

void* at(std::uintptr_t address) { return reinterpret_cast<void*>(address); }
std::uintptr_t address_of(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

}  // namespace

TEST(AlignedStretch, RoundsUpToTheNextBoundaryAndLeavesOneOnItAsItIs) {
  EXPECT_EQ(round_up_to(std::uintptr_t{0}, 64), 0u);
  EXPECT_EQ(round_up_to(std::uintptr_t{1}, 64), 64u);
  EXPECT_EQ(round_up_to(std::uintptr_t{64}, 64), 64u);
  EXPECT_EQ(round_up_to(std::uintptr_t{65}, 64), 128u);
  EXPECT_EQ(round_up_to(std::uintptr_t{0x1234567}, std::uintptr_t{2} << 20), std::uintptr_t{0x1400000});
  EXPECT_EQ(address_of(round_up_to<std::uint64_t>(at(0x1008), 64)), 0x1040u);
}

TEST(AlignedStretch, TheWholeUnitsInsideABlockStartAndEndOnABoundaryWithinIt) {
  constexpr std::uintptr_t kPage = 4096;
  // From 0x1010 for 3 pages: the whole pages are 0x2000 and 0x3000, not the partial ones at either end.
  const AlignedStretch pages = whole_units_inside(at(0x1010), 3 * kPage, kPage);
  EXPECT_EQ(address_of(pages.begin), 0x2000u);
  EXPECT_EQ(pages.bytes, 2 * kPage);
  // A block on a boundary whose size is a whole number of units: all of it.
  const AlignedStretch exact = whole_units_inside(at(0x4000), 2 * kPage, kPage);
  EXPECT_EQ(address_of(exact.begin), 0x4000u);
  EXPECT_EQ(exact.bytes, 2 * kPage);
}

TEST(AlignedStretch, ABlockHoldingNoWholeUnitGivesAnEmptyStretch) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  // Nearly two huge pages, straddling one boundary: no whole huge page.
  EXPECT_EQ(whole_units_inside(at(kHuge - 16), kHuge + 8, kHuge).bytes, 0u);
  EXPECT_EQ(whole_units_inside(at(0x1010), 100, 4096).bytes, 0u);
  EXPECT_EQ(whole_units_inside(at(0x1000), 0, 4096).bytes, 0u);
}
