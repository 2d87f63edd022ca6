#include "engine/query/result_diff.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>

#include "engine/error.h"
#include "engine/query/row_key.h"

namespace heapql {

namespace {

std::uint64_t magnitude(std::int64_t v) {
  return v < 0 ? static_cast<std::uint64_t>(-(v + 1)) + 1 : static_cast<std::uint64_t>(v);
}

// Each frame text a row's stack uses is looked at once, however many rows
// share it (walk: 1.7 M stacks, tens of frames each, over 0.1 M texts).
bool has_unsymbolized_frame(const std::vector<Row>& rows) {
  const auto unsymbolized = [](const std::string& text) { return text.find("!0x") != std::string::npos; };
  std::unordered_map<const FrameTextTable*, std::vector<bool>> seen;
  for (const Row& row : rows) {
    for (const KeyValue& level : row.key) {
      if (level.level == GroupBy::kFrame && unsymbolized(level.text)) return true;
      if (level.frames.empty()) continue;
      std::vector<bool>& seen_in_table = seen[level.frames.table()];
      seen_in_table.resize(level.frames.table()->size());
      for (std::size_t i = 0; i < level.frames.size(); ++i) {
        const std::uint32_t index = level.frames.index(i);
        if (seen_in_table[index]) continue;
        seen_in_table[index] = true;
        if (unsymbolized(level.frames[i])) return true;
      }
    }
  }
  return false;
}

// Rows of `a` by the hash of their key's identity, to find B's rows in.
class RowsByIdentity {
 public:
  RowsByIdentity(const std::vector<Row>& rows, KeyIdentities& identities) : rows_(rows), identities_(identities) {
    entries_.reserve(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) entries_.push_back({hash(identities.of(rows[i].key)), i});
    std::sort(entries_.begin(), entries_.end());
  }

  // The row of `a` whose key renders as `key` does, if any.
  std::optional<std::size_t> find(const std::vector<KeyValue>& key) {
    const std::string identity = identities_.of(key);
    const Entry probe{hash(identity), 0};
    for (auto it = std::lower_bound(entries_.begin(), entries_.end(), probe);
         it != entries_.end() && it->hash == probe.hash; ++it) {
      if (identities_.of(rows_[it->row].key) == identity) return it->row;
    }
    return std::nullopt;
  }

 private:
  // Hashes, not the identity strings: those of walk's 1.7 M stacks took
  // hundreds of megabytes.
  struct Entry {
    std::size_t hash;
    std::size_t row;
    auto operator<=>(const Entry&) const = default;
  };
  static std::size_t hash(const std::string& identity) { return std::hash<std::string>{}(identity); }

  const std::vector<Row>& rows_;
  KeyIdentities& identities_;
  std::vector<Entry> entries_;
};

}  // namespace

ResultDiff diff_results(std::shared_ptr<const Result> a, std::shared_ptr<const Result> b, std::uint64_t top) {
  if (a->other || b->other) throw Error("diff: both results must be answered with no top limit");
  if (a->query.by != b->query.by) throw Error("diff: the two results are grouped differently");
  ResultDiff d;
  d.realloc_known = a->realloc_known && b->realloc_known;
  if (has_unsymbolized_frame(a->rows) || has_unsymbolized_frame(b->rows)) {
    d.notes.emplace_back(
        "unsymbolized frames (module!0xOFFSET) match across traces only where the module is the same build");
  }

  std::vector<DiffRow> rows;
  rows.reserve(a->rows.size() + b->rows.size());
  for (const Row& row : a->rows) rows.push_back(DiffRow{&row.key, row.measures, Measures{}, DiffPresence::kGone});
  {
    KeyIdentities identities;
    RowsByIdentity rows_of_a(a->rows, identities);
    for (const Row& row : b->rows) {
      if (const std::optional<std::size_t> in_a = rows_of_a.find(row.key)) {
        rows[*in_a].b = row.measures;
        rows[*in_a].presence = DiffPresence::kBoth;
      } else {
        rows.push_back(DiffRow{&row.key, Measures{}, row.measures, DiffPresence::kNew});
      }
    }
  }

  const Measure sort = a->query.sort;
  std::sort(rows.begin(), rows.end(), [&](const DiffRow& x, const DiffRow& y) {
    const std::uint64_t vx = magnitude(x.delta(sort)), vy = magnitude(y.delta(sort));
    if (vx != vy) return vx > vy;
    return key_less(*x.key, *y.key);
  });
  if (rows.size() > top) {
    d.other = DiffRow{};
    for (std::size_t i = top; i < rows.size(); ++i) {
      d.other->a.add(rows[i].a);
      d.other->b.add(rows[i].b);
    }
    d.other_rows = rows.size() - top;
    rows.resize(top);
  }
  d.rows = std::move(rows);
  d.totals.a = a->totals;
  d.totals.b = b->totals;
  d.a = static_cast<const ResultSummary&>(*a);
  d.b = static_cast<const ResultSummary&>(*b);
  d.a.query.top = d.b.query.top = top;
  d.whole_a = std::move(a);
  d.whole_b = std::move(b);
  return d;
}

}  // namespace heapql
