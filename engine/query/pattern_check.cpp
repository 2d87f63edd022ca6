#include "engine/query/pattern_check.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/query/frame_pattern.h"
#include "engine/query/stack_plan.h"

namespace heapql {

namespace {

constexpr std::size_t kMaxNear = 3;

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// The pattern's symbol part (after its first '!') without wildcards and
// escapes, lowercased: what a near frame must contain.
std::string literal_core(const std::string& pattern) {
  const std::size_t bang = pattern.find('!');
  const std::string_view symbol = bang == std::string::npos ? std::string_view(pattern)
                                                            : std::string_view(pattern).substr(bang + 1);
  std::string core;
  for (std::size_t i = 0; i < symbol.size(); ++i) {
    if (symbol[i] == '\\' && i + 1 < symbol.size()) {
      core += symbol[++i];
    } else if (symbol[i] != '*' && symbol[i] != '?') {
      core += symbol[i];
    }
  }
  return lowercase(core);
}

}  // namespace

std::vector<UnmatchedPattern> unmatched_patterns(const TraceTables& tables, const std::vector<std::string>& patterns) {
  std::vector<UnmatchedPattern> unmatched;
  for (const std::string& text : patterns) {
    FramePatternSet pattern;
    pattern.add(FramePattern::parse(text));
    bool matched = false;
    for (std::size_t i = 0; i < tables.frame_count() && !matched; ++i) {
      matched = frame_matches(tables, pattern, FrameId(static_cast<std::uint32_t>(i)));
    }
    if (matched) continue;
    UnmatchedPattern entry{text, {}};
    const std::string core = literal_core(text);
    for (std::size_t i = 0; i < tables.frame_count() && entry.near.size() < kMaxNear && !core.empty(); ++i) {
      const FrameId id(static_cast<std::uint32_t>(i));
      std::string shown = tables.frame_text(id);
      if (lowercase(shown.substr(shown.find('!') + 1)).find(core) == std::string::npos) continue;
      if (std::find(entry.near.begin(), entry.near.end(), shown) == entry.near.end()) entry.near.push_back(shown);
    }
    unmatched.push_back(std::move(entry));
  }
  return unmatched;
}

std::string describe_unmatched(const UnmatchedPattern& unmatched, const std::string& option) {
  std::string text = fmt::format("{} '{}' matches no frame of the trace", option, unmatched.pattern);
  if (!unmatched.near.empty()) {
    text += fmt::format("; frames like it: {} (a pattern matches the whole symbol: add * to match its start, "
                        "or copy the frame as shown)",
                        fmt::join(unmatched.near, ", "));
  }
  return text;
}

}  // namespace heapql
