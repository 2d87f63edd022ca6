// Durations, sizes and ranges as users write them (the window of
// semantics.md §2, the size and lifetime filters of §4), and their human forms.
#include "engine/units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "engine/error.h"

namespace heapql {
namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string duration_error(std::string_view text) {
  return error_of([&] { parse_duration_ns(text); });
}
std::string size_error(std::string_view text) {
  return error_of([&] { parse_size_bytes(text); });
}
std::string duration_range_error(std::string_view text) {
  return error_of([&] { parse_duration_range(text); });
}
std::string size_range_error(std::string_view text) {
  return error_of([&] { parse_size_range(text); });
}

TEST(ParseDuration, EveryUnit) {
  EXPECT_EQ(parse_duration_ns("7ns"), 7);
  EXPECT_EQ(parse_duration_ns("7us"), 7'000);
  EXPECT_EQ(parse_duration_ns("7ms"), 7'000'000);
  EXPECT_EQ(parse_duration_ns("7s"), 7'000'000'000);
  EXPECT_EQ(parse_duration_ns("7m"), 420'000'000'000);
  EXPECT_EQ(parse_duration_ns("2h"), 7'200'000'000'000);
  EXPECT_EQ(parse_duration_ns("0s"), 0);
  EXPECT_EQ(parse_duration_ns("007ms"), 7'000'000);
}

TEST(ParseDuration, UnitsAreCaseInsensitive) {
  EXPECT_EQ(parse_duration_ns("250MS"), 250'000'000);
  EXPECT_EQ(parse_duration_ns("1S"), 1'000'000'000);
}

TEST(ParseDuration, FractionsAreExact) {
  EXPECT_EQ(parse_duration_ns("1.5s"), 1'500'000'000);
  EXPECT_EQ(parse_duration_ns("0.1ms"), 100'000);
  EXPECT_EQ(parse_duration_ns("0.001us"), 1);
  EXPECT_EQ(parse_duration_ns("1.000000000s"), 1'000'000'000);
  EXPECT_EQ(parse_duration_ns("0.3s"), 300'000'000);  // no binary floating point
  EXPECT_EQ(parse_duration_ns("1.25m"), 75'000'000'000);
}

TEST(ParseDuration, LargestValueAndOverflow) {
  EXPECT_EQ(parse_duration_ns("9223372036854775807ns"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(duration_error("9223372036854775808ns"),
            "'9223372036854775808ns' at column 1: too large: the most is 9223372036854775807ns (about 292 years)");
  EXPECT_EQ(duration_error("99999999999999999999999s").substr(0, 40), "'99999999999999999999999s' at column 1: ");
  EXPECT_NE(duration_error("3000000h").find("too large"), std::string::npos);
  EXPECT_EQ(parse_duration_ns("9223372036.854775807s"), std::numeric_limits<std::int64_t>::max());
  EXPECT_NE(duration_error("9223372036.854775808s").find("too large"), std::string::npos);
}

TEST(ParseDuration, ErrorsQuoteTheInputAndPointAtTheColumn) {
  EXPECT_EQ(duration_error("1.5xs"), "'1.5xs' at column 4: unknown unit 'xs', expected one of ns us ms s m h");
  EXPECT_EQ(duration_error("10"), "'10' at column 3: needs a unit: ns us ms s m h");
  EXPECT_EQ(duration_error(""), "'' at column 1: expected a number");
  EXPECT_EQ(duration_error("s"), "'s' at column 1: expected a number");
  EXPECT_EQ(duration_error("-1s"), "'-1s' at column 1: expected a number; negative values are not allowed");
  EXPECT_EQ(duration_error("1.s"), "'1.s' at column 3: expected a digit after '.'");
  EXPECT_EQ(duration_error(".5s"), "'.5s' at column 1: expected a number");
  EXPECT_EQ(duration_error("1 s"), "'1 s' at column 2: unknown unit ' s', expected one of ns us ms s m h");
  EXPECT_EQ(duration_error("1.5ns"), "'1.5ns' at column 3: finer than 1 ns");
  EXPECT_EQ(duration_error("0.0000000001s"), "'0.0000000001s' at column 3: finer than 1 ns");
  EXPECT_EQ(duration_error("1.1234567890123456789s"), "'1.1234567890123456789s' at column 3: at most 18 digits after the point");
}

TEST(ParseSize, BareNumbersAreBytes) {
  EXPECT_EQ(parse_size_bytes("0"), 0u);
  EXPECT_EQ(parse_size_bytes("4096"), 4096u);
  EXPECT_EQ(parse_size_bytes("12B"), 12u);
}

TEST(ParseSize, DecimalAndBinaryUnits) {
  EXPECT_EQ(parse_size_bytes("4K"), 4'000u);
  EXPECT_EQ(parse_size_bytes("4KB"), 4'000u);
  EXPECT_EQ(parse_size_bytes("4KiB"), 4'096u);
  EXPECT_EQ(parse_size_bytes("4Ki"), 4'096u);
  EXPECT_EQ(parse_size_bytes("1M"), 1'000'000u);
  EXPECT_EQ(parse_size_bytes("1MB"), 1'000'000u);
  EXPECT_EQ(parse_size_bytes("1MiB"), 1'048'576u);
  EXPECT_EQ(parse_size_bytes("1Mi"), 1'048'576u);
  EXPECT_EQ(parse_size_bytes("2G"), 2'000'000'000u);
  EXPECT_EQ(parse_size_bytes("2GB"), 2'000'000'000u);
  EXPECT_EQ(parse_size_bytes("2GiB"), 2'147'483'648u);
  EXPECT_EQ(parse_size_bytes("3T"), 3'000'000'000'000u);
  EXPECT_EQ(parse_size_bytes("3TB"), 3'000'000'000'000u);
  EXPECT_EQ(parse_size_bytes("1TiB"), 1'099'511'627'776u);
}

TEST(ParseSize, UnitsAreCaseInsensitive) {
  EXPECT_EQ(parse_size_bytes("4kb"), 4'000u);
  EXPECT_EQ(parse_size_bytes("4kib"), 4'096u);
  EXPECT_EQ(parse_size_bytes("4KIB"), 4'096u);
  EXPECT_EQ(parse_size_bytes("1mib"), 1'048'576u);
  EXPECT_EQ(parse_size_bytes("12b"), 12u);
}

TEST(ParseSize, FractionsMustComeToWholeBytes) {
  EXPECT_EQ(parse_size_bytes("1.5KB"), 1'500u);
  EXPECT_EQ(parse_size_bytes("1.5KiB"), 1'536u);
  EXPECT_EQ(parse_size_bytes("0.25MiB"), 262'144u);
  EXPECT_EQ(parse_size_bytes("2.0B"), 2u);
  EXPECT_EQ(size_error("1.5B"), "'1.5B' at column 3: not a whole number of bytes");
  EXPECT_EQ(size_error("1.0001KB"), "'1.0001KB' at column 3: not a whole number of bytes");
  EXPECT_EQ(size_error("0.3KiB"), "'0.3KiB' at column 3: not a whole number of bytes");
}

TEST(ParseSize, LargestValueAndOverflow) {
  EXPECT_EQ(parse_size_bytes("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(size_error("18446744073709551616"),
            "'18446744073709551616' at column 1: too large: the most is 18446744073709551615 bytes");
  EXPECT_NE(size_error("20000000TB").find("too large"), std::string::npos);
  EXPECT_EQ(parse_size_bytes("16777215.9999847412109375TiB"), 18'446'744'073'692'774'400u);  // 2^64 - 2^24
}

TEST(ParseSize, ErrorsQuoteTheInputAndPointAtTheColumn) {
  EXPECT_EQ(size_error("4XB"), "'4XB' at column 2: unknown unit 'XB', expected one of B KB KiB MB MiB GB GiB TB TiB");
  EXPECT_EQ(size_error("KB"), "'KB' at column 1: expected a number");
  EXPECT_EQ(size_error("-4KB"), "'-4KB' at column 1: expected a number; negative values are not allowed");
  EXPECT_EQ(size_error(""), "'' at column 1: expected a number");
}

// semantics.md §2: the window is half-open; an open end means the whole rest.
TEST(ParseDurationRange, Forms) {
  DurationRange r = parse_duration_range("1s..3s");
  EXPECT_EQ(r.begin_ns, 1'000'000'000);
  EXPECT_EQ(r.end_ns, 3'000'000'000);

  r = parse_duration_range("1.5s..");
  EXPECT_EQ(r.begin_ns, 1'500'000'000);
  EXPECT_FALSE(r.end_ns.has_value());

  r = parse_duration_range("..250ms");
  EXPECT_EQ(r.begin_ns, 0);
  EXPECT_EQ(r.end_ns, 250'000'000);

  r = parse_duration_range("2s..end");
  EXPECT_EQ(r.begin_ns, 2'000'000'000);
  EXPECT_FALSE(r.end_ns.has_value());

  for (std::string_view whole : {"all", "ALL", "..", "..end"}) {
    r = parse_duration_range(whole);
    EXPECT_EQ(r.begin_ns, 0) << whole;
    EXPECT_FALSE(r.end_ns.has_value()) << whole;
  }

  r = parse_duration_range("2s..2s");  // empty but valid
  EXPECT_EQ(r.begin_ns, 2'000'000'000);
  EXPECT_EQ(r.end_ns, 2'000'000'000);

  r = parse_duration_range("1m..1.5m");
  EXPECT_EQ(r.begin_ns, 60'000'000'000);
  EXPECT_EQ(r.end_ns, 90'000'000'000);
}

TEST(ParseDurationRange, Errors) {
  EXPECT_EQ(duration_range_error("1s"),
            "'1s' at column 3: expected A..B (or A.., ..B, all): '1s..' is from 1s on, '..1s' is below 1s");
  // A dash for '..': the fix, with the unit on both ends.
  EXPECT_EQ(duration_range_error("2-8s"),
            "'2-8s' at column 2: expected A..B: a range is written with '..', each end with its unit ('2s..8s')");
  EXPECT_EQ(duration_range_error("2s-8s"),
            "'2s-8s' at column 3: expected A..B: a range is written with '..', each end with its unit ('2s..8s')");
  EXPECT_EQ(duration_range_error(""), "'' at column 1: expected A..B (or A.., ..B, all)");
  EXPECT_EQ(duration_range_error("3s..1s"), "'3s..1s' at column 5: the end '1s' is before the begin '3s'");
  EXPECT_EQ(duration_range_error("1s..3xs"), "'1s..3xs' at column 6: unknown unit 'xs', expected one of ns us ms s m h");
  EXPECT_EQ(duration_range_error("1..3s"), "'1..3s' at column 2: needs a unit: ns us ms s m h");
  EXPECT_EQ(duration_range_error("1s..2s..3s"), "'1s..2s..3s' at column 7: expected A..B with a single '..'");
  EXPECT_EQ(duration_range_error("end..2s"), "'end..2s' at column 1: expected a number");
  EXPECT_EQ(duration_range_error("1s...5s"), "'1s...5s' at column 5: expected a number");
}

// semantics.md §4: the size filter keeps S1 <= size < S2.
TEST(ParseSizeRange, Forms) {
  SizeRange r = parse_size_range("4KB..1MiB");
  EXPECT_EQ(r.begin, 4'000u);
  EXPECT_EQ(r.end, 1'048'576u);

  r = parse_size_range("1K..");
  EXPECT_EQ(r.begin, 1'000u);
  EXPECT_FALSE(r.end.has_value());

  r = parse_size_range("..64");
  EXPECT_EQ(r.begin, 0u);
  EXPECT_EQ(r.end, 64u);

  r = parse_size_range("all");
  EXPECT_EQ(r.begin, 0u);
  EXPECT_FALSE(r.end.has_value());

  r = parse_size_range("..");
  EXPECT_EQ(r.begin, 0u);
  EXPECT_FALSE(r.end.has_value());
}

TEST(ParseSizeRange, Errors) {
  EXPECT_EQ(size_range_error("4KB"),
            "'4KB' at column 4: expected A..B (or A.., ..B, all): '4KB..' is from 4KB on, '..4KB' is below 4KB");
  EXPECT_EQ(size_range_error("1-10MB"),
            "'1-10MB' at column 2: expected A..B: a range is written with '..', each end with its unit ('1MB..10MB')");
  EXPECT_EQ(size_range_error("1MiB..4KB"), "'1MiB..4KB' at column 7: the end '4KB' is before the begin '1MiB'");
  EXPECT_EQ(size_range_error("1K..end"), "'1K..end' at column 5: expected a number");
  EXPECT_EQ(size_range_error("1.5B..4"), "'1.5B..4' at column 3: not a whole number of bytes");
}

TEST(FormatBytesHuman, DecimalUnitsWithTwoDecimals) {
  EXPECT_EQ(format_bytes_human(0), "0 B");
  EXPECT_EQ(format_bytes_human(999), "999 B");
  EXPECT_EQ(format_bytes_human(1000), "1.00 KB");
  EXPECT_EQ(format_bytes_human(1024), "1.02 KB");
  EXPECT_EQ(format_bytes_human(76'940), "76.94 KB");
  EXPECT_EQ(format_bytes_human(10'485'760), "10.49 MB");
  EXPECT_EQ(format_bytes_human(1'234'567'890), "1.23 GB");
  EXPECT_EQ(format_bytes_human(5'000'000'000'000), "5.00 TB");
}

TEST(FormatBytesHuman, RoundsHalfUpAndCarriesIntoTheNextUnit) {
  EXPECT_EQ(format_bytes_human(1'005), "1.01 KB");
  EXPECT_EQ(format_bytes_human(1'004), "1.00 KB");
  EXPECT_EQ(format_bytes_human(999'994), "999.99 KB");
  EXPECT_EQ(format_bytes_human(999'995), "1.00 MB");
  EXPECT_EQ(format_bytes_human(std::numeric_limits<std::uint64_t>::max()), "18.45 EB");
}

TEST(FormatDuration, ShortestHumanForm) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(1), "1ns");
  EXPECT_EQ(format_duration(999), "999ns");
  EXPECT_EQ(format_duration(250'000), "250us");
  EXPECT_EQ(format_duration(1'500), "1.5us");
  EXPECT_EQ(format_duration(443'000'000), "443ms");
  EXPECT_EQ(format_duration(443'123'456), "443.123ms");
  EXPECT_EQ(format_duration(1'500'000'000), "1.5s");
  EXPECT_EQ(format_duration(1'234'567'890), "1.235s");
  EXPECT_EQ(format_duration(7'200'000'000'000), "7200s");
  EXPECT_EQ(format_duration(-250'000'000), "-250ms");
}

TEST(FormatDuration, RoundingCarriesIntoTheNextUnit) {
  EXPECT_EQ(format_duration(999'999'499), "999.999ms");
  EXPECT_EQ(format_duration(999'999'500), "1s");
  EXPECT_EQ(format_duration(1'000'000), "1ms");
  EXPECT_EQ(format_duration(std::numeric_limits<std::int64_t>::min()), "-9223372036.855s");
}

TEST(FormatDuration, ParsesBack) {
  for (std::int64_t ns : {std::int64_t{1}, std::int64_t{1'500}, std::int64_t{443'000'000}, std::int64_t{1'500'000'000},
                          std::int64_t{7'200'000'000'000}, std::int64_t{250'125'000}}) {
    EXPECT_EQ(parse_duration_ns(format_duration(ns)), ns) << format_duration(ns);
  }
}

// semantics.md §1: hex is lowercase without leading zeros.
TEST(FormatHexAddress, LowercaseWithoutLeadingZeros) {
  EXPECT_EQ(format_hex_address(0), "0x0");
  EXPECT_EQ(format_hex_address(0x1a2b), "0x1a2b");
  EXPECT_EQ(format_hex_address(0x00007ff6ABCD0000), "0x7ff6abcd0000");
  EXPECT_EQ(format_hex_address(std::numeric_limits<std::uint64_t>::max()), "0xffffffffffffffff");
}

TEST(FormatCount, SingularForExactlyOne) {
  EXPECT_EQ(format_count(0, "block", "blocks"), "0 blocks");
  EXPECT_EQ(format_count(1, "block", "blocks"), "1 block");
  EXPECT_EQ(format_count(2, "process", "processes"), "2 processes");
  EXPECT_EQ(format_count(11, "heap", "heaps"), "11 heaps");
}

}  // namespace
}  // namespace heapql
