// Durations, sizes and their ranges as users write them (`--window 1s..3s`,
// `--size 4KB..1MiB`, `--lifetime ..250ms`), and the human forms reports
// print. Owns the unit tables and the exact decimal arithmetic; knows nothing
// about options or queries (callers prefix which option a message is about).
//
// Parsing is exact: a decimal number (`1`, `1.5`; at least one digit before
// the point) times its unit, with no floating point. Every error is a
// heapql::Error whose message quotes the input, gives the 1-based column
// where it went wrong and says what was expected (a UnitsError).
//
// Durations: units ns us ms s m (minutes) h, required, case-insensitive.
//   Negative values, results finer than 1 ns and values beyond int64
//   nanoseconds (about 292 years) are errors.
// Sizes: an optional unit, case-insensitive: B; K KB = 1000, Ki KiB = 1024;
//   M MB, Mi MiB; G GB, Gi GiB; T TB, Ti TiB. No unit means bytes. A fraction
//   must come to whole bytes (`1.5KB` = 1500, `1.5B` is an error); values
//   beyond uint64 are errors.
// Ranges are half-open [begin, end): `A..B`, `A..`, `..B`, `..` and `all`
//   (both the whole range); a duration range also takes `end` as an open
//   upper bound (`2s..end`). A single value and B < A are errors. B == A is
//   a valid, empty range.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "engine/error.h"

namespace heapql {

// What the parsers throw: the whole message ("'4x' at column 2: unknown unit
// 'x', ...") and its parts, for callers that place it in their own context.
class UnitsError : public Error {
 public:
  UnitsError(std::string_view text, std::size_t column, std::string reason);
  std::size_t column() const { return column_; }  // 1-based
  const std::string& reason() const { return reason_; }

 private:
  std::size_t column_;
  std::string reason_;
};

struct DurationRange {
  std::int64_t begin_ns = 0;
  std::optional<std::int64_t> end_ns;  // none: open, up to the end of the trace
};

struct SizeRange {
  std::uint64_t begin = 0;
  std::optional<std::uint64_t> end;  // none: no upper bound
};

std::int64_t parse_duration_ns(std::string_view text);
// `max_bytes`: callers with a narrower type (Lua's int64) say so, and a
// larger value gets the parser's own "too large" message.
std::uint64_t parse_size_bytes(std::string_view text,
                               std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max());
DurationRange parse_duration_range(std::string_view text);
SizeRange parse_size_range(std::string_view text, std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max());

// Decimal units with two decimals, rounded half up: `0 B`, `999 B`,
// `1.00 KB`, `76.94 KB`, `10.49 MB` (KB, MB, GB, TB, PB, EB). A value that
// rounds to 1000.00 of a unit is shown in the next one (`1.00 MB`).
std::string format_bytes_human(std::uint64_t bytes);

// The largest of ns, us, ms, s that keeps the value at least 1 (seconds for
// everything from 1 s up, as xperf and WPA show time), with up to three
// decimals, trailing zeros dropped, rounded half up: `0s`, `250us`,
// `443ms`, `1.5s`, `1.235s`, `7200s`. Negative values get a `-`. The result
// parses back with parse_duration_ns (exactly, unless it was rounded).
std::string format_duration(std::int64_t ns);

// `0x` and lowercase hex without leading zeros, `0x0` for zero, as frames
// render addresses (semantics.md §1).
std::string format_hex_address(std::uint64_t address);

// A count and its noun, singular for exactly one: `1 block`, `0 blocks`,
// `2 processes`.
std::string format_count(std::uint64_t n, std::string_view one, std::string_view many);

}  // namespace heapql
