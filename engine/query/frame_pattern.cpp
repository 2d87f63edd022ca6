// Frame pattern parsing and matching; the syntax is documented in the header.
#include "engine/query/frame_pattern.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "engine/error.h"

namespace heapql {
namespace {

// Stands for `?` inside compiled glob segments; see FramePattern::Part.
constexpr char kOneChar = '\0';
constexpr char kEscape = '\\';

// ASCII folding is enough: module and symbol names are ASCII in practice, and
// folding other bytes would need a locale the engine must not depend on.
constexpr char fold(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// The pattern as quoted in messages: control bytes as \xNN, so that a NUL
// cannot cut what() short.
std::string printable(std::string_view text) {
  std::string result;
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      result += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      result += c;
    }
  }
  return result;
}

[[noreturn]] void fail(std::string_view text, std::size_t column, std::string_view what) {
  throw Error(fmt::format("frame pattern '{}': at column {}: {}", printable(text), column, what));
}

bool equal_folded(std::string_view folded, std::string_view subject) {
  if (folded.size() != subject.size()) return false;
  for (std::size_t i = 0; i < folded.size(); ++i) {
    if (folded[i] != fold(subject[i])) return false;
  }
  return true;
}

// Does `segment` match subject[pos, pos + segment.size())? The caller checks
// that the range fits.
bool segment_matches_at(std::string_view segment, std::string_view subject, std::size_t pos) {
  for (std::size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] != kOneChar && segment[i] != fold(subject[pos + i])) return false;
  }
  return true;
}

}  // namespace

FramePattern::Part FramePattern::Part::any() { return Part{}; }

FramePattern::Part FramePattern::Part::compile(std::string_view part) {
  Part result;
  std::vector<std::string> segments(1);
  bool wild = false;
  for (std::size_t i = 0; i < part.size(); ++i) {
    char c = part[i];
    if (c == kEscape) {
      // The parser has already rejected a trailing escape.
      segments.back().push_back(fold(part[++i]));
    } else if (c == '*') {
      segments.emplace_back();
      wild = true;
    } else if (c == '?') {
      segments.back().push_back(kOneChar);
      wild = true;
    } else {
      segments.back().push_back(fold(c));
    }
  }
  if (!wild) {
    result.kind_ = Kind::kExact;
    result.exact_ = std::move(segments.front());
  } else if (std::all_of(segments.begin(), segments.end(), [](const std::string& s) { return s.empty(); })) {
    result.kind_ = Kind::kAny;  // only stars: `*`, `**`
  } else {
    result.kind_ = Kind::kGlob;
    result.segments_ = std::move(segments);
  }
  return result;
}

bool FramePattern::Part::matches(std::string_view subject) const {
  switch (kind_) {
    case Kind::kAny:
      return true;
    case Kind::kExact:
      return equal_folded(exact_, subject);
    case Kind::kGlob:
      break;
  }
  if (segments_.size() == 1) {
    const std::string& only = segments_.front();
    return subject.size() == only.size() && segment_matches_at(only, subject, 0);
  }
  // With at least one star the first and last segments are anchored at the
  // ends, and taking the leftmost match of each middle segment is never
  // worse than any other choice, so no backtracking is needed.
  const std::string& first = segments_.front();
  const std::string& last = segments_.back();
  if (subject.size() < first.size() + last.size()) return false;
  if (!segment_matches_at(first, subject, 0)) return false;
  std::size_t end = subject.size() - last.size();
  if (!segment_matches_at(last, subject, end)) return false;
  std::size_t pos = first.size();
  for (std::size_t s = 1; s + 1 < segments_.size(); ++s) {
    const std::string& segment = segments_[s];
    bool found = false;
    while (pos + segment.size() <= end) {
      if (segment_matches_at(segment, subject, pos)) {
        found = true;
        break;
      }
      ++pos;
    }
    if (!found) return false;
    pos += segment.size();
  }
  return true;
}

FramePattern FramePattern::parse(std::string_view text) {
  if (text.empty()) throw Error("frame pattern '': empty pattern");
  if (text.find('\0') != std::string_view::npos) {
    fail(text, text.find('\0') + 1, "a NUL byte cannot be part of a pattern");
  }
  // Find the first unescaped `!` and reject a trailing escape in one pass.
  std::size_t bang = std::string_view::npos;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == kEscape) {
      if (i + 1 == text.size()) fail(text, i + 1, "'\\' at the end escapes nothing (write '\\\\' for a backslash)");
      ++i;
    } else if (text[i] == '!' && bang == std::string_view::npos) {
      bang = i;
    }
  }

  FramePattern result;
  result.text_ = std::string(text);
  if (bang == std::string_view::npos) {
    result.module_ = Part::any();
    result.symbol_ = Part::compile(text);
    return result;
  }
  std::string_view module = text.substr(0, bang);
  std::string_view symbol = text.substr(bang + 1);
  if (module.empty()) fail(text, 1, "expected a module name before '!' (write 'symbol' for any module)");
  if (module == "?") {
    // `?` alone is how the unknown module renders; see the header.
    result.module_ = Part::compile("\\?");
  } else {
    result.module_ = Part::compile(module);
  }
  result.symbol_ = symbol.empty() ? Part::any() : Part::compile(symbol);
  return result;
}

bool FramePattern::matches(std::string_view module, std::string_view symbol) const {
  return module_.matches(module) && symbol_.matches(symbol);
}

void FramePatternSet::add(FramePattern p) { patterns_.push_back(std::move(p)); }

void FramePatternSet::add_all(const FramePatternSet& other) {
  patterns_.insert(patterns_.end(), other.patterns_.begin(), other.patterns_.end());
}

bool FramePatternSet::matches(std::string_view module, std::string_view symbol) const {
  return std::any_of(patterns_.begin(), patterns_.end(),
                     [&](const FramePattern& p) { return p.matches(module, symbol); });
}

}  // namespace heapql
