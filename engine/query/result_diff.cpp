#include "engine/query/result_diff.h"

#include <algorithm>
#include <unordered_map>

#include "engine/error.h"
#include "engine/query/row_key.h"

namespace heapql {

namespace {

std::uint64_t magnitude(std::int64_t v) {
  return v < 0 ? static_cast<std::uint64_t>(-(v + 1)) + 1 : static_cast<std::uint64_t>(v);
}

bool has_unsymbolized_frame(const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    for (const KeyValue& level : row.key) {
      for (const std::string& frame : level.frames) {
        if (frame.find("!0x") != std::string::npos) return true;
      }
      if (level.level == GroupBy::kFrame && level.text.find("!0x") != std::string::npos) return true;
    }
  }
  return false;
}

}  // namespace

ResultDiff diff_results(Result a, Result b, std::uint64_t top) {
  if (a.other || b.other) throw Error("diff: both results must be answered with no top limit");
  if (a.query.by != b.query.by) throw Error("diff: the two results are grouped differently");
  ResultDiff d;
  d.realloc_known = a.realloc_known && b.realloc_known;
  if (has_unsymbolized_frame(a.rows) || has_unsymbolized_frame(b.rows)) {
    d.notes.emplace_back(
        "unsymbolized frames (module!0xOFFSET) match across traces only where the module is the same build");
  }

  std::vector<DiffRow> rows;
  rows.reserve(a.rows.size() + b.rows.size());
  KeyIdentities identities;
  std::unordered_map<std::string, std::size_t> index;
  index.reserve(a.rows.size());
  for (Row& row : a.rows) {
    index.emplace(identities.of(row.key), rows.size());
    rows.push_back(DiffRow{std::move(row.key), row.measures, Measures{}, DiffPresence::kGone});
  }
  for (Row& row : b.rows) {
    const auto it = index.find(identities.of(row.key));
    if (it == index.end()) {
      rows.push_back(DiffRow{std::move(row.key), Measures{}, row.measures, DiffPresence::kNew});
    } else {
      rows[it->second].b = row.measures;
      rows[it->second].presence = DiffPresence::kBoth;
    }
  }
  a.rows.clear();
  b.rows.clear();

  const Measure sort = a.query.sort;
  std::sort(rows.begin(), rows.end(), [&](const DiffRow& x, const DiffRow& y) {
    const std::uint64_t vx = magnitude(x.delta(sort)), vy = magnitude(y.delta(sort));
    if (vx != vy) return vx > vy;
    return key_less(x.key, y.key);
  });
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i < top) {
      d.rows.push_back(std::move(rows[i]));
      continue;
    }
    if (!d.other) d.other = DiffRow{};
    d.other->a.add(rows[i].a);
    d.other->b.add(rows[i].b);
    ++d.other_rows;
  }
  d.totals.a = a.totals;
  d.totals.b = b.totals;
  d.a = std::move(a);
  d.b = std::move(b);
  return d;
}

}  // namespace heapql
