#include "engine/query/row_key.h"

#include <algorithm>
#include <functional>

#include "engine/query/order_ranks.h"

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
  if (last_ != nullptr && last_->table.get() == frames.table()) return *last_;  // a result's rows share one table
  TableNumbers& table = tables_[frames.table()];
  if (!table.table) {
    table.table = frames.shared_table();
    table.numbers.assign(frames.table()->size(), 0);
  }
  last_ = &table;
  return table;
}

std::uint32_t KeyIdentities::text_number(TableNumbers& table, const StackFrames& frames, std::size_t i) {
  std::uint32_t& number = table.numbers[frames.index(i)];
  if (number == 0) {
    const auto [it, inserted] = numbers_.emplace(frames[i], static_cast<std::uint32_t>(numbers_.size()));
    if (inserted) texts_.push_back(&it->first);
    number = it->second + 1;
  }
  return number - 1;
}

std::size_t KeyIdentities::hash(const std::vector<KeyValue>& key) {
  // Mixed as boost's hash_combine does: order matters.
  std::size_t h = key.size();
  const auto mix = [&](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (const KeyValue& k : key) {
    mix(static_cast<std::size_t>(k.level));
    if (k.level == GroupBy::kStack) {
      mix(k.frames.size());
      if (k.frames.empty()) continue;
      TableNumbers& table = numbers_of(k.frames);
      for (std::size_t i = 0; i < k.frames.size(); ++i) mix(text_number(table, k.frames, i));
    } else {
      mix(std::hash<std::string>{}(k.text));
    }
  }
  return h;
}

bool KeyIdentities::same(const std::vector<KeyValue>& a, const std::vector<KeyValue>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t level = 0; level < a.size(); ++level) {
    const KeyValue& x = a[level];
    const KeyValue& y = b[level];
    if (x.level != y.level) return false;
    if (x.level != GroupBy::kStack) {
      if (x.text != y.text) return false;
      continue;
    }
    if (x.frames.size() != y.frames.size()) return false;
    if (x.frames.empty()) continue;
    TableNumbers& x_table = numbers_of(x.frames);
    TableNumbers& y_table = numbers_of(y.frames);
    for (std::size_t i = 0; i < x.frames.size(); ++i) {
      if (text_number(x_table, x.frames, i) != text_number(y_table, y.frames, i)) return false;
    }
  }
  return true;
}

std::vector<std::uint32_t> KeyIdentities::number_ranks() const {
  std::vector<std::string> texts;
  texts.reserve(texts_.size());
  for (const std::string* text : texts_) texts.push_back(*text);
  return ranks_by_text(texts);
}

std::vector<std::uint32_t> KeyIdentities::symbols_of_table(const StackFrames& frames,
                                                           const std::vector<std::uint32_t>& number_ranks) {
  const TableNumbers& table = numbers_of(frames);
  std::vector<std::uint32_t> symbols(table.numbers.size(), 0);
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    if (table.numbers[i] != 0) symbols[i] = number_ranks[table.numbers[i] - 1] + 1;
  }
  return symbols;
}

std::vector<std::uint32_t> rank_keys(const std::vector<const std::vector<KeyValue>*>& keys, KeyIdentities& identities) {
  const std::size_t width = keys.empty() ? 0 : keys.front()->size();
  return ranks_level_by_level(keys.size(), width, [&](std::size_t level) {
    if ((*keys.front())[level].level != GroupBy::kStack) {
      std::vector<std::string> texts;
      texts.reserve(keys.size());
      for (const std::vector<KeyValue>* key : keys) texts.push_back((*key)[level].text);
      return ranks_by_text(texts);
    }
    // Every frame numbered first, so that the numbers' ranks are known.
    for (const std::vector<KeyValue>* key : keys) {
      const StackFrames& frames = (*key)[level].frames;
      for (std::size_t i = 0; i < frames.size(); ++i) identities.frame_number(frames, i);
    }
    const std::vector<std::uint32_t> number_rank = identities.number_ranks();
    std::unordered_map<const FrameTextTable*, std::vector<std::uint32_t>> symbols_by_table;
    struct Cursor {
      const StackFrames* frames;
      const std::uint32_t* symbols;  // by index in the frames' table
      std::size_t depth;
      bool operator==(const Cursor&) const = default;
    };
    std::vector<Cursor> cursors;
    cursors.reserve(keys.size());
    for (const std::vector<KeyValue>* key : keys) {
      const StackFrames& frames = (*key)[level].frames;
      std::vector<std::uint32_t>& symbols = symbols_by_table[frames.table()];
      if (symbols.empty() && frames.table() != nullptr) symbols = identities.symbols_of_table(frames, number_rank);
      cursors.push_back(Cursor{&frames, symbols.data(), 0});
    }
    return rank_sequences(
        cursors,
        [](const Cursor& at) -> std::uint32_t {
          return at.depth < at.frames->size() ? at.symbols[at.frames->index(at.depth)] : 0;
        },
        [](Cursor at) { return Cursor{at.frames, at.symbols, at.depth + 1}; });
  });
}

}  // namespace heapql
