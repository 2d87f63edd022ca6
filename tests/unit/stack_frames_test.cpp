// Stack keys' frames as shared texts (StackFrames), and rows matched and
// ordered by them (KeyIdentities, key_less): a result's rows share one text
// per frame; keys from two traces' results match by text, not by where the
// text is kept; no two different keys share an identity.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/query/row_key.h"
#include "engine/query/stack_frames.h"
#include "tests/support/key_values.h"
#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

TEST(StackFrames, ReadsTheSharedTableInOrderBothWays) {
  const auto table = std::make_shared<const FrameTextTable>(FrameTextTable{"a!main", "a!f", "a!g"});
  const StackFrames frames(table, {2, 1, 0});  // top first
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames.front(), "a!g");
  EXPECT_EQ(frames.back(), "a!main");
  EXPECT_EQ(frames.to_vector(), (std::vector<std::string>{"a!g", "a!f", "a!main"}));
  EXPECT_EQ(std::vector<std::string>(frames.rbegin(), frames.rend()),
            (std::vector<std::string>{"a!main", "a!f", "a!g"}));
  EXPECT_EQ(frames.end() - frames.begin(), 3);
  EXPECT_TRUE(StackFrames().empty());
}

TEST(StackFrames, EqualByTextWhateverTheTable) {
  const auto one = std::make_shared<const FrameTextTable>(FrameTextTable{"m!x", "m!y"});
  const auto other = std::make_shared<const FrameTextTable>(FrameTextTable{"m!y", "m!z", "m!x"});
  EXPECT_EQ(StackFrames(one, {1, 0}), StackFrames(other, {0, 2}));
  EXPECT_FALSE(StackFrames(one, {1, 0}) == StackFrames(other, {0, 1}));
  EXPECT_FALSE(StackFrames(one, {1}) == StackFrames(one, {1, 0}));  // a prefix is another stack
  EXPECT_EQ(StackFrames(one, {1, 0}), (std::vector<std::string>{"m!y", "m!x"}));
  EXPECT_EQ(StackFrames(std::vector<std::string>{"m!y", "m!x"}), StackFrames(one, {1, 0}));
}

TEST(KeyIdentities, MatchEqualKeysAcrossTablesAndTellEveryOtherKeyApart) {
  const auto one = std::make_shared<const FrameTextTable>(FrameTextTable{"m!x", "m!y", "m!x|y", "1:m"});
  const auto other = std::make_shared<const FrameTextTable>(FrameTextTable{"m!y", "m!x"});
  KeyIdentities ids;
  // The same frames from two tables: one identity.
  EXPECT_EQ(ids.of({stack_key(StackFrames(one, {1, 0}))}), ids.of({stack_key(StackFrames(other, {0, 1}))}));
  EXPECT_EQ(ids.of({text_key(GroupBy::kProcess, "p (1)"), stack_key(StackFrames(one, {0}))}),
            ids.of({text_key(GroupBy::kProcess, "p (1)"), stack_key(StackFrames(other, {1}))}));
  // Different keys, some made to look alike when joined as text.
  const std::vector<std::vector<KeyValue>> keys = {
      {stack_key(StackFrames(one, {0}))},
      {stack_key(StackFrames(one, {0, 1}))},
      {stack_key(StackFrames(one, {1, 0}))},
      {stack_key(StackFrames(one, {2}))},
      {stack_key(StackFrames(one, {3}))},
      {stack_key(StackFrames())},
      {stack_key(StackFrames(one, {0})), stack_key(StackFrames(one, {1}))},
      {text_key(GroupBy::kFrame, "m!x")},
      {text_key(GroupBy::kImage, "m!x")},
      {text_key(GroupBy::kProcess, "m"), text_key(GroupBy::kHeap, "x")},
      {text_key(GroupBy::kProcess, "m|x")},
  };
  std::set<std::string> seen;
  for (const auto& key : keys) EXPECT_TRUE(seen.insert(ids.of(key)).second);
}

