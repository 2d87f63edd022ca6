// FreeColumnAhead: the free column read in order through its ring of words
// read ahead gives back every word as stored, whatever the range.
#include "engine/store/free_column_ahead.h"

#include <gtest/gtest.h>

#include <vector>

#include "engine/store/packed_column_writer.h"

namespace heapql {
namespace {

TEST(FreeColumnAhead, GivesEveryWordOfAnyRangeAsStored) {
  std::vector<std::uint32_t> frees;
  for (std::uint32_t f = 0; f < 300; ++f) {
    // Blocks in and out of the fetched range, some frees temporary.
    frees.push_back((f * 7919u) % 500u | (f % 3 == 0 ? StoreColumns::kTemporaryBit : 0u));
  }
  std::vector<std::uint32_t> buckets(400, 1), allocs(400);
  for (std::uint32_t i = 0; i < 400; ++i) allocs[i] = i;
  std::vector<std::uint64_t> words[3];
  StoreColumns c;
  c.free_order = pack_values(frees, StoreColumns::kFreeRotation, words[0]);
  c.bucket = pack_values(buckets, 0, words[1]);
  c.alloc_seq = pack_values(allocs, 0, words[2]);
  const std::size_t ranges[][2] = {{0, 300}, {0, 0}, {5, 9}, {64, 100}, {290, 300}, {17, 18}, {0, 16}, {0, 17}};
  for (const auto& [first, end] : ranges) {
    for (const auto lookups : {FreeColumnAhead::Lookups::kBucket, FreeColumnAhead::Lookups::kBucketAndAllocation}) {
      FreeColumnAhead ahead(c, first, end, 400, lookups);
      for (std::size_t f = first; f < end; ++f) ASSERT_EQ(ahead.word(f), frees[f]) << first << ".." << end << " at " << f;
    }
  }
}

}  // namespace
}  // namespace heapql
