// IdRunColumn: ids kept as runs that step by one, with the breaks apart.
// Every entry reads back as it was written, whatever the mix of runs and
// breaks, at block boundaries, and across the invalid id's wrap to zero; a
// column allowed to turn plain does so only where breaks are common, and
// reads back the same across the change.
#include "engine/util/id_run_column.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace heapql {
namespace {

void expect_same(const IdRunColumn& column, const std::vector<std::uint32_t>& ids) {
  ASSERT_EQ(column.size(), ids.size());
  if (!ids.empty()) {
    ASSERT_EQ(column.back(), ids.back());
  }
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

// `count` ids, one in `break_one_in` breaking its run (at random).
std::vector<std::uint32_t> ids_breaking_one_in(unsigned break_one_in, std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> ids;
  std::uint32_t next = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t id = rng() % break_one_in == 0 ? static_cast<std::uint32_t>(rng() % 1'000'000) : next;
    ids.push_back(id);
    next = id + 1;
  }
  return ids;
}

// Pushes `ids` into a column allowed to turn plain, which must still be runs
// after the first `runs_until` entries and plain after one more.
void push_turning_plain_after(IdRunColumn& column, const std::vector<std::uint32_t>& ids, std::size_t runs_until) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    column.push_back(ids[i]);
    if (i + 1 == runs_until) {
      EXPECT_FALSE(column.is_plain());
    }
    if (i + 1 == runs_until + 1) {
      EXPECT_TRUE(column.is_plain());
    }
  }
}

TEST(IdRunColumn, TurnsPlainWhereBreaksAreCommonAndReadsBackAcrossTheChange) {
  // A sixth of the entries breaking, as a clang++ compile's allocation infos.
  const std::vector<std::uint32_t> ids = ids_breaking_one_in(6, 300'000, 11);
  IdRunColumn column(IdRunColumn::WhenBreaksAreCommon::kTurnPlain);
  push_turning_plain_after(column, ids, 65'536);  // judged at the first 64 Ki entries
  expect_same(column, ids);
  EXPECT_GE(column.memory_bytes(), ids.size() * sizeof(std::uint32_t));
}

TEST(IdRunColumn, StaysRunsWhereBreaksAreRareOrWhenNotAllowed) {
  const std::vector<std::uint32_t> rare = ids_breaking_one_in(100, 300'000, 12);
  IdRunColumn allowed(IdRunColumn::WhenBreaksAreCommon::kTurnPlain);
  for (const std::uint32_t id : rare) allowed.push_back(id);
  EXPECT_FALSE(allowed.is_plain());
  expect_same(allowed, rare);

  const std::vector<std::uint32_t> common = ids_breaking_one_in(6, 300'000, 13);
  IdRunColumn not_allowed;
  for (const std::uint32_t id : common) not_allowed.push_back(id);
  EXPECT_FALSE(not_allowed.is_plain());
  expect_same(not_allowed, common);
}

TEST(IdRunColumn, JudgesRecentBlocksNotTheWholeColumn) {
  // Breaks rare for a million entries, then common: a program whose later
  // part merges stacks. The column turns plain at the first judgement that
  // sees the common breaks (at 16 x 64 Ki entries), though the column's
  // breaks as a whole are still under one a block there.
  std::vector<std::uint32_t> ids = ids_breaking_one_in(1'000, 1'000'000, 14);
  const std::vector<std::uint32_t> later = ids_breaking_one_in(4, 100'000, 15);
  ids.insert(ids.end(), later.begin(), later.end());
  IdRunColumn column(IdRunColumn::WhenBreaksAreCommon::kTurnPlain);
  push_turning_plain_after(column, ids, 1'048'576);
  expect_same(column, ids);
}

}  // namespace
}  // namespace heapql
