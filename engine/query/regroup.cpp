#include "engine/query/regroup.h"

#include <algorithm>
#include <map>

#include "engine/error.h"
#include "engine/query/row_key.h"

namespace heapql {

Result regroup_by_stack_key(Result result, std::size_t level, const StackKeyFunction& key_of, std::uint64_t top) {
  if (result.other) throw Error("regroup: the stack rows must not have been cut at a top N");
  std::vector<Row> merged;
  std::map<std::string, std::size_t> index;
  KeyIdentities identities;
  for (Row& row : result.rows) {
    if (level >= row.key.size() || row.key[level].level != GroupBy::kStack) {
      throw Error("regroup: the rows have no stack level to compute the key from");
    }
    KeyValue custom;
    custom.level = GroupBy::kCustom;
    custom.text = key_of(row.key[level]);
    row.key[level] = std::move(custom);
    const std::string id = identities.of(row.key);
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
