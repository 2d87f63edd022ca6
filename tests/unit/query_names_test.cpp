// Names of measures, levels and impacting types as queries spell them
// (query.h): impacting types in any case, and any byte of a name, 0x80 and
// above too, compared without undefined behaviour (std::toupper of a
// negative char).
#include <gtest/gtest.h>

#include <string>

#include "engine/query/query.h"

namespace heapql::test {
namespace {

TEST(QueryNames, ImpactingTypesInAnyCase) {
  EXPECT_EQ(parse_impacting("AIFO"), Impacting::kAifo);
  EXPECT_EQ(parse_impacting("aofi"), Impacting::kAofi);
  EXPECT_EQ(parse_impacting("AoFo"), Impacting::kAofo);
  EXPECT_EQ(parse_impacting("aifi"), Impacting::kAifi);
  EXPECT_EQ(parse_impacting("AIF"), std::nullopt);
}

TEST(QueryNames, BytesFrom0x80AreNoLetterOfAnyName) {
  for (int byte = 0x80; byte <= 0xFF; ++byte) {
    const char c = static_cast<char>(byte);
    for (std::string name : {"AIFI", "aifo", "AOFI", "aofo"}) {
      for (std::size_t at = 0; at < name.size(); ++at) {
        std::string spelled = name;
        spelled[at] = c;
        EXPECT_EQ(parse_impacting(spelled), std::nullopt) << byte << " at " << at;
      }
    }
    EXPECT_EQ(parse_measure(std::string("s") + c), std::nullopt) << byte;
    EXPECT_EQ(parse_group_by(std::string("stack") + c), std::nullopt) << byte;
  }
}

}  // namespace
}  // namespace heapql::test
