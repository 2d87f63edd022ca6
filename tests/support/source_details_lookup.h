// A reader's details (engine/store/source_details.h) looked up by path, as
// `info --format json` shows them: detail(source, {"etw", "stacks",
// "key_uses"}), an array item by its index ({"heaps", "0", "created"}).
// Throws std::out_of_range for a path that is not there.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/store/source_info.h"

namespace heapql::test {

inline const InfoValue& detail(const SourceInfo& source, std::initializer_list<std::string_view> path) {
  auto step = path.begin();
  const InfoValue* value = nullptr;
  for (const auto& [key, member] : source.details.json) {
    if (key == *step) value = &member;
  }
  for (++step; value != nullptr && step != path.end(); ++step) {
    if (value->kind == InfoValue::Kind::kArray) {
      const std::size_t index = std::stoul(std::string(*step));
      value = index < value->items.size() ? &value->items[index] : nullptr;
    } else {
      value = value->member(*step);
    }
  }
  if (value == nullptr) throw std::out_of_range("no such detail: " + std::string(*path.begin()) + "...");
  return *value;
}

}  // namespace heapql::test
