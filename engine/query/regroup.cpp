#include "engine/query/regroup.h"

#include <algorithm>
#include <map>

#include "engine/error.h"

namespace heapql {

namespace {

// Key order of semantics.md §3 on rendered keys: level by level; stacks frame
// by frame with a prefix first; text by its bytes.
int compare_key_value(const KeyValue& a, const KeyValue& b) {
  if (a.level == GroupBy::kStack) {
    const auto [ia, ib] = std::mismatch(a.frames.begin(), a.frames.end(), b.frames.begin(), b.frames.end());
    if (ia == a.frames.end()) return ib == b.frames.end() ? 0 : -1;
    if (ib == b.frames.end()) return 1;
    return *ia < *ib ? -1 : 1;
  }
  return a.text.compare(b.text) < 0 ? -1 : (a.text == b.text ? 0 : 1);
}

bool key_less(const std::vector<KeyValue>& a, const std::vector<KeyValue>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const int c = compare_key_value(a[i], b[i]);
    if (c != 0) return c < 0;
  }
  return a.size() < b.size();
}

// A merge key: the key values joined with separators that cannot be confused.
std::string identity_of(const std::vector<KeyValue>& key) {
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

}  // namespace

Result regroup_by_stack_key(Result result, std::size_t level, const StackKeyFunction& key_of, std::uint64_t top) {
  if (result.other) throw Error("regroup: the stack rows must not have been cut at a top N");
  std::vector<Row> merged;
  std::map<std::string, std::size_t> index;
  for (Row& row : result.rows) {
    if (level >= row.key.size() || row.key[level].level != GroupBy::kStack) {
      throw Error("regroup: the rows have no stack level to compute the key from");
    }
    KeyValue custom;
    custom.level = GroupBy::kCustom;
    custom.text = key_of(row.key[level]);
    row.key[level] = std::move(custom);
    const std::string id = identity_of(row.key);
    const auto [it, inserted] = index.emplace(id, merged.size());
    if (inserted) {
      merged.push_back(std::move(row));
    } else {
      merged[it->second].measures.add(row.measures);
    }
  }
  const Measure sort = result.query.sort;
  std::sort(merged.begin(), merged.end(), [&](const Row& a, const Row& b) {
    const std::uint64_t va = a.measures.value(sort), vb = b.measures.value(sort);
    if (va != vb) return va > vb;
    return key_less(a.key, b.key);
  });
  result.rows.clear();
  result.other.reset();
  result.other_rows = 0;
  for (std::size_t i = 0; i < merged.size(); ++i) {
    if (i < top) {
      result.rows.push_back(std::move(merged[i]));
      continue;
    }
    if (!result.other) result.other = Measures{};
    result.other->add(merged[i].measures);
    ++result.other_rows;
  }
  result.query.by[level] = GroupBy::kCustom;
  result.query.top = top;
  return result;
}

}  // namespace heapql
