// Frame patterns (semantics.md §5): parsing `module!`, `module!symbol` and
// `symbol`, and matching them against a frame's module and symbol. Owns the
// pattern syntax only; it knows nothing about stacks, culling or the store.
//
// Syntax:
//   module!          any frame in that module
//   module!symbol    that symbol in that module
//   symbol           that symbol in any module
// - Matching is case-insensitive (ASCII letters fold; other bytes compare as
//   they are) and always covers the whole module or symbol, never a substring.
// - `*` matches any run of characters (possibly empty), `?` exactly one
//   (one byte: symbols are matched as bytes, not decoded as UTF-8).
// - `\` makes the next character literal: `\*`, `\?`, `\!`, `\\`. A trailing
//   lone `\` is an error. Any other escaped character stands for itself.
// - The module and symbol are split at the first unescaped `!`; later `!`s
//   belong to the symbol. Module names never contain `!`; to match a `!` in a
//   symbol-only pattern write `\!`.
// - A module part that is exactly `?` means the unknown module, as frames
//   render it (`?!0x1f`), so a pattern copied from a report means what it
//   says. `\?!` says the same thing explicitly.
// - An empty pattern, an empty module (`!foo`, `!`) and a NUL byte are errors.
// - The text is taken as it is, spaces included (cull list files trim lines).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace heapql {

class FramePattern {
 public:
  // Throws heapql::Error("frame pattern '...': ...") on bad input.
  static FramePattern parse(std::string_view text);

  bool matches(std::string_view module, std::string_view symbol) const;
  const std::string& text() const { return text_; }

 private:
  FramePattern() = default;  // only parse() makes one: an empty one would match everything

  // One side of the `!`, compiled once so matching does no allocation.
  class Part {
   public:
    static Part any();
    // `part` has been validated: no NUL, no trailing escape.
    static Part compile(std::string_view part);
    bool matches(std::string_view subject) const;

   private:
    enum class Kind { kAny, kExact, kGlob };
    Kind kind_ = Kind::kAny;
    // Lowercased literal text (kExact), or the lowercased runs between `*`s
    // (kGlob), in which a NUL byte stands for `?` (the parser rejects NUL in
    // pattern text, so it cannot be literal). segments_.size() - 1 stars.
    std::string exact_;
    std::vector<std::string> segments_;
  };

  std::string text_;
  Part module_;
  Part symbol_;
};

// A set of patterns that matches a frame when any member does.
class FramePatternSet {
 public:
  void add(FramePattern p);
  void add_all(const FramePatternSet& other);
  bool matches(std::string_view module, std::string_view symbol) const;
  bool empty() const { return patterns_.empty(); }
  std::size_t size() const { return patterns_.size(); }
  const std::vector<FramePattern>& patterns() const { return patterns_; }

 private:
  std::vector<FramePattern> patterns_;
};

}  // namespace heapql
