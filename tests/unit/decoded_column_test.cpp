// Tests for DecodedColumn: what a writer wrote is kept, in order, through
// every growth, and a cleared column starts again at its first item.
#include "engine/ingest/decoded_column.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace heapql {
namespace {

struct Item {
  std::uint64_t value;
  std::uint32_t round;
};

TEST(DecodedColumn, KeepsItsItemsAsItGrows) {
  DecodedColumn<Item> column;
  DecodedColumn<Item>::Writer writer = column.writer();
  for (std::uint32_t round = 0; round < 12; ++round) {
    // Room for as many more as there are, and one: each round past the first
    // moves the items.
    const std::size_t count = writer.index() + std::size_t{1};
    column.make_room(writer, count);
    for (std::size_t i = 0; i < count; ++i) {
      ASSERT_EQ(writer.index(), column.size() + i);
      *writer.next++ = Item{column.size() + i, round};
    }
  }
  column.keep(writer);
  ASSERT_EQ(column.size(), 4095u);
  for (std::size_t i = 0; i < column.size(); ++i) ASSERT_EQ(column[i].value, i) << i;
  column.clear();
  EXPECT_EQ(column.size(), 0u);
  EXPECT_EQ(column.writer().index(), 0u);
}

TEST(DecodedColumn, KeepsOnlyWhatWasWrittenNotTheRoom) {
  DecodedColumn<Item> column;
  DecodedColumn<Item>::Writer writer = column.writer();
  column.make_room(writer, 100);
  *writer.next++ = Item{7, 0};
  column.keep(writer);
  EXPECT_EQ(column.size(), 1u);
  column.make_room(writer, 1);
  EXPECT_EQ(writer.index(), 1u);
  EXPECT_EQ(column[0].value, 7u);
}

}  // namespace
}  // namespace heapql
