// Exact parsing of durations, sizes and ranges, and their human forms.
#include "engine/units.h"

#include <array>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "engine/error.h"

namespace heapql {
namespace {

constexpr std::uint64_t kMaxDurationNs = std::numeric_limits<std::int64_t>::max();
// 10^18 still fits in a uint64, which keeps the fraction arithmetic exact.
constexpr std::size_t kMaxFractionDigits = 18;

struct Unit {
  std::string_view name;  // lowercase
  std::uint64_t multiplier;
};

constexpr std::array kDurationUnits = {
    Unit{"ns", 1},
    Unit{"us", 1'000},
    Unit{"ms", 1'000'000},
    Unit{"s", 1'000'000'000},
    Unit{"m", 60'000'000'000},
    Unit{"h", 3'600'000'000'000},
};
constexpr std::string_view kDurationUnitList = "ns us ms s m h";

constexpr std::uint64_t kKi = 1024;
constexpr std::array kSizeUnits = {
    Unit{"b", 1},
    Unit{"k", 1'000},
    Unit{"kb", 1'000},
    Unit{"ki", kKi},
    Unit{"kib", kKi},
    Unit{"m", 1'000'000},
    Unit{"mb", 1'000'000},
    Unit{"mi", kKi * kKi},
    Unit{"mib", kKi * kKi},
    Unit{"g", 1'000'000'000},
    Unit{"gb", 1'000'000'000},
    Unit{"gi", kKi * kKi * kKi},
    Unit{"gib", kKi * kKi * kKi},
    Unit{"t", 1'000'000'000'000},
    Unit{"tb", 1'000'000'000'000},
    Unit{"ti", kKi * kKi * kKi * kKi},
    Unit{"tib", kKi * kKi * kKi * kKi},
};
constexpr std::string_view kSizeUnitList = "B KB KiB MB MiB GB GiB TB TiB";

[[noreturn]] void fail(std::string_view whole, std::size_t index, std::string_view what) {
  throw UnitsError(whole, index + 1, std::string(what));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
char fold(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equal_folded(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (fold(a[i]) != lower[i]) return false;
  }
  return true;
}

bool checked_mul(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return false;
  out = a * b;
  return true;
}

bool checked_add(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  if (b > std::numeric_limits<std::uint64_t>::max() - a) return false;
  out = a + b;
  return true;
}

// A decimal number and the unit text after it, as positions in `whole`.
struct Quantity {
  std::size_t begin = 0;
  std::string_view integer;
  std::size_t fraction_begin = 0;
  std::string_view fraction;  // digits after the point, possibly empty
  std::size_t unit_begin = 0;
  std::string_view unit;
};

Quantity scan_quantity(std::string_view whole, std::size_t begin, std::size_t end) {
  Quantity q;
  q.begin = begin;
  std::size_t i = begin;
  if (i == end) fail(whole, i, "expected a number");
  if (whole[i] == '-') fail(whole, i, "expected a number; negative values are not allowed");
  if (!is_digit(whole[i])) fail(whole, i, "expected a number");
  while (i < end && is_digit(whole[i])) ++i;
  q.integer = whole.substr(begin, i - begin);
  if (i < end && whole[i] == '.') {
    ++i;
    q.fraction_begin = i;
    while (i < end && is_digit(whole[i])) ++i;
    if (i == q.fraction_begin) fail(whole, i, "expected a digit after '.'");
    q.fraction = whole.substr(q.fraction_begin, i - q.fraction_begin);
  }
  q.unit_begin = i;
  q.unit = whole.substr(i, end - i);
  return q;
}

// Exactly integer.fraction * multiplier, or an error if the result is above
// `max` or not a whole number (`not_whole` says what that means here).
std::uint64_t scale(std::string_view whole, const Quantity& q, std::uint64_t multiplier, std::uint64_t max,
                    std::string_view too_large, std::string_view not_whole) {
  std::uint64_t integer = 0;
  for (char c : q.integer) {
    if (!checked_mul(integer, 10, integer) || !checked_add(integer, static_cast<std::uint64_t>(c - '0'), integer)) {
      fail(whole, q.begin, too_large);
    }
  }
  std::uint64_t value = 0;
  if (!checked_mul(integer, multiplier, value) || value > max) fail(whole, q.begin, too_large);

  std::string_view fraction = q.fraction;
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (fraction.empty()) return value;
  if (fraction.size() > kMaxFractionDigits) {
    fail(whole, q.fraction_begin, fmt::format("at most {} digits after the point", kMaxFractionDigits));
  }
  std::uint64_t digits = 0;
  std::uint64_t scale_down = 1;  // 10^fraction.size()
  for (char c : fraction) {
    digits = digits * 10 + static_cast<std::uint64_t>(c - '0');
    scale_down *= 10;
  }
  // digits * multiplier / scale_down without overflow: cancel the common
  // factor first; what is left of scale_down must divide digits.
  std::uint64_t common = std::gcd(multiplier, scale_down);
  std::uint64_t rest = scale_down / common;
  if (digits % rest != 0) fail(whole, q.fraction_begin, not_whole);
  std::uint64_t part = 0;
  if (!checked_mul(digits / rest, multiplier / common, part) || !checked_add(value, part, value) || value > max) {
    fail(whole, q.begin, too_large);
  }
  return value;
}

std::int64_t duration_at(std::string_view whole, std::size_t begin, std::size_t end) {
  Quantity q = scan_quantity(whole, begin, end);
  if (q.unit.empty()) fail(whole, q.unit_begin, fmt::format("needs a unit: {}", kDurationUnitList));
  for (const Unit& unit : kDurationUnits) {
    if (equal_folded(q.unit, unit.name)) {
      std::string too_large = fmt::format("too large: the most is {}ns (about 292 years)", kMaxDurationNs);
      return static_cast<std::int64_t>(
          scale(whole, q, unit.multiplier, kMaxDurationNs, too_large, "finer than 1 ns"));
    }
  }
  fail(whole, q.unit_begin, fmt::format("unknown unit '{}', expected one of {}", q.unit, kDurationUnitList));
}

std::uint64_t size_at(std::string_view whole, std::size_t begin, std::size_t end, std::uint64_t max_bytes) {
  Quantity q = scan_quantity(whole, begin, end);
  std::uint64_t multiplier = 0;
  if (q.unit.empty()) {
    multiplier = 1;
  } else {
    for (const Unit& unit : kSizeUnits) {
      if (equal_folded(q.unit, unit.name)) multiplier = unit.multiplier;
    }
  }
  if (multiplier == 0) {
    fail(whole, q.unit_begin, fmt::format("unknown unit '{}', expected one of {}", q.unit, kSizeUnitList));
  }
  std::string too_large = fmt::format("too large: the most is {} bytes", max_bytes);
  return scale(whole, q, multiplier, max_bytes, too_large, "not a whole number of bytes");
}

// The two sides of `A..B`; `all` and `..` give two empty sides.
struct RangeText {
  std::size_t left_end = 0;     // left side is [0, left_end)
  std::size_t right_begin = 0;  // right side is [right_begin, size)
};

// A range written without '..': `2s-8s` (a dash), or one value (`5s`).
[[noreturn]] void fail_not_a_range(std::string_view text) {
  const std::size_t dash = text.find('-', 1);
  if (dash != std::string_view::npos && dash + 1 < text.size()) {
    std::string left(text.substr(0, dash));
    const std::string_view right = text.substr(dash + 1);
    // `2-8s`: each end needs its unit, so the right one's goes to the left too.
    std::size_t unit = right.size();
    while (unit > 0 && !is_digit(right[unit - 1]) && right[unit - 1] != '.') --unit;
    if (is_digit(left.back())) left += right.substr(unit);
    fail(text, dash,
         fmt::format("expected A..B: a range is written with '..', each end with its unit ('{}..{}')", left, right));
  }
  if (text.empty() || !is_digit(text[0])) fail(text, text.size(), "expected A..B (or A.., ..B, all)");
  fail(text, text.size(),
       fmt::format("expected A..B (or A.., ..B, all): '{0}..' is from {0} on, '..{0}' is below {0}", text));
}

RangeText split_range(std::string_view text) {
  if (equal_folded(text, "all")) return RangeText{0, text.size()};
  std::size_t dots = text.find("..");
  if (dots == std::string_view::npos) fail_not_a_range(text);
  std::size_t second = text.find("..", dots + 2);
  if (second != std::string_view::npos) fail(text, second, "expected A..B with a single '..'");
  return RangeText{dots, dots + 2};
}

// `12.345` from thousandths, trailing zeros dropped.
std::string with_three_decimals(std::uint64_t thousandths) {
  std::uint64_t whole = thousandths / 1000;
  std::uint64_t decimals = thousandths % 1000;
  if (decimals == 0) return fmt::format("{}", whole);
  std::string digits = fmt::format("{:03}", decimals);
  while (digits.back() == '0') digits.pop_back();
  return fmt::format("{}.{}", whole, digits);
}

}  // namespace

UnitsError::UnitsError(std::string_view text, std::size_t column, std::string reason)
    : Error(fmt::format("'{}' at column {}: {}", text, column, reason)), column_(column), reason_(std::move(reason)) {}

std::int64_t parse_duration_ns(std::string_view text) { return duration_at(text, 0, text.size()); }

std::uint64_t parse_size_bytes(std::string_view text, std::uint64_t max_bytes) {
  return size_at(text, 0, text.size(), max_bytes);
}

DurationRange parse_duration_range(std::string_view text) {
  RangeText split = split_range(text);
  DurationRange range;
  if (split.left_end > 0) range.begin_ns = duration_at(text, 0, split.left_end);
  std::string_view right = text.substr(split.right_begin);
  if (!right.empty() && !equal_folded(right, "end")) {
    range.end_ns = duration_at(text, split.right_begin, text.size());
    if (*range.end_ns < range.begin_ns) {
      fail(text, split.right_begin,
           fmt::format("the end '{}' is before the begin '{}'", right, text.substr(0, split.left_end)));
    }
  }
  return range;
}

SizeRange parse_size_range(std::string_view text, std::uint64_t max_bytes) {
  RangeText split = split_range(text);
  SizeRange range;
  if (split.left_end > 0) range.begin = size_at(text, 0, split.left_end, max_bytes);
  if (split.right_begin < text.size()) {
    range.end = size_at(text, split.right_begin, text.size(), max_bytes);
    if (*range.end < range.begin) {
      fail(text, split.right_begin,
           fmt::format("the end '{}' is before the begin '{}'", text.substr(split.right_begin),
                       text.substr(0, split.left_end)));
    }
  }
  return range;
}

std::string format_bytes_human(std::uint64_t bytes) {
  if (bytes < 1000) return fmt::format("{} B", bytes);
  constexpr std::array<std::string_view, 6> kNames = {"KB", "MB", "GB", "TB", "PB", "EB"};
  std::uint64_t unit = 1000;
  for (std::size_t i = 0; i < kNames.size(); ++i, unit *= 1000) {
    // Hundredths of the unit, rounded half up; every unit here is a multiple
    // of 200, so this is exact and cannot overflow.
    std::uint64_t hundredths = bytes / unit * 100 + (bytes % unit + unit / 200) / (unit / 100);
    if (hundredths < 100'000 || i + 1 == kNames.size()) {
      return fmt::format("{}.{:02} {}", hundredths / 100, hundredths % 100, kNames[i]);
    }
  }
  return {};  // not reached: the last unit always returns
}

std::string format_duration(std::int64_t ns) {
  if (ns == 0) return "0s";
  // The magnitude as unsigned, so that INT64_MIN has one too.
  std::uint64_t magnitude = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  std::string_view sign = ns < 0 ? "-" : "";
  if (magnitude < 1'000) return fmt::format("{}{}ns", sign, magnitude);
  if (magnitude < 1'000'000) return fmt::format("{}{}us", sign, with_three_decimals(magnitude));
  // Thousandths of a millisecond are microseconds: round ns to them.
  std::uint64_t us = magnitude / 1'000 + (magnitude % 1'000 >= 500 ? 1 : 0);
  if (us < 1'000'000) return fmt::format("{}{}ms", sign, with_three_decimals(us));
  std::uint64_t ms = magnitude / 1'000'000 + (magnitude % 1'000'000 >= 500'000 ? 1 : 0);
  return fmt::format("{}{}s", sign, with_three_decimals(ms));
}

std::string format_hex_address(std::uint64_t address) { return fmt::format("{:#x}", address); }

std::string format_count(std::uint64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace heapql
