#include "engine/query/result_diff.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

#include "engine/error.h"
#include "engine/query/row_key.h"

namespace heapql {

namespace {

// Each frame text a row's stack uses is looked at once, however many rows
// share it (a trace's stacks have far fewer texts than frames).
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

// Rows of `a` by the hash of their key, to find B's rows in.
class RowsByIdentity {
 public:
  RowsByIdentity(const std::vector<Row>& rows, KeyIdentities& identities) : rows_(rows), identities_(identities) {
    entries_.reserve(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) entries_.push_back({identities.hash(rows[i].key), i});
    std::sort(entries_.begin(), entries_.end());
  }

  // The row of `a` whose key renders as `key` does, if any.
  std::optional<std::size_t> find(const std::vector<KeyValue>& key) {
    const Entry probe{identities_.hash(key), 0};
    for (auto it = std::lower_bound(entries_.begin(), entries_.end(), probe);
         it != entries_.end() && it->hash == probe.hash; ++it) {
      if (identities_.same(rows_[it->row].key, key)) return it->row;
    }
    return std::nullopt;
  }

 private:
  // Hashes of the keys' identities, not the identity strings: one string of
  // a stack's frames for every stack of a big trace took much memory.
  struct Entry {
    std::size_t hash;
    std::size_t row;
    auto operator<=>(const Entry&) const = default;
  };

  const std::vector<Row>& rows_;
  KeyIdentities& identities_;
  std::vector<Entry> entries_;
};

}  // namespace

ResultDiff diff_results(std::shared_ptr<const Result> a, std::shared_ptr<const Result> b, std::uint64_t top) {
  if (a->other || b->other) throw Error("diff: both results must be answered with no top limit");
  if (a->query.by != b->query.by) throw Error("diff: the two results are grouped differently");
  // Ranked by the change of a magnitude, a diff would mix growth and shrinkage.
  if (a->query.sort == Measure::kImpacting || b->query.sort == Measure::kImpacting) {
    throw Error(kDiffImpactingRefused);
  }
  ResultDiff d;
  d.realloc_known = a->realloc_known && b->realloc_known;
  if (has_unsymbolized_frame(a->rows) || has_unsymbolized_frame(b->rows)) {
    d.notes.emplace_back(
        "unsymbolized frames (module!0xOFFSET) match across traces only where the module is the same build");
  }

  if (a->rows.size() + b->rows.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw Error("diff: more rows than a diff can number (4,294,967,295)");
  }
  std::vector<DiffRow> rows;
  rows.reserve(a->rows.size() + b->rows.size());
  for (const Row& row : a->rows) rows.push_back(DiffRow{&row.key, row.measures, Measures{}, DiffPresence::kGone});
  KeyIdentities identities;
  {
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

  // By the change's size, then the key; rows whose keys render alike (rare)
  // keep A's order, then B's.
  std::vector<std::uint32_t> key_rank;
  {
    std::vector<const std::vector<KeyValue>*> keys;
    keys.reserve(rows.size());
    for (const DiffRow& row : rows) keys.push_back(row.key);
    key_rank = rank_keys(keys, identities);
  }
  const Measure sort = a->query.sort;
  struct Place {
    std::uint64_t change;
    std::uint32_t key_rank;
    std::uint32_t row;
    auto operator<=>(const Place&) const = default;
  };
  std::vector<Place> places(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    // The largest change first: its complement sorts first.
    places[i] = Place{~Measures::magnitude(rows[i].delta(sort)), key_rank[i], static_cast<std::uint32_t>(i)};
  }
  std::sort(places.begin(), places.end());
  // rows[i] = rows[places[i].row], cycle by cycle in place: a sorted copy
  // would hold every row of the diff twice.
  std::vector<bool> placed(rows.size(), false);
  for (std::size_t start = 0; start < rows.size(); ++start) {
    if (placed[start]) continue;
    const DiffRow first = rows[start];
    std::size_t at = start;
    while (places[at].row != start) {
      rows[at] = rows[places[at].row];
      placed[at] = true;
      at = places[at].row;
    }
    rows[at] = first;
    placed[at] = true;
  }
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
