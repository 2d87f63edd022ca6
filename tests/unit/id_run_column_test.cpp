// IdRunColumn: ids kept as runs that step by one, with the breaks apart.
// Every entry reads back as it was written, whatever the mix of runs and
// breaks, at block boundaries, and across the invalid id's wrap to zero.
#include "engine/store/id_run_column.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace heapql {
namespace {

void expect_same(const IdRunColumn& column, const std::vector<std::uint32_t>& ids) {
  ASSERT_EQ(column.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(column[i], ids[i]) << "entry " << i;
}

TEST(IdRunColumn, ReadsBackRunsAndBreaksOfEveryShape) {
  std::mt19937 rng(5);
  for (const unsigned break_one_in : {1u, 2u, 7u, 64u, 1000u}) {
    IdRunColumn column;
    std::vector<std::uint32_t> ids;
    std::uint32_t next = 0xFFFFFFFFu;  // the empty stack first, as heaptrack's trace 0
    for (int i = 0; i < 20'000; ++i) {
      const std::uint32_t id = rng() % break_one_in == 0 ? static_cast<std::uint32_t>(rng() % 50'000) : next;
      column.push_back(id);
      ids.push_back(id);
      next = id + 1;
    }
    expect_same(column, ids);
  }
}

TEST(IdRunColumn, BreaksAtTheFirstAndLastEntryOfABlock) {
  IdRunColumn column;
  std::vector<std::uint32_t> ids;
  for (std::uint32_t i = 0; i < 256; ++i) {
    const std::uint32_t id = i % 64 == 63 || i % 64 == 1 ? 1'000'000 + i : i;
    column.push_back(id);
    ids.push_back(id);
  }
  expect_same(column, ids);
}

TEST(IdRunColumn, RunsCostAFractionOfAPlainColumn) {
  // 8 M ids (past its first chunks), one in a thousand breaking its run:
  // what it is kept for.
  constexpr std::uint32_t kIds = 8'000'000;
  IdRunColumn column;
  for (std::uint32_t i = 0; i < kIds; ++i) column.push_back(i % 1'000 == 999 ? 7 : i);
  EXPECT_EQ(column[998], 998u);
  EXPECT_EQ(column[999], 7u);
  EXPECT_EQ(column[1'000], 1'000u);
  EXPECT_EQ(column[kIds - 2], kIds - 2);
  EXPECT_LT(column.memory_bytes(), kIds * sizeof(std::uint32_t) / 8);
}

}  // namespace
}  // namespace heapql
