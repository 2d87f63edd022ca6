// JSON strings (engine/report/json_writer.h): escapes, and valid UTF-8 always
// (RFC 8259), a byte outside a valid sequence given as U+FFFD.
#include "engine/report/json_writer.h"

#include <gtest/gtest.h>

#include <string>

namespace heapql::test {
namespace {

std::string json_string(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

TEST(JsonString, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(json_string("a\"b\\c\nd\re\tf\x01g"), "\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\"");
}

TEST(JsonString, KeepsValidUtf8AsItIs) {
  for (const char* text : {"caf\xC3\xA9", "\xE2\x82\xAC 5", "\xF0\x9F\x98\x80", "\xED\x9F\xBF", "\xEE\x80\x80",
                           "\xF4\x8F\xBF\xBF", "\xE0\xA0\x80", "\xF0\x90\x80\x80"}) {
    EXPECT_EQ(json_string(text), "\"" + std::string(text) + "\"") << text;
  }
}

TEST(JsonString, GivesEachByteOutsideValidUtf8AsTheReplacementCharacter) {
  EXPECT_EQ(json_string("caf\xE9"), "\"caf\\ufffd\"");                             // Latin-1
  EXPECT_EQ(json_string("\xFF\xFE"), "\"\\ufffd\\ufffd\"");                        // never in UTF-8
  EXPECT_EQ(json_string("\x80x"), "\"\\ufffdx\"");                                 // a stray continuation
  EXPECT_EQ(json_string("\xC0\xAF"), "\"\\ufffd\\ufffd\"");                        // overlong '/'
  EXPECT_EQ(json_string("\xE0\x80\xAF"), "\"\\ufffd\\ufffd\\ufffd\"");             // overlong, 3 bytes
  EXPECT_EQ(json_string("\xED\xA0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");             // a surrogate
  EXPECT_EQ(json_string("\xF4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // past U+10FFFF
  EXPECT_EQ(json_string("ab\xE2\x82"), "\"ab\\ufffd\\ufffd\"");                    // cut short at the end
  EXPECT_EQ(json_string("\xE2\x82x"), "\"\\ufffd\\ufffdx\"");                      // cut short by ASCII
}

}  // namespace
}  // namespace heapql::test
