#include "engine/query/row_key.h"

#include <algorithm>

namespace heapql {

namespace {

int compare_key_value(const KeyValue& a, const KeyValue& b) {
  if (a.level == GroupBy::kStack) {
    const auto [ia, ib] = std::mismatch(a.frames.begin(), a.frames.end(), b.frames.begin(), b.frames.end());
    if (ia == a.frames.end()) return ib == b.frames.end() ? 0 : -1;
    if (ib == b.frames.end()) return 1;
    return *ia < *ib ? -1 : 1;
  }
  return a.text.compare(b.text) < 0 ? -1 : (a.text == b.text ? 0 : 1);
}

}  // namespace

bool key_less(const std::vector<KeyValue>& a, const std::vector<KeyValue>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const int c = compare_key_value(a[i], b[i]);
    if (c != 0) return c < 0;
  }
  return a.size() < b.size();
}

std::string key_identity(const std::vector<KeyValue>& key) {
  std::string id;
  for (const KeyValue& k : key) {
    id += static_cast<char>('0' + static_cast<int>(k.level));
    if (k.level == GroupBy::kStack) {
      for (const std::string& f : k.frames) id += std::to_string(f.size()) + ':' + f;
    } else {
      id += std::to_string(k.text.size()) + ':' + k.text;
    }
    id += '|';
  }
  return id;
}

}  // namespace heapql
