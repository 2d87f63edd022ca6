// Leak suppressions in LeakSanitizer's file format, as heaptrack uses them
// (semantics.md §11): `leak:PATTERN` lines, where PATTERN matches a frame's
// function or module name as a substring, `*` matching any run of characters,
// `^` anchoring at the start and `$` at the end. Matching is case-sensitive,
// as LSan's is. Owns the file format and the matching; which blocks a
// suppression removes belongs to the stack plan.
//
// File format: lines are trimmed; blank lines and `#` comments are skipped;
// `leak:PATTERN` adds a pattern; any other line (another sanitizer's kind,
// `race:...`, or no kind at all) is ignored with a note, as LSan files are
// often shared between sanitizers.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace heapql {

class SuppressionPattern {
 public:
  // Throws heapql::Error for an empty pattern (it would suppress everything).
  static SuppressionPattern parse(std::string_view text);

  bool matches(std::string_view subject) const;
  const std::string& text() const { return text_; }

 private:
  SuppressionPattern() = default;

  std::string text_;
  bool anchored_start_ = false;
  bool anchored_end_ = false;
  std::vector<std::string> segments_;  // the runs between `*`s
};

struct SuppressionList {
  std::vector<SuppressionPattern> patterns;
  // "FILE:LINE: ignored ..." for each line that is not a leak suppression.
  std::vector<std::string> notes;

  bool empty() const { return patterns.empty(); }
  bool matches(std::string_view subject) const;
};

// `name_for_errors` stands in for the file name in errors and notes. An empty
// `leak:` pattern is an Error located at its line.
SuppressionList parse_suppressions(std::string_view text, const std::string& name_for_errors);
SuppressionList read_suppressions(const std::string& path);

// The lines a heaptrack file embeds (`S leak:...`), named by the trace. A
// trace is untrusted: more than 10,000 lines, or one longer than 4 KiB, is an
// Error rather than a match that costs without bound.
SuppressionList parse_embedded_suppressions(std::span<const std::string> lines, const std::string& trace);

}  // namespace heapql
