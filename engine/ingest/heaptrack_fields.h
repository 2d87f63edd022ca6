// The fields of one heaptrack record line (../shared/formats/heaptrack.md):
// `T f1 f2 ...`, single spaces, lowercase hex numbers, length-prefixed strings
// (format 3); and how messages quote a line. Shared by the record parser of
// the interpreted file and the walker of its raw twin.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/error.h"
#include "engine/ingest/hex_digit.h"

namespace heapql::heaptrack {

// Input quoted in a message: cut to a few dozen bytes, control and
// non-ASCII bytes escaped, so a hostile line cannot flood or garble the terminal.
inline std::string excerpt(std::string_view text) {
  constexpr std::size_t kShown = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  out += text.size() > kShown ? fmt::format("'... ({} bytes)", text.size()) : "'";
  return out;
}

inline std::string record_name(char type) {
  if (type >= 0x21 && type < 0x7f) return fmt::format("'{}'", type);
  return fmt::format("0x{:02x}", static_cast<unsigned char>(type));
}

// One record line's fields, read left to right; any mistake is an Error
// naming the file, the line and the record type.
class Fields {
 public:
  Fields(std::string_view line, const std::string& path, std::uint64_t line_number)
      : path_(path), line_number_(line_number), type_(line.empty() ? '\0' : line[0]) {
    if (line.size() >= 2) {
      if (line[1] != ' ') fail(fmt::format("expected a space after the record type, got {}", record_name(line[1])));
      rest_ = line.substr(2);
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(SourceLocation{path_, line_number_, {}, {}}, fmt::format("{} record: {}", record_name(type_), what));
  }

  bool more() const { return !rest_.empty(); }

  std::uint64_t hex(std::string_view what) {
    const std::string_view field = next_field(what);
    if (field.size() > 16) fail(fmt::format("{}: {} is longer than 64 bits", what, excerpt(field)));
    std::uint64_t value = 0;
    for (char c : field) {
      const std::uint8_t digit = hex_digit(c);
      if (digit == kNotHexDigit) {
        fail(fmt::format("{}: expected a lowercase hex number, got {}", what, excerpt(field)));
      }
      value = value << 4 | digit;
    }
    return value;
  }

  std::uint32_t index(std::string_view what) {
    const std::uint64_t value = hex(what);
    if (value > 0xFFFFFFFFu) fail(fmt::format("{}: {:x} does not fit heaptrack's 32-bit indices", what, value));
    return static_cast<std::uint32_t>(value);
  }

  // Format 3 string: `<length> <bytes>`; bytes may hold spaces.
  std::string_view length_prefixed(std::string_view what) {
    const std::uint64_t length = hex(what);
    if (length > rest_.size()) {
      fail(fmt::format("{}: length {:x} (hex, {} bytes) runs past the end of the line ({} bytes left)", what, length, length, rest_.size()));
    }
    const std::string_view text = rest_.substr(0, length);
    rest_.remove_prefix(length);
    if (!rest_.empty()) {
      if (rest_[0] != ' ') fail(fmt::format("{}: expected a space after the {}-byte string", what, length));
      rest_.remove_prefix(1);
    }
    return text;
  }

  std::string_view rest() {
    const std::string_view all = rest_;
    rest_ = {};
    return all;
  }

  void expect_end() const {
    if (!rest_.empty()) fail(fmt::format("unexpected extra fields {}", excerpt(rest_)));
  }

 private:
  std::string_view next_field(std::string_view what) {
    if (rest_.empty()) fail(fmt::format("missing field: {}", what));
    const auto space = rest_.find(' ');
    std::string_view field = rest_.substr(0, space);
    if (space == std::string_view::npos) {
      rest_ = {};
    } else {
      rest_.remove_prefix(space + 1);
      if (rest_.empty()) fail(fmt::format("{}: trailing space", what));
    }
    if (field.empty()) fail(fmt::format("{}: empty field (two spaces)", what));
    return field;
  }

  const std::string& path_;
  std::uint64_t line_number_;
  char type_;
  std::string_view rest_;
};

}  // namespace heapql::heaptrack
