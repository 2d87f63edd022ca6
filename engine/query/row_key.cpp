#include "engine/query/row_key.h"

#include <algorithm>

namespace heapql {

namespace {

int compare_stacks(const StackFrames& a, const StackFrames& b) {
  const bool one_table = a.table() == b.table();
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (one_table && a.index(i) == b.index(i)) continue;  // the same frame: the same text
    const int c = a[i].compare(b[i]);
    if (c != 0) return c < 0 ? -1 : 1;
  }
  return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

int compare_key_value(const KeyValue& a, const KeyValue& b) {
  if (a.level == GroupBy::kStack) return compare_stacks(a.frames, b.frames);
  return a.text.compare(b.text) < 0 ? -1 : (a.text == b.text ? 0 : 1);
}

void append_number(std::string& out, std::uint32_t n) {
  for (int byte = 0; byte < 4; ++byte) out += static_cast<char>((n >> (8 * byte)) & 0xFFu);
}

}  // namespace

bool key_less(const std::vector<KeyValue>& a, const std::vector<KeyValue>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const int c = compare_key_value(a[i], b[i]);
    if (c != 0) return c < 0;
  }
  return a.size() < b.size();
}

std::string KeyIdentities::of(const std::vector<KeyValue>& key) {
  // Each level: its kind, then a stack's frame count and frame numbers (four
  // bytes each) or a text's length and bytes: no two keys read alike.
  std::string id;
  for (const KeyValue& k : key) {
    id += static_cast<char>('0' + static_cast<int>(k.level));
    if (k.level == GroupBy::kStack) {
      append_number(id, static_cast<std::uint32_t>(k.frames.size()));
      if (k.frames.empty()) continue;
      TableNumbers& table = numbers_of(k.frames);
      for (std::size_t i = 0; i < k.frames.size(); ++i) append_number(id, text_number(table, k.frames, i));
    } else {
      id += std::to_string(k.text.size()) + ':' + k.text;
    }
  }
  return id;
}

KeyIdentities::TableNumbers& KeyIdentities::numbers_of(const StackFrames& frames) {
  TableNumbers& table = tables_[frames.table()];
  if (!table.table) {
    table.table = frames.shared_table();
    table.numbers.assign(frames.table()->size(), 0);
  }
  return table;
}

std::uint32_t KeyIdentities::text_number(TableNumbers& table, const StackFrames& frames, std::size_t i) {
  std::uint32_t& number = table.numbers[frames.index(i)];
  if (number == 0) {
    const auto [it, inserted] = numbers_.emplace(frames[i], static_cast<std::uint32_t>(numbers_.size()));
    number = it->second + 1;
  }
  return number - 1;
}

}  // namespace heapql
