// near_names: the "did you mean" of recipe, command, option, process and heap
// names.
#include "engine/near_names.h"

#include <gtest/gtest.h>

namespace heapql {
namespace {

using Names = std::vector<std::string>;

TEST(NearNames, OneEditPerThreeCharactersAtLeastOne) {
  EXPECT_EQ(near_names("qeury", {"run", "query", "diff"}), Names{"query"});  // a swap is one edit
  EXPECT_EQ(near_names("lst", {"list", "run"}), Names{"list"});
  EXPECT_EQ(near_names("xyz", {"list", "run"}), Names{});
}

TEST(NearNames, CaseIsIgnoredAndTheExactNameIsNoSuggestion) {
  EXPECT_EQ(near_names("LEAKS", {"leaks", "peak"}), Names{});
  EXPECT_EQ(near_names("Leak", {"leaks", "peak"}), (Names{"leaks", "peak"}));
}

TEST(NearNames, ANameCutShortOrRunOnIsNear) {
  EXPECT_EQ(near_names("memory_test", {"memory_test_app", "other"}), Names{"memory_test_app"});
  EXPECT_EQ(near_names("memory_test_app.exe", {"memory_test_app"}), Names{"memory_test_app"});
  // Containment of a letter or two is not.
  EXPECT_EQ(near_names("ab", {"cabinet"}), Names{});
}

TEST(NearNames, NearestFirstAtMostAsManyAsAsked) {
  EXPECT_EQ(near_names("heap", {"heaps", "heap_a", "heap_b", "heap_c"}, 2), (Names{"heaps", "heap_a"}));
}

TEST(NearNames, QuotedAlternatives) {
  EXPECT_EQ(quoted_alternatives({"a"}), "'a'");
  EXPECT_EQ(quoted_alternatives({"a", "b"}), "'a' or 'b'");
  EXPECT_EQ(quoted_alternatives({"a", "b", "c"}), "'a', 'b' or 'c'");
}

}  // namespace
}  // namespace heapql
