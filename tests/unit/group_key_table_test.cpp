// GroupKeyTable: the aggregator's group keys, by value or interned, and
// their dense numbering, checked against a std::map of the same tuples.
#include "engine/query/group_key_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

#include "engine/error.h"

namespace heapql {
namespace {

using Tuple = std::vector<std::uint32_t>;

// Interns every tuple, ranks, and checks: equal tuples share a key, distinct
// ones do not, the ranked keys are exactly 0 .. count() - 1, and each key's
// values are its tuple's. Returns the tuples in the order of their keys.
std::vector<Tuple> intern_and_rank(const std::vector<GroupBy>& levels, const std::vector<Tuple>& tuples) {
  GroupKeyTable table(levels);
  std::map<Tuple, std::int32_t> first_key;
  std::vector<std::int32_t> keys;
  for (const Tuple& t : tuples) {
    const std::int32_t key = table.intern(t);
    EXPECT_GE(key, 0);
    const auto [it, added] = first_key.emplace(t, key);
    EXPECT_EQ(it->second, key) << "a tuple interned again has another key";
    keys.push_back(key);
  }
  std::set<std::int32_t> distinct(keys.begin(), keys.end());
  EXPECT_EQ(distinct.size(), first_key.size()) << "two tuples share a key";
  table.rank();
  EXPECT_EQ(table.count(), first_key.size());
  std::vector<Tuple> by_key(table.count());
  for (const auto& [tuple, key] : first_key) {
    const std::int32_t ranked = table.ranked(key);
    EXPECT_GE(ranked, 0);
    EXPECT_LT(static_cast<std::size_t>(ranked), table.count());
    Tuple values;
    for (std::size_t level = 0; level < levels.size(); ++level) values.push_back(table.value(ranked, level));
    EXPECT_EQ(values, tuple);
    EXPECT_TRUE(by_key[static_cast<std::size_t>(ranked)].empty()) << "two keys ranked alike";
    by_key[static_cast<std::size_t>(ranked)] = tuple;
  }
  return by_key;
}

TEST(GroupKeyTable, KeysByValueRankInValueOrderWithTheInvalidIdFirst) {
  const std::uint32_t invalid = 0xFFFFFFFFu;
  const std::vector<Tuple> tuples = {{7}, {3}, {invalid}, {7}, {0}, {1000000}, {3}, {invalid}, {64}, {63}};
  const std::vector<Tuple> by_key = intern_and_rank({GroupBy::kStack}, tuples);
  const std::vector<Tuple> expected = {{invalid}, {0}, {3}, {7}, {63}, {64}, {1000000}};
  EXPECT_EQ(by_key, expected);
}

TEST(GroupKeyTable, ValuesPastTheByValueLimitAreInternedAndComeLast) {
  // Ids from 2^30 - 1 on cannot be keys by value (a key is the value plus
  // one). (2^30 - 2 could, at the price of a bit for every value below it.)
  const std::vector<Tuple> tuples = {{0x7FFFFFF0u}, {5}, {(1u << 30) - 1}, {5}, {0x7FFFFFF0u}, {2}};
  const std::vector<Tuple> by_key = intern_and_rank({GroupBy::kStack}, tuples);
  const std::vector<Tuple> expected = {{2}, {5}, {0x7FFFFFF0u}, {(1u << 30) - 1}};
  EXPECT_EQ(by_key, expected);
}

TEST(GroupKeyTable, TheImpactingLevelBesideOneOther) {
  const std::vector<Tuple> tuples = {{0, 9}, {0, 4}, {0, 9}, {0, 0xFFFFFFFFu}};
  EXPECT_EQ(intern_and_rank({GroupBy::kImpacting, GroupBy::kFrame}, tuples),
            (std::vector<Tuple>{{0, 0xFFFFFFFFu}, {0, 4}, {0, 9}}));
}

TEST(GroupKeyTable, ThreadsAndSeveralLevelsAreInternedInTheOrderTheyCame) {
  // A thread id may be any 32-bit number: never a key by value.
  EXPECT_EQ(intern_and_rank({GroupBy::kThread}, {{0x0FFFFFFFu}, {1}, {0x0FFFFFFFu}, {2}}),
            (std::vector<Tuple>{{0x0FFFFFFFu}, {1}, {2}}));
  EXPECT_EQ(intern_and_rank({GroupBy::kProcess, GroupBy::kStack}, {{1, 5}, {0, 5}, {1, 5}, {1, 2}}),
            (std::vector<Tuple>{{1, 5}, {0, 5}, {1, 2}}));
}

TEST(GroupKeyTable, NoLevelsIsOneKey) {
  GroupKeyTable table({});
  EXPECT_EQ(table.intern({}), 0);
  EXPECT_EQ(table.intern({}), 0);
  table.rank();
  EXPECT_EQ(table.count(), 1u);
  EXPECT_EQ(table.ranked(0), 0);
}

TEST(GroupKeyTable, RandomTuplesAgainstAMap) {
  std::mt19937 random(20261126);
  for (const std::vector<GroupBy>& levels :
       {std::vector<GroupBy>{GroupBy::kStack}, std::vector<GroupBy>{GroupBy::kImpacting, GroupBy::kStack},
        std::vector<GroupBy>{GroupBy::kHeap, GroupBy::kKind}, std::vector<GroupBy>{GroupBy::kThread}}) {
    std::vector<Tuple> tuples;
    for (int i = 0; i < 50000; ++i) {
      Tuple t;
      for (const GroupBy level : levels) {
        const std::uint32_t pick = random() % 100;
        // Mostly small ids; some invalid or nearly; some past the by-value limit.
        std::uint32_t v = pick < 90   ? random() % 50000
                          : pick < 95 ? 0xFFFFFFFFu - random() % 3
                                      : static_cast<std::uint32_t>(random()) | (1u << 30);
        if (level == GroupBy::kImpacting) v = 0;
        t.push_back(v);
      }
      tuples.push_back(t);
    }
    const std::vector<Tuple> by_key = intern_and_rank(levels, tuples);
    if (levels.back() == GroupBy::kStack) {
      // By value: ascending by value plus one (the invalid id first), then the interned ones.
      for (std::size_t k = 1; k < by_key.size(); ++k) {
        const std::uint32_t a = by_key[k - 1].back() + 1, b = by_key[k].back() + 1;
        if (a < (1u << 30) && b < (1u << 30)) {
          EXPECT_LT(a, b) << "key " << k;
        }
        if (a >= (1u << 30)) {
          EXPECT_GE(b, 1u << 30) << "key " << k << ": a key by value after an interned one";
        }
      }
    }
  }
}

TEST(GroupKeyTable, NoKeyAfterTheNumbering) {
  GroupKeyTable table(std::vector<GroupBy>{GroupBy::kStack});
  table.intern(Tuple{4});
  table.rank();
  EXPECT_THROW(table.intern(Tuple{5}), Error);
}

}  // namespace
}  // namespace heapql
