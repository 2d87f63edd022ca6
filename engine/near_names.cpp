#include "engine/near_names.h"

#include <algorithm>
#include <cstddef>

namespace heapql {

namespace {

char folded(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string folded(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = folded(c);
  return out;
}

// Edits between a and b: insertions, deletions, substitutions and swaps of
// two neighbours (`--tpo` is one edit from `--top`).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

}  // namespace

std::vector<std::string> near_names(std::string_view wanted, const std::vector<std::string>& names, std::size_t most) {
  const std::string w = folded(wanted);
  if (w.empty()) return {};
  const std::size_t allowed = std::max<std::size_t>(1, w.size() / 3);
  struct Candidate {
    std::size_t score;
    std::size_t order;
  };
  std::vector<Candidate> near;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string n = folded(names[i]);
    if (n.empty() || n == w) continue;
    const std::size_t distance = edit_distance(w, n);
    // Containment counts when the shorter side is not a mere letter or two.
    const bool contains =
        std::min(w.size(), n.size()) >= 3 && (n.find(w) != std::string::npos || w.find(n) != std::string::npos);
    if (distance <= allowed || contains) near.push_back({distance, i});
  }
  std::stable_sort(near.begin(), near.end(), [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  std::vector<std::string> out;
  for (const Candidate& c : near) {
    if (out.size() == most) break;
    if (std::find(out.begin(), out.end(), names[c.order]) == out.end()) out.push_back(names[c.order]);
  }
  return out;
}

std::string quoted_alternatives(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += "'" + names[i] + "'";
  }
  return text;
}

}  // namespace heapql
