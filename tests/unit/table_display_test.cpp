// How the result table shows frames (reports.h, DisplayOptions): short names
// by default, whole with full_names, and every line cut to the width given.
#include <gtest/gtest.h>

#include <sstream>

#include "engine/report/reports.h"
#include "tests/support/scripted_trace.h"

namespace heapql::test {
namespace {

constexpr const char* kLongFrame =
    "libstdc++.so.6!std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> "
    ">::_M_create(unsigned long&, unsigned long)";

Result one_row(ScriptedTrace& t) {
  t.alloc(1, 100, t.stack({kLongFrame, "app!Config::load(std::map<std::string, int> const&)", "app!main"}));
  Query q;
  q.by = {GroupBy::kStack};
  q.default_cull = false;
  return t.run(q);
}

std::size_t columns_of(const std::string& line) {
  std::size_t n = 0;
  for (char c : line) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

TEST(TableDisplay, ShortNamesByDefaultAndWholeOnRequest) {
  ScriptedTrace t;
  const Result r = one_row(t);
  const std::string short_table = result_table(r, t.source());
  EXPECT_NE(short_table.find("  libstdc++.so.6!std::__cxx11::basic_string<\u2026>::_M_create\n"), std::string::npos)
      << short_table;
  EXPECT_NE(short_table.find("   app!Config::load\n"), std::string::npos) << short_table;
  const std::string full_table = result_table(r, t.source(), DisplayOptions{true, 0});
  EXPECT_NE(full_table.find(std::string(kLongFrame) + "\n"), std::string::npos) << full_table;
  EXPECT_NE(full_table.find("app!Config::load(std::map<std::string, int> const&)\n"), std::string::npos);
}

TEST(TableDisplay, KeyLinesAreCutToTheWidth) {
  ScriptedTrace t;
  const Result r = one_row(t);
  for (const std::size_t width : {80u, 100u}) {
    const std::string table = result_table(r, t.source(), DisplayOptions{true, width});
    std::istringstream lines(table);
    int cut = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.find("!") == std::string::npos || line.starts_with("trace")) continue;  // key lines only
      EXPECT_LE(columns_of(line), width) << line;
      cut += line.ends_with("\u2026");
    }
    EXPECT_GE(cut, 1) << "the long frame was cut:\n" << table;
  }
}

}  // namespace
}  // namespace heapql::test
