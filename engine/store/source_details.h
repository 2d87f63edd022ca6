// What a reader tells `heapql info` about its own format (the ETL container
// and what its events held, heaptrack's file version), in a generic shape
// that the report writers print as it is and the store keeps as it is: JSON
// members and table lines. Each reader owns its format's details; reports
// and the store know only this shape.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace heapql {

// A JSON value: null, a boolean, a whole number, a string, an array, or an
// object whose members keep their order.
struct InfoValue {
  enum class Kind : std::uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

  Kind kind = Kind::kNull;
  bool flag = false;
  std::uint64_t number = 0;
  std::string text;
  std::vector<std::string> keys;  // an object's member names, beside `items`
  std::vector<InfoValue> items;   // an array's items, or an object's member values

  static InfoValue boolean(bool value) {
    InfoValue v;
    v.kind = Kind::kBool;
    v.flag = value;
    return v;
  }
  static InfoValue whole(std::uint64_t value) {
    InfoValue v;
    v.kind = Kind::kNumber;
    v.number = value;
    return v;
  }
  static InfoValue string(std::string value) {
    InfoValue v;
    v.kind = Kind::kString;
    v.text = std::move(value);
    return v;
  }
  static InfoValue array() {
    InfoValue v;
    v.kind = Kind::kArray;
    return v;
  }
  static InfoValue object() {
    InfoValue v;
    v.kind = Kind::kObject;
    return v;
  }

  // Appends to an array; returns the item.
  InfoValue& push(InfoValue item) {
    items.push_back(std::move(item));
    return items.back();
  }
  // Adds a member to an object; returns its value.
  InfoValue& set(std::string key, InfoValue value) {
    keys.push_back(std::move(key));
    items.push_back(std::move(value));
    return items.back();
  }
  // An object's member, or null when it has none of that name.
  const InfoValue* member(std::string_view key) const {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return &items[i];
    }
    return nullptr;
  }
};

struct SourceDetails {
  // Added to the table's `source` line: "format version 3, heaptrack 1.4.0".
  std::string source_line;
  // Members of `info`'s JSON object, after "capabilities" (docs/json.md).
  std::vector<std::pair<std::string, InfoValue>> json;
  // Lines at the end of `info`'s table: a label and its text.
  std::vector<std::pair<std::string, std::string>> table;
};

}  // namespace heapql