TEST(KeyLess, OrdersStacksFrameByFrameWithAPrefixFirstAcrossTables) {
  const auto one = std::make_shared<const FrameTextTable>(FrameTextTable{"m!a", "m!b", "m!c"});
  const auto other = std::make_shared<const FrameTextTable>(FrameTextTable{"m!c", "m!b", "m!a"});
  const auto key = [](StackFrames f) { return std::vector<KeyValue>{stack_key(std::move(f))}; };
  EXPECT_TRUE(key_less(key(StackFrames(one, {0})), key(StackFrames(one, {0, 1}))));  // prefix first
  EXPECT_FALSE(key_less(key(StackFrames(one, {0, 1})), key(StackFrames(one, {0}))));
  EXPECT_TRUE(key_less(key(StackFrames(one, {0, 1})), key(StackFrames(other, {2, 0}))));  // m!b < m!c
  EXPECT_FALSE(key_less(key(StackFrames(one, {0, 1})), key(StackFrames(other, {2, 1}))));  // equal
  EXPECT_FALSE(key_less(key(StackFrames(other, {2, 1})), key(StackFrames(one, {0, 1}))));
  // The same index in two tables is not the same text.
  EXPECT_TRUE(key_less(key(StackFrames(one, {0})), key(StackFrames(other, {0}))));  // m!a < m!c
}

// hash, same and rank_keys against what they stand for: `of` and key_less,
// on random keys of a process and a stack from two tables with texts in common.
TEST(RankKeys, AgreeWithKeyLessAndIdentitiesAcrossTables) {
  const auto one = std::make_shared<const FrameTextTable>(FrameTextTable{"m!a", "m!b", "m!c", "m!b"});
  const auto other = std::make_shared<const FrameTextTable>(FrameTextTable{"m!c", "m!d", "m!a"});
  std::mt19937 random(11);
  std::vector<std::vector<KeyValue>> keys;
  for (int k = 0; k < 300; ++k) {
    const auto& table = k % 2 ? one : other;
    std::vector<std::uint32_t> indexes(random() % 5);
    for (std::uint32_t& i : indexes) i = static_cast<std::uint32_t>(random() % table->size());
    keys.push_back({text_key(GroupBy::kProcess, random() % 4 ? "p (1)" : "q (2)"), stack_key(StackFrames(table, indexes))});
  }
  KeyIdentities ids;
  std::vector<const std::vector<KeyValue>*> pointers;
  for (const auto& key : keys) pointers.push_back(&key);
  const std::vector<std::uint32_t> ranks = rank_keys(pointers, ids);
  for (std::size_t a = 0; a < keys.size(); ++a) {
    for (std::size_t b = 0; b < keys.size(); ++b) {
      ASSERT_EQ(ranks[a] < ranks[b], key_less(keys[a], keys[b])) << a << " " << b;
      const bool alike = ids.of(keys[a]) == ids.of(keys[b]);
      ASSERT_EQ(ranks[a] == ranks[b], alike) << a << " " << b;
      ASSERT_EQ(ids.same(keys[a], keys[b]), alike) << a << " " << b;
      if (alike) {
        ASSERT_EQ(ids.hash(keys[a]), ids.hash(keys[b])) << a << " " << b;
      }
    }
  }
}

TEST(StackFrames, TheRowsOfOneResultShareOneTextPerFrame) {
  ScriptedTrace t(BlockIdentity::kBucketLifo);
  t.at_ms(0);
  for (int i = 0; i < 50; ++i) {
    const StackId s = t.stack({"app!leaf" + std::to_string(i), "app!work(std::vector<int> const&)", "app!main"});
    t.alloc(0, 16 + static_cast<std::uint64_t>(i), s);
  }
  Query q;
  q.by = {GroupBy::kStack};
  q.default_cull = false;
  const Result r = t.run(q);
  ASSERT_EQ(r.rows.size(), 50u);
  const FrameTextTable* table = r.rows[0].key[0].frames.table();
  ASSERT_NE(table, nullptr);
  for (const Row& row : r.rows) {
    const StackFrames& frames = row.key[0].frames;
    ASSERT_EQ(frames.size(), 3u);
    EXPECT_EQ(frames.table(), table);
    EXPECT_EQ(frames.index(1), r.rows[0].key[0].frames.index(1));  // one "app!work(...)" for all rows
    EXPECT_EQ(frames[1], "app!work(std::vector<int> const&)");
  }
  EXPECT_EQ(r.rows[0].key[0].frames.front(), "app!leaf49");  // the biggest
}

}  // namespace
}  // namespace heapql::test
