// semantics.md §11: exclusion (--exclude) and LeakSanitizer suppressions,
// their pattern language, and how they remove blocks.
#include <gtest/gtest.h>

#include "engine/error.h"
#include "engine/query/suppressions.h"
#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

bool suppresses(std::string_view pattern, std::string_view subject) {
  return SuppressionPattern::parse(pattern).matches(subject);
}

TEST(Semantics11Suppressions, APatternIsASubstringWithStarsAndAnchors) {
  EXPECT_TRUE(suppresses("Glib", "QEventDispatcherGlibPrivate"));
  EXPECT_FALSE(suppresses("glib", "QEventDispatcherGlibPrivate")) << "case-sensitive, as LSan";
  EXPECT_TRUE(suppresses("Dispatcher*Private", "QEventDispatcherGlibPrivate"));
  EXPECT_FALSE(suppresses("Private*Dispatcher", "QEventDispatcherGlibPrivate"));
  EXPECT_TRUE(suppresses("^QEvent", "QEventDispatcherGlibPrivate"));
  EXPECT_FALSE(suppresses("^Event", "QEventDispatcherGlibPrivate"));
  EXPECT_TRUE(suppresses("Private$", "QEventDispatcherGlibPrivate"));
  EXPECT_FALSE(suppresses("Glib$", "QEventDispatcherGlibPrivate"));
  EXPECT_TRUE(suppresses("^ld-linux-*.so.2$", "ld-linux-x86-64.so.2"));
  EXPECT_FALSE(suppresses("^ld-linux-*.so.2$", "ld-linux-x86-64.so.2.old"));
  EXPECT_TRUE(suppresses("^leak*Supp$", "leakSupp")) << "a star may match nothing";
  EXPECT_FALSE(suppresses("^ab*ba$", "aba")) << "the anchored ends may not overlap";
  EXPECT_TRUE(suppresses("^exact$", "exact"));
  EXPECT_FALSE(suppresses("^exact$", "exactly"));
  EXPECT_TRUE(suppresses("a*b*c", "xxaxxbxxcxx"));
  EXPECT_TRUE(suppresses("*", ""));
}

TEST(Semantics11Suppressions, AnEmptyPatternIsRefused) {
  for (const char* empty : {"", "^", "$", "^$"}) {
    EXPECT_THROW(SuppressionPattern::parse(empty), Error) << "'" << empty << "'";
  }
}

TEST(Semantics11Suppressions, FilesKeepLeakLinesAndNoteTheRest) {
  const SuppressionList list = parse_suppressions(
      "\xEF\xBB\xBF# a comment\n\n  leak:first  \nrace:other_tool\nnot a suppression\nleak:^second$\n", "s.txt");
  ASSERT_EQ(list.patterns.size(), 2u);
  EXPECT_EQ(list.patterns[0].text(), "first");
  EXPECT_EQ(list.patterns[1].text(), "^second$");
  ASSERT_EQ(list.notes.size(), 2u);
  EXPECT_EQ(list.notes[0], "s.txt:4: ignored, not a leak suppression: race:other_tool");
  EXPECT_EQ(list.notes[1], "s.txt:5: ignored, not a leak suppression: not a suppression");
  try {
    parse_suppressions("leak:ok\nleak:\n", "s.txt");
    ADD_FAILURE() << "an empty leak: line was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "s.txt:2: suppression '': an empty pattern would suppress every leak");
  }
}

TEST(Semantics11Suppressions, EmbeddedOnesFromAHostileTraceAreBounded) {
  const std::vector<std::string> few = {"leak:a", "# a comment", "leak:^b$"};
  EXPECT_EQ(parse_embedded_suppressions(few, "t.zst").patterns.size(), 2u);
  const std::vector<std::string> many(10001, "leak:x");
  EXPECT_THROW(parse_embedded_suppressions(many, "t.zst"), Error);
  const std::vector<std::string> long_one = {"leak:" + std::string(5000, 'a')};
  try {
    parse_embedded_suppressions(long_one, "t.zst");
    ADD_FAILURE() << "a 5 KB embedded suppression was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "t.zst: embedded suppression 1 is 5005 bytes long; heapql applies none longer than 4096");
  }
}

Query totals_query() {
  Query q;
  q.default_cull = false;
  return q;
}

TEST(Semantics11Exclusion, ExcludeDropsBlocksWithAMatchingFrameAnywhereInTheFullStack) {
  ScriptedTrace t;
  t.alloc(1, 1, t.stack({"libc.so.6!malloc", "app!leaky", "app!main"}));
  t.alloc(2, 2, t.stack({"libc.so.6!malloc", "app!fine", "app!main"}));
  t.alloc(3, 4, t.stack({"app!other"}));
  Query q = totals_query();
  q.default_cull = true;
  q.exclude = {"libc.so.6!malloc"};  // culled away in the key, still excluded
  Result r = t.run(q);
  EXPECT_EQ(r.totals.st, 4u);
  EXPECT_EQ(r.excluded_blocks, 2u);
  EXPECT_EQ(r.excluded_bytes, 3u);
  q.exclude = {"LEAKY"};  // frame pattern syntax (§5): case-insensitive, whole symbol
  EXPECT_EQ(t.run(q).totals.st, 6u);
  q.exclude = {"leak"};
  EXPECT_EQ(t.run(q).totals.st, 7u);
}

TEST(Semantics11Exclusion, ExcludeIsTheComplementOfRequire) {
  ScriptedTrace t;
  t.alloc(1, 1, t.stack({"app!a", "app!main"}));
  t.alloc(2, 20, t.stack({"app!b", "app!main"}));
  t.alloc(3, 300, t.stack({"app!c", "app!b", "app!main"}));
  t.free(2);
  Query kept = totals_query();
  kept.require = {"app!b"};
  Query dropped = totals_query();
  dropped.exclude = {"app!b"};
  const Result all = t.run(totals_query());
  const Result with = t.run(kept);
  const Result without = t.run(dropped);
  EXPECT_EQ(with.totals.st + without.totals.st, all.totals.st);
  EXPECT_EQ(with.totals.so + without.totals.so, all.totals.so);
  EXPECT_EQ(with.totals.stc + without.totals.stc, all.totals.stc);
  EXPECT_EQ(without.totals.st, 1u);
}

TEST(Semantics11Exclusion, SuppressionsMatchTheFunctionOrTheModule) {
  ScriptedTrace t;
  t.alloc(1, 1, t.stack({"libc.so.6!malloc", "app!Cache::load()", "app!main"}));
  t.alloc(2, 2, t.stack({"libglib-2.0.so.0!g_thread_self", "app!main"}));
  t.alloc(3, 4, t.stack({"app!main"}));
  Query q = totals_query();
  q.suppressions = {"Cache::"};
  EXPECT_EQ(t.run(q).totals.st, 6u);
  q.suppressions = {"^libglib-*.so.0$"};  // the module, as frames show it
  EXPECT_EQ(t.run(q).totals.st, 5u);
  q.suppressions = {"Cache::", "g_thread_self"};
  const Result r = t.run(q);
  EXPECT_EQ(r.totals.st, 4u);
  EXPECT_EQ(r.excluded_blocks, 2u);
  q.suppressions = {"^main"};  // "app" is the module, "main" the function: anchored to the function
  EXPECT_EQ(t.run(q).totals.st, 0u);
}

}  // namespace
}  // namespace heapql::test
