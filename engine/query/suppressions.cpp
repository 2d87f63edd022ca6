#include "engine/query/suppressions.h"

#include <fmt/format.h>

#include <utility>

#include "engine/error.h"
#include "engine/query/pattern_file_lines.h"
#include "engine/text_file.h"

namespace heapql {

SuppressionPattern SuppressionPattern::parse(std::string_view text) {
  SuppressionPattern p;
  p.text_ = std::string(text);
  std::string_view body = text;
  if (body.starts_with('^')) {
    p.anchored_start_ = true;
    body.remove_prefix(1);
  }
  if (body.ends_with('$')) {
    p.anchored_end_ = true;
    body.remove_suffix(1);
  }
  // heaptrack 1.4.0's empty pattern suppressed every leak (formats/heaptrack.md
  // 7.6); an empty one here is surely a mistake, so say so.
  if (body.empty()) throw Error(fmt::format("suppression '{}': an empty pattern would suppress every leak", text));
  for (std::size_t star; (star = body.find('*')) != std::string_view::npos;) {
    p.segments_.emplace_back(body.substr(0, star));
    body.remove_prefix(star + 1);
  }
  p.segments_.emplace_back(body);
  return p;
}

bool SuppressionPattern::matches(std::string_view subject) const {
  // Leftmost matches for every segment leave the most room for the rest, so
  // one pass decides; only an end-anchored last segment must sit at the end.
  std::size_t at = 0;
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const std::string& segment = segments_[i];
    const bool last = i + 1 == segments_.size();
    if (i == 0 && anchored_start_) {
      if (!subject.starts_with(segment)) return false;
      at = segment.size();
      if (last && anchored_end_) return at == subject.size();
      continue;
    }
    if (last && anchored_end_) return subject.size() - at >= segment.size() && subject.ends_with(segment);
    const std::size_t found = subject.find(segment, at);
    if (found == std::string_view::npos) return false;
    at = found + segment.size();
  }
  return true;
}

bool SuppressionList::matches(std::string_view subject) const {
  for (const SuppressionPattern& p : patterns) {
    if (p.matches(subject)) return true;
  }
  return false;
}

namespace {

void add_line(SuppressionList& list, std::string_view line, const std::string& name, std::uint64_t line_number) {
  constexpr std::string_view kLeak = "leak:";
  if (!line.starts_with(kLeak)) {
    list.notes.push_back(fmt::format("{}:{}: ignored, not a leak suppression: {}", name, line_number, line));
    return;
  }
  std::string_view pattern = line.substr(kLeak.size());
  while (!pattern.empty() && is_pattern_line_blank(pattern.front())) pattern.remove_prefix(1);
  try {
    list.patterns.push_back(SuppressionPattern::parse(pattern));
  } catch (const Error& e) {
    SourceLocation where;
    where.file = name;
    where.line = line_number;
    throw Error(std::move(where), e.message());
  }
}

}  // namespace

SuppressionList parse_suppressions(std::string_view text, const std::string& name_for_errors) {
  SuppressionList list;
  for_each_pattern_line(text, [&](std::string_view line, std::uint64_t line_number) {
    add_line(list, line, name_for_errors, line_number);
  });
  return list;
}

SuppressionList read_suppressions(const std::string& path) {
  return parse_suppressions(read_text_file(path, "suppressions file"), path);
}

SuppressionList parse_embedded_suppressions(std::span<const std::string> lines, const std::string& trace) {
  // They come from the trace, so a hostile one must not make matching cost
  // frames x patterns x length without bound; real programs embed a handful.
  constexpr std::size_t kMaxLines = 10000, kMaxLineBytes = 4096;
  const SourceLocation where = SourceLocation::of_file(trace);
  if (lines.size() > kMaxLines) {
    throw Error(where, fmt::format("{} embedded suppressions (S records); heapql applies at most {}", lines.size(),
                                   kMaxLines));
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].size() > kMaxLineBytes) {
      throw Error(where, fmt::format("embedded suppression {} is {} bytes long; heapql applies none longer than {}",
                                     i + 1, lines[i].size(), kMaxLineBytes));
    }
  }
  std::string text;
  for (const std::string& line : lines) text.append(line).push_back('\n');
  return parse_suppressions(text, fmt::format("{}'s S records", trace));
}

}  // namespace heapql
