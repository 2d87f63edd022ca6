// The store's source record keeps a reader's details (source_details.h) as
// they are, and refuses details a hostile file could hurt it with: nesting
// deeper than any reader writes, unknown kinds, members that do not match.
#include <gtest/gtest.h>

#include <string>

#include "engine/error.h"
#include "engine/store_file/source_record.h"

namespace heapql::test {
namespace {

using store_file::ByteReader;
using store_file::SourceRecord;

SourceRecord round_trip(const SourceRecord& record) {
  const std::string bytes = store_file::encode_source_record(record);
  ByteReader in(bytes, "t.hqdb", "source", 64);
  return store_file::decode_source_record(in);
}

std::string refusal(const SourceRecord& record) {
  try {
    round_trip(record);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool same(const InfoValue& a, const InfoValue& b) {
  if (a.kind != b.kind || a.flag != b.flag || a.number != b.number || a.text != b.text || a.keys != b.keys ||
      a.items.size() != b.items.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    if (!same(a.items[i], b.items[i])) return false;
  }
  return true;
}

// `levels` arrays, each holding the next; the innermost holds a number.
InfoValue nested(int levels) {
  InfoValue value = InfoValue::whole(7);
  for (int i = 0; i < levels; ++i) {
    InfoValue outer = InfoValue::array();
    outer.push(std::move(value));
    value = std::move(outer);
  }
  return value;
}

TEST(SourceRecord, KeepsDetailsAsTheyAre) {
  SourceRecord record;
  record.info.details.source_line = "format version 3, heaptrack 1.4.0";
  InfoValue object = InfoValue::object();
  object.set("name", InfoValue::string("x.exe"));
  object.set("created", InfoValue::boolean(true));
  object.set("pdb", InfoValue());
  object.set("counts", InfoValue::array()).push(InfoValue::whole(42));
  record.info.details.json.emplace_back("etw", object);
  record.info.details.json.emplace_back("deep", nested(15));
  record.info.details.table.emplace_back("etl", "3 buffers");
  const SourceRecord back = round_trip(record);
  EXPECT_EQ(back.info.details.source_line, record.info.details.source_line);
  ASSERT_EQ(back.info.details.json.size(), 2u);
  EXPECT_EQ(back.info.details.json[0].first, "etw");
  EXPECT_TRUE(same(back.info.details.json[0].second, object));
  EXPECT_TRUE(same(back.info.details.json[1].second, nested(15)));
  EXPECT_EQ(back.info.details.table, record.info.details.table);
}

TEST(SourceRecord, RefusesDetailsNestedTooDeep) {
  SourceRecord record;
  record.info.details.json.emplace_back("deep", nested(17));
  EXPECT_NE(refusal(record).find("details nested too deep"), std::string::npos) << refusal(record);
  record.info.details.json.back().second = nested(16);
  EXPECT_EQ(refusal(record), "");
}

TEST(SourceRecord, RefusesDetailsOfAnUnknownKind) {
  SourceRecord record;
  InfoValue odd;
  odd.kind = static_cast<InfoValue::Kind>(9);
  record.info.details.json.emplace_back("odd", odd);
  const std::string message = refusal(record);
  EXPECT_NE(message.find("t.hqdb"), std::string::npos) << message;
  EXPECT_NE(message.find("a detail of an unknown kind"), std::string::npos) << message;
}

TEST(SourceRecord, RefusesDetailsWhoseMembersDoNotMatchTheirKind) {
  InfoValue object_without_names = InfoValue::object();
  object_without_names.items.push_back(InfoValue::whole(1));
  InfoValue array_with_names = InfoValue::array();
  array_with_names.keys.push_back("a");
  InfoValue number_with_items = InfoValue::whole(1);
  number_with_items.items.push_back(InfoValue());
  for (const InfoValue& bad : {object_without_names, array_with_names, number_with_items}) {
    SourceRecord record;
    record.info.details.json.emplace_back("bad", bad);
    EXPECT_NE(refusal(record).find("a detail whose members do not match its kind"), std::string::npos)
        << refusal(record);
  }
}

}  // namespace
}  // namespace heapql::test
