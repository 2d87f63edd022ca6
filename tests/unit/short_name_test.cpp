// Short frame names (engine/query/short_name.h): template arguments
// collapsed, the parameter list dropped, operators and modules kept.
#include <gtest/gtest.h>

#include "engine/query/short_name.h"

namespace heapql::test {
namespace {

TEST(ShortFrameName, CollapsesTemplatesAndDropsParameters) {
  EXPECT_EQ(short_frame_name("libstdc++.so.6!std::__cxx11::basic_string<char, std::char_traits<char>, "
                             "std::allocator<char> >::_M_create(unsigned long&, unsigned long)"),
            "libstdc++.so.6!std::__cxx11::basic_string<\u2026>::_M_create");
  EXPECT_EQ(short_frame_name("app!std::vector<std::pair<int, int>, std::allocator<std::pair<int, int> > >::push_back("
                             "std::pair<int, int> const&) const &"),
            "app!std::vector<\u2026>::push_back");
  EXPECT_EQ(short_frame_name("demo!main"), "demo!main");
  EXPECT_EQ(short_frame_name("demo!make_node(Node*)"), "demo!make_node");
  EXPECT_EQ(short_frame_name("demo!0x1a30"), "demo!0x1a30");
  EXPECT_EQ(short_frame_name("?!0x7ffe1234"), "?!0x7ffe1234");
}

TEST(ShortFrameName, KeepsWhatIsNotAParameterListOrTemplate) {
  EXPECT_EQ(short_frame_name("app!(anonymous namespace)::Pool::grow(unsigned long)"),
            "app!(anonymous namespace)::Pool::grow");
  EXPECT_EQ(short_frame_name("app!(anonymous namespace)::init"), "app!(anonymous namespace)::init");
  EXPECT_EQ(short_frame_name("app!Matrix::operator<<(std::ostream&)"), "app!Matrix::operator<<");
  EXPECT_EQ(short_frame_name("app!Cmp::operator<(Key const&) const"), "app!Cmp::operator<");
  EXPECT_EQ(short_frame_name("app!std::map<int, int>::operator[](int const&)"), "app!std::map<\u2026>::operator[]");
  EXPECT_EQ(short_frame_name("app!Ptr<Node>::operator->() const"), "app!Ptr<\u2026>::operator->");
  EXPECT_EQ(short_frame_name("app!f(int) [clone .cold]"), "app!f(int) [clone .cold]") << "not only qualifiers after it";
  EXPECT_EQ(short_frame_name("app!unbalanced<int"), "app!unbalanced<int");
  EXPECT_EQ(short_frame_name("no module here(int)"), "no module here");
  EXPECT_EQ(short_frame_name(""), "");
}

TEST(ShortFrameName, TakesTimeLinearInTheName) {
  // Symbols come from the trace: a fuzzed one of 2 KB of brackets took a
  // third of a second when each `<` looked for its `>` to the end. At this
  // length a quadratic search would not finish within the test's timeout.
  const std::string brackets(400000, '<');
  EXPECT_EQ(short_frame_name("app!" + brackets + "x"), "app!" + brackets + "x");
  std::string nested = "app!f";
  for (int i = 0; i < 100000; ++i) nested += "<a";
  nested += std::string(100000, '>') + "(int)";
  EXPECT_EQ(short_frame_name(nested), "app!f<\u2026>");
}

}  // namespace
}  // namespace heapql::test
