// Tests for HeaptrackLinePipeline's decoding: every line, well-formed or
// not, gets the code a plain reading of formats/heaptrack.md gives it, both
// where the reading thread reads a line 16 bytes at a time and near the end
// of its buffer, where it reads a digit at a time; and hex_value.
#include "engine/ingest/heaptrack_line_pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "engine/ingest/hex_digit.h"

namespace heapql {
namespace {

using Pipeline = HeaptrackLinePipeline;

// What one line should decode to: an event code, a record, or text.
struct Expected {
  std::optional<std::uint32_t> event;
  std::optional<Pipeline::Record> record;
};

std::optional<std::uint64_t> plain_hex(std::string_view digits, std::size_t max_digits, bool canonical) {
  if (digits.empty() || digits.size() > max_digits) return std::nullopt;
  if (canonical && digits.size() > 1 && digits[0] == '0') return std::nullopt;
  for (char c : digits) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  std::uint64_t value = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  return value;
}

// `+ k` / `- k`: 1-8 lowercase hex digits (leading zeros allowed), k at most
// kMaxIndex. `t ip parent` / `a size trace`: canonical numbers, the first of
// at most 8 digits (16 for a size), the second of at most 8.
Expected expect(std::string_view line) {
  Expected e;
  if (line.size() < 3 || line[1] != ' ') return e;
  const std::string_view rest = line.substr(2);
  if (line[0] == '+' || line[0] == '-') {
    const auto value = plain_hex(rest, 8, false);
    if (value && *value <= Pipeline::kMaxIndex) e.event = static_cast<std::uint32_t>(*value << 1 | (line[0] == '-'));
    return e;
  }
  if (line[0] != 't' && line[0] != 'a') return e;
  const std::size_t space = rest.find(' ');
  if (space == std::string_view::npos) return e;
  const auto first = plain_hex(rest.substr(0, space), line[0] == 'a' ? 16 : 8, true);
  const auto second = plain_hex(rest.substr(space + 1), 8, true);
  if (first && second) e.record = Pipeline::Record{*first, static_cast<std::uint32_t>(*second), line[0]};
  return e;
}

std::string random_hex(std::mt19937_64& random, std::size_t digits) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < digits; ++i) out.push_back(kDigits[random() % 16]);
  return out;
}

// Lines near the decoder's edges: every number length around its limits,
// leading zeros, foreign bytes in any place, spaces doubled or missing.
std::string random_line(std::mt19937_64& random) {
  static constexpr char kTypes[] = {'+', '-', 't', 'a', 'i', 's', '#', 'm'};
  const char type = kTypes[random() % 10 < 7 ? random() % 4 : 4 + random() % 4];
  std::string line{type, ' '};
  line += random_hex(random, 1 + random() % 10);
  if (type == 't' || type == 'a' || random() % 8 == 0) {
    line += ' ';
    line += random_hex(random, (type == 'a' && random() % 2 ? 6 : 1) + random() % 11);
  }
  if (random() % 4 == 0) {
    static constexpr char kForeign[] = {'0', 'A', 'g', ' ', '/', ':', '`', '\x80', '\xff', '\t', 'F'};
    line[random() % line.size()] = kForeign[random() % sizeof kForeign];
  }
  if (random() % 16 == 0) line.insert(2, "0");
  if (random() % 32 == 0) line.resize(random() % line.size());
  return line;
}

void expect_decoded(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + '\n';
  Pipeline pipeline("lines.txt", text);
  std::size_t n = 0;
  while (const Pipeline::Batch* batch = pipeline.next()) {
    ASSERT_EQ(batch->error, nullptr);
    for (std::uint32_t code : batch->codes) {
      ASSERT_LT(n, lines.size());
      const std::string& line = lines[n];
      const Expected e = expect(line);
      SCOPED_TRACE(fmt::format("line {}: {:?}", n + 1, line));
      if (e.event) {
        EXPECT_EQ(code, *e.event);
      } else if (e.record) {
        ASSERT_TRUE(code & Pipeline::kRecordBit) << fmt::format("{:#x}", code);
        const Pipeline::Record& r = batch->records[code & ~Pipeline::kRecordBit];
        EXPECT_EQ(r.type, e.record->type);
        EXPECT_EQ(r.first, e.record->first);
        EXPECT_EQ(r.second, e.record->second);
        EXPECT_EQ(r.text(), line);
      } else {
        ASSERT_TRUE(code & Pipeline::kTextBit) << fmt::format("{:#x}", code);
        EXPECT_EQ(batch->text_line(code), line);
      }
      ++n;
    }
  }
  EXPECT_EQ(n, lines.size());
}

TEST(HeaptrackLinePipeline, DecodesEveryLineAsTheFormatSays) {
  std::mt19937_64 random(20261127);
  std::vector<std::string> lines;
  for (int i = 0; i < 200000; ++i) lines.push_back(random_line(random));
  expect_decoded(lines);
}

