// tests/support/strict_json_reader: the Windows tests' JSON reader agrees with
// python3's (flat_json.cpp) on heapql's own reports, and refuses what is not
// JSON.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/support/flat_json.h"
#include "tests/support/strict_json_reader.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

TEST(StrictJsonReader, AgreesWithPython3OnHeapqlsReports) {
  HEAPQL_SKIP_ON_WINDOWS("python3 is the Linux side of the comparison");
  const std::string trace = shell_quote(example_trace());
  for (const std::string& arguments :
       {"query " + trace + " --format json", "query " + trace + " --by stack --top 5 --format json",
        "query " + trace + " --by frame --sort stc --format json", "info " + trace + " --format json",
        "diff " + trace + " " + trace + " --format json"}) {
    const CommandResult r = run_heapql(arguments);
    ASSERT_EQ(r.exit_code, 0) << arguments << "\n" << r.err;
    const FlatJson from_python = flatten_json(r.out);
    ASSERT_GT(from_python.size(), 5u) << arguments;
    const FlatJson ours = read_json_strictly(r.out);
    for (const auto& [key, value] : from_python) {
      const auto it = ours.find(key);
      EXPECT_TRUE(it != ours.end() && it->second == value)
          << arguments << ": " << key << " is " << value << " to python3, "
          << (it == ours.end() ? std::string("missing") : it->second) << " to ours";
    }
    EXPECT_EQ(ours.size(), from_python.size()) << arguments;
  }
}

TEST(StrictJsonReader, ReadsEscapesAndNumbersAsWritten) {
  const FlatJson j = read_json_strictly(
      R"J({"a":{"b":"x\"\\\/\n\u00e9\ud83d\ude00","n":-1.5e+3,"z":0,"t":true,"u":null},)J"
      R"J("rows":[{"key":["f()","g"],"so":3}],"list":[1,[2]]})J");
  EXPECT_EQ(j.at("a.b"), "x\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(j.at("a.n"), "-1.5e+3");
  EXPECT_EQ(j.at("a.z"), "0");
  EXPECT_EQ(j.at("a.t"), "true");
  EXPECT_EQ(j.at("a.u"), "null");
  EXPECT_EQ(j.at("rows.length"), "1");
  EXPECT_EQ(j.at("rows.f() > g.so"), "3");
  EXPECT_EQ(j.at("list.length"), "2");
  EXPECT_EQ(j.at("list.1.length"), "1");
  EXPECT_EQ(j.at("list.1.0"), "2");
}

TEST(StrictJsonReader, RefusesWhatIsNotJson) {
  for (const std::string text : {"", "{", "{\"a\":1,}", "[1,]", "{'a':1}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":nul}",
                                  "{\"a\":\"\x01\"}", "{\"a\":\"\\x\"}", "{\"a\":1} x", "[\"unterminated]"}) {
    EXPECT_THROW(read_json_strictly(text), std::runtime_error) << text;
  }
}

}  // namespace
}  // namespace heapql::test