TEST(HeaptrackLinePipeline, EdgeLinesInsideAndAtTheEndOfTheBuffer) {
  const std::vector<std::string> edges = {
      "+ 0",          "- 0",          "+ 1fffffff",   "+ 20000000",   "- 01fffffff",  "+ 00000001",
      "+ 123456789",  "+ ",           "+",            "+  1",         "+ 1 ",         "+ 1f ",
      "+ A",          "+ 1g",         "t 1 0",        "t 0 0",        "t 01 0",       "t 1 00",
      "t ffffffff 1", "t 100000000 1", "t 1 ffffffff", "t 1 100000000", "a 10 1",      "a 123456789 2",
      "a ffffffffffffffff 3",         "a 10000000000000000 3",        "a 1  2",       "a 1 2 ",
      "a 1",          "t",            "t 1 2 3",      "i 1 2 3",      "s foo",        "",
  };
  // Each edge line among ordinary events, so that the fast path reads it,
  // and once more as the last lines, which the digit-at-a-time path reads.
  std::vector<std::string> lines;
  for (const auto& edge : edges) {
    for (int i = 0; i < 4; ++i) lines.push_back("+ 1a");
    lines.push_back(edge);
  }
  for (const auto& edge : edges) lines.push_back(edge);
  expect_decoded(lines);
}

// Waits up to 10 s for the reading thread to have filled `count` slots.
bool slots_used_reach(const Pipeline& pipeline, std::size_t count) {
  for (int i = 0; i < 1000 && pipeline.slots_used() < count; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pipeline.slots_used() == count;
}

TEST(HeaptrackLinePipeline, FillsSlotsPastTheFirstOnlyAsAllowed) {
  // Enough lines for more batches than slots, none of them consumed yet.
  std::string text;
  constexpr std::size_t kLines = 3'000'000;
  for (std::size_t i = 0; i < kLines; ++i) text += i % 2 ? "- 1\n" : "+ 1\n";
  Pipeline pipeline("lines.txt", text, Pipeline::Decode::kRecords, Pipeline::kMostSlotsAlone);
  ASSERT_TRUE(slots_used_reach(pipeline, Pipeline::kSlotsAlone));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(pipeline.slots_used(), Pipeline::kSlotsAlone);
  pipeline.allow_slots(Pipeline::kSlotsAlone + 3);
  ASSERT_TRUE(slots_used_reach(pipeline, Pipeline::kSlotsAlone + 3));
  pipeline.allow_slots(1000);
  ASSERT_TRUE(slots_used_reach(pipeline, Pipeline::kMostSlotsAlone));
  // Every line comes out once, in order, from the slots taken in turn.
  std::size_t n = 0;
  while (const Pipeline::Batch* batch = pipeline.next()) {
    ASSERT_EQ(batch->error, nullptr);
    ASSERT_EQ(batch->first_line, n + 1);
    for (std::uint32_t code : batch->codes) ASSERT_EQ(code, (std::uint32_t{1} << 1) | (n++ % 2)) << n;
  }
  EXPECT_EQ(n, kLines);
  EXPECT_EQ(pipeline.slots_used(), Pipeline::kMostSlotsAlone);
}

// A stretch of new stacks is all `t` records: its batches end at
// kBatchRecords records, so that no slot's record column grows past that,
// while the events after it still come in batches of many more lines.
TEST(HeaptrackLinePipeline, ABatchHoldsAtMostKBatchRecordsRecords) {
  std::vector<std::string> lines;
  for (std::uint32_t i = 1; i <= 100'000; ++i) lines.push_back(fmt::format("t {:x} {:x}", i, i - 1));
  for (std::uint32_t i = 0; i < 200'000; ++i) lines.push_back(i % 2 ? "- 1" : "+ 1");
  std::string text;
  for (const auto& line : lines) text += line + '\n';
  Pipeline pipeline("lines.txt", text);
  std::size_t most_records = 0, most_lines = 0, n = 0;
  while (const Pipeline::Batch* batch = pipeline.next()) {
    ASSERT_EQ(batch->error, nullptr);
    ASSERT_EQ(batch->first_line, n + 1);
    most_records = std::max(most_records, batch->records.size());
    most_lines = std::max(most_lines, batch->codes.size());
    n += batch->codes.size();
  }
  EXPECT_EQ(n, lines.size());
  EXPECT_EQ(most_records, Pipeline::kBatchRecords);
  EXPECT_GT(most_lines, 2 * Pipeline::kBatchRecords);
  expect_decoded(lines);
}

TEST(HexValue, EveryLengthAndDigit) {
  std::mt19937_64 random(7);
  for (unsigned digits = 1; digits <= 8; ++digits) {
    for (int i = 0; i < 2000; ++i) {
      // Bytes after the number must not matter.
      const std::string text = random_hex(random, digits) + std::string(8, static_cast<char>(random()));
      std::uint32_t want = 0;
      std::from_chars(text.data(), text.data() + digits, want, 16);
      EXPECT_EQ(hex_value(text.data(), digits), want) << text.substr(0, digits);
    }
  }
  EXPECT_EQ(hex_value("ffffffff", 8), 0xffffffffu);
  EXPECT_EQ(hex_value("00000000", 8), 0u);
}

}  // namespace
}  // namespace heapql
