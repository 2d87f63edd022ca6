// Tests for the ETL container layer: Xpress decompression on hand-made
// streams, the exact counts of the real samples in ../shared/data/etw
// (README "Exact counts"), and bad input made by mutating a real file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engine/error.h"
#include "engine/ingest/etl/etl_file.h"
#include "engine/ingest/etl/etl_record.h"
#include "engine/ingest/etl/xpress.h"
#include "tests/support/xpress_compressor.h"
#include "tests/support/test_support.h"

namespace heapql {
namespace {

using Bytes = std::vector<std::uint8_t>;

// ---------------------------------------------------------------------------
// Xpress streams built by hand: a tiny encoder that follows the format (flag
// words, shared half bytes, length escapes) so each test states its items.

class XpressStreamBuilder {
 public:
  XpressStreamBuilder& literal(std::string_view text) {
    for (char c : text) {
      flag(false);
      out_.push_back(static_cast<std::uint8_t>(c));
    }
    return *this;
  }
  // A match of `length` bytes (>= 3) copied from `distance` bytes back.
  XpressStreamBuilder& match(std::uint32_t distance, std::uint64_t length) {
    flag(true);
    const std::uint64_t rest = length - 3;
    const auto length3 = static_cast<std::uint16_t>(std::min<std::uint64_t>(rest, 7));
    put16(static_cast<std::uint16_t>((distance - 1) << 3 | length3));
    if (rest < 7) return *this;
    const std::uint64_t after3 = rest - 7;
    put_half_byte(static_cast<std::uint8_t>(std::min<std::uint64_t>(after3, 15)));
    if (after3 < 15) return *this;
    const std::uint64_t after4 = after3 - 15;
    out_.push_back(static_cast<std::uint8_t>(std::min<std::uint64_t>(after4, 255)));
    if (after4 < 255) return *this;
    if (rest <= 0xFFFF) {
      put16(static_cast<std::uint16_t>(rest));
    } else {
      put16(0);
      for (int i = 0; i < 4; ++i) out_.push_back(static_cast<std::uint8_t>(rest >> (8 * i)));
    }
    return *this;
  }
  // The unused flag bits become 1s, which ends the stream (MS-XCA).
  Bytes finish() {
    if (bits_used_ > 0) {
      flags_ |= (std::uint32_t{1} << (32 - bits_used_)) - 1;
      for (int i = 0; i < 4; ++i) out_[flag_at_ + i] = static_cast<std::uint8_t>(flags_ >> (8 * i));
    }
    return out_;
  }

 private:
  void flag(bool is_match) {
    if (bits_used_ == 32 || !started_) {
      if (started_) for (int i = 0; i < 4; ++i) out_[flag_at_ + i] = static_cast<std::uint8_t>(flags_ >> (8 * i));
      started_ = true;
      flag_at_ = out_.size();
      out_.insert(out_.end(), 4, 0);
      flags_ = 0;
      bits_used_ = 0;
    }
    if (is_match) flags_ |= std::uint32_t{1} << (31 - bits_used_);
    ++bits_used_;
  }
  void put16(std::uint16_t value) {
    out_.push_back(static_cast<std::uint8_t>(value));
    out_.push_back(static_cast<std::uint8_t>(value >> 8));
  }
  void put_half_byte(std::uint8_t value) {
    if (half_byte_at_) {
      out_[*half_byte_at_] |= static_cast<std::uint8_t>(value << 4);
      half_byte_at_.reset();
    } else {
      half_byte_at_ = out_.size();
      out_.push_back(value);
    }
  }

  Bytes out_;
  bool started_ = false;
  std::size_t flag_at_ = 0;
  std::uint32_t flags_ = 0;
  int bits_used_ = 0;
  std::optional<std::size_t> half_byte_at_;
};

std::string as_text(const Bytes& bytes) { return std::string(bytes.begin(), bytes.end()); }

TEST(Xpress, LiteralsOnlyAcrossFlagWords) {
  std::string text;
  for (int i = 0; i < 70; ++i) text.push_back(static_cast<char>('a' + i % 26));
  const Bytes stream = XpressStreamBuilder().literal(text).finish();
  EXPECT_EQ(stream.size(), 3 * 4 + text.size());  // 70 literals need three flag words
  Bytes out;
  EXPECT_EQ(xpress_decompress(stream, text.size(), out), "");
  EXPECT_EQ(as_text(out), text);
}

TEST(Xpress, LiteralsWithZeroPaddedFlagsEndAtTheExpectedSize) {
  // Flag word 0 (all literals) and the input simply ends.
  const Bytes stream = {0, 0, 0, 0, 'x', 'y', 'z'};
  Bytes out;
  EXPECT_EQ(xpress_decompress(stream, 3, out), "");
  EXPECT_EQ(as_text(out), "xyz");
}

TEST(Xpress, MatchCopiesFromEarlierOutput) {
  // Flags 0001 1111...: three literals, then a match (distance 3, length 6).
  const Bytes stream = {0xFF, 0xFF, 0xFF, 0x1F, 'a', 'b', 'c', 0x13, 0x00};
  EXPECT_EQ(stream, XpressStreamBuilder().literal("abc").match(3, 6).finish());
  Bytes out;
  EXPECT_EQ(xpress_decompress(stream, 9, out), "");
  EXPECT_EQ(as_text(out), "abcabcabc");
}

TEST(Xpress, OverlappingMatchRepeatsOneByte) {
  const Bytes stream = XpressStreamBuilder().literal("a").match(1, 5).finish();
  Bytes out;
  EXPECT_EQ(xpress_decompress(stream, 6, out), "");
  EXPECT_EQ(as_text(out), "aaaaaa");
}

TEST(Xpress, LongMatchesUseEveryLengthExtension) {
  // 12 and 15: two half bytes sharing one byte; 125: half byte 15 + byte;
  // 1000: the 16-bit length; 70000: the 32-bit length.
  const std::vector<std::uint64_t> lengths = {10, 12, 15, 125, 1000, 70000};
  XpressStreamBuilder builder;
  builder.literal("xy");
  std::string expected = "xy";
  for (std::uint64_t length : lengths) {
    builder.match(2, length);
    for (std::uint64_t i = 0; i < length; ++i) expected.push_back(expected[expected.size() - 2]);
    builder.literal("z");
    expected.push_back('z');
  }
  const Bytes stream = builder.finish();
  Bytes out;
  EXPECT_EQ(xpress_decompress(stream, expected.size(), out), "");
  EXPECT_EQ(as_text(out), expected);
}

TEST(Xpress, SharedHalfByteHoldsTwoLengths) {
  // Match 1 (length 12: half byte 2) writes the byte 0x52; match 2 (length
  // 15: half byte 5) takes the high half and reads no byte of its own.
  const Bytes stream = XpressStreamBuilder().literal("ab").match(2, 12).match(2, 15).finish();
  const Bytes expected_stream = {0xFF, 0xFF, 0xFF, 0x3F, 'a', 'b', 0x0F, 0x00, 0x52, 0x0F, 0x00};
  EXPECT_EQ(stream, expected_stream);
  Bytes out;
  EXPECT_EQ(xpress_decompress(stream, 29, out), "");
  std::string expected;
  for (int i = 0; i < 29; ++i) expected.push_back(i % 2 == 0 ? 'a' : 'b');
  EXPECT_EQ(as_text(out), expected);
}

TEST(Xpress, MatchBeforeTheOutputStartIsAnError) {
  const Bytes stream = XpressStreamBuilder().literal("ab").match(3, 3).finish();
  Bytes out;
  const std::string problem = xpress_decompress(stream, 5, out);
  EXPECT_NE(problem.find("input byte 6"), std::string::npos) << problem;
  EXPECT_NE(problem.find("before the output start"), std::string::npos) << problem;
}

TEST(Xpress, TruncatedStreamsAreErrors) {
  const Bytes whole = XpressStreamBuilder().literal("abcd").match(4, 300).literal("e").finish();
  Bytes out;
  ASSERT_EQ(xpress_decompress(whole, 305, out), "");
  for (std::size_t keep = 0; keep < whole.size(); ++keep) {
    const Bytes cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(keep));
    const std::string problem = xpress_decompress(cut, 305, out);
    EXPECT_NE(problem, "") << "kept " << keep << " bytes";
    EXPECT_NE(problem.find("input byte"), std::string::npos) << problem;
  }
}

TEST(Xpress, OutputSizeMustMatchExactly) {
  const Bytes stream = XpressStreamBuilder().literal("abc").match(3, 6).finish();
  Bytes out;
  EXPECT_NE(xpress_decompress(stream, 10, out).find("expected 10"), std::string::npos);
  EXPECT_NE(xpress_decompress(stream, 8, out).find("past the expected 8"), std::string::npos);
  EXPECT_NE(xpress_decompress(stream, 2, out).find("past the expected 2"), std::string::npos);
  EXPECT_NE(xpress_decompress({}, 1, out), "");
  EXPECT_EQ(xpress_decompress({}, 0, out), "");
}

TEST(Xpress, OutputGrowsPastItsFirstSizeByLiteralsAndMatches) {
  // 300 KB of text that compresses partly (repeated words, random runs), so
  // that literals and matches both cross the output's growth steps.
  Bytes text;
  std::uint32_t seed = 12345;
  while (text.size() < 300'000) {
    seed = seed * 1103515245u + 12345u;
    if (seed % 3 == 0) {
      for (const char c : std::string("allocate, free, reallocate; ")) text.push_back(static_cast<std::uint8_t>(c));
    } else {
      text.push_back(static_cast<std::uint8_t>(seed >> 16));
    }
  }
  const Bytes stream = test::xpress_compress(text);
  Bytes out;
  EXPECT_EQ(xpress_decompress(stream, text.size(), out), "");
  EXPECT_TRUE(out == text);
}

TEST(Xpress, AHostileExpectedSizeAllocatesOnlyWhatTheStreamWrites) {
  const Bytes stream = XpressStreamBuilder().literal("abc").match(3, 6).finish();
  Bytes out;
  const std::string problem = xpress_decompress(stream, std::size_t{1} << 40, out);
  EXPECT_NE(problem.find("ends after 9 bytes of output"), std::string::npos) << problem;
  EXPECT_EQ(out.size(), 9u);
  EXPECT_LE(out.capacity(), std::size_t{1} << 20);
}

TEST(Xpress, SixteenBitLengthBelowItsEscapesIsAnError) {
  // Escapes 7, 15, 255, then a 16-bit length of 5 (it must be at least 22).
  const Bytes stream = {0xFF, 0xFF, 0xFF, 0x7F, 'a', 0x07, 0x00, 0x0F, 0xFF, 0x05, 0x00};
  Bytes out;
  const std::string problem = xpress_decompress(stream, 100, out);
  EXPECT_NE(problem.find("input byte 5"), std::string::npos) << problem;
}

// ---------------------------------------------------------------------------
// The real samples.

std::string sample_dir() { return test::shared_data("etw"); }

#define REQUIRE_SAMPLES()                                                                       \
  if (sample_dir().empty()) GTEST_SKIP() << "no ../shared/data/etw: the ETL sample files are absent"

// The two zipped samples, extracted once per test run into a temp folder.
std::string extracted(const std::string& zip_name, const std::string& etl_name) {
  static std::unique_ptr<test::TempDir> dir;
  if (!dir) dir = std::make_unique<test::TempDir>();
  const std::string etl = dir->file(etl_name);
  if (!std::filesystem::exists(etl)) {
    const std::string zip = sample_dir() + "/" + zip_name;
    const auto r = test::run_command("python3 -m zipfile -e " + test::shell_quote(zip) + " " +
                                     test::shell_quote(dir->path().string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  return etl;
}

struct Scan {
  EtlLogfileHeader header;
  EtlContainerStats stats;
  std::map<std::uint16_t, std::uint64_t> hooks;  // classic records by hook
  std::map<std::pair<std::string, std::uint16_t>, std::uint64_t> hooks_by_kind;
  std::uint64_t records_seen = 0;
  std::int64_t first_timestamp = 0;
  std::map<std::string, std::uint8_t> pointer_size_by_kind;
};

Scan scan(const std::string& path) {
  Scan result;
  EtlFile file(path);
  file.read([&](const EtlRecord& record) {
    if (result.records_seen++ == 0) result.first_timestamp = record.timestamp;
    const std::string kind(etl_header_kind_name(record.kind));
    result.pointer_size_by_kind[kind] = record.pointer_size;
    if (!record.classic) return;
    ++result.hooks[record.hook];
    ++result.hooks_by_kind[{kind, record.hook}];
  });
  result.header = file.header();
  result.stats = file.stats();
  return result;
}

using KindCounts = std::map<std::string, std::uint64_t>;

void expect_common_header(const Scan& s) {
  EXPECT_EQ(s.header.pointer_size, 8U);
  EXPECT_EQ(s.header.clock_type, 1U);
  EXPECT_EQ(s.header.perf_freq, 10'000'000U);
  EXPECT_EQ(s.header.header_timestamp, s.first_timestamp);
  EXPECT_GT(s.header.start_time_filetime, 0U);
  EXPECT_EQ(s.records_seen, s.stats.records);
  EXPECT_EQ(s.stats.logfile_headers, 1U);  // even the merged net sample has one
}

TEST(EtlSamples, SelfDescribingSingleEvent) {
  REQUIRE_SAMPLES();
  const Scan s = scan(sample_dir() + "/perfview-SelfDescribingSingleEvent.etl");
  EXPECT_EQ(s.stats.buffers, 3U);
  EXPECT_EQ(s.stats.compressed_buffers, 2U);
  EXPECT_EQ(s.stats.bytes, 7403U);
  EXPECT_EQ(s.stats.records_by_header_kind, (KindCounts{{"sys64", 3}, {"full64", 18}, {"evh64", 1}}));
  EXPECT_EQ(s.stats.records, 22U);
  EXPECT_EQ(s.stats.logfile_headers, 1U);
  EXPECT_EQ((s.hooks_by_kind.at({"sys64", 0x0050})), 2U);
  expect_common_header(s);
}

TEST(EtlSamples, PrimitiveTypes) {
  HEAPQL_SKIP_ON_WINDOWS("python3's zipfile unpacks the sample (windows.package reads it unzipped)");
  REQUIRE_SAMPLES();
  const Scan s = scan(extracted("perfview-primitive-types.etl.zip", "primitive-types.etl"));
  EXPECT_EQ(s.stats.buffers, 2U);
  EXPECT_EQ(s.stats.compressed_buffers, 0U);
  EXPECT_EQ(s.stats.bytes, 16384U);
  EXPECT_EQ(s.stats.records_by_header_kind, (KindCounts{{"sys64", 2}, {"evh64", 5}}));
  expect_common_header(s);
}

TEST(EtlSamples, LxcoreKernel) {
  REQUIRE_SAMPLES();
  const Scan s = scan(sample_dir() + "/etlparser-lxcore_kernel.etl");
  EXPECT_EQ(s.stats.buffers, 3U);
  EXPECT_EQ(s.stats.compressed_buffers, 0U);
  EXPECT_EQ(s.stats.records_by_header_kind, (KindCounts{{"sys64", 2}, {"evh64", 2}}));
  expect_common_header(s);
}

TEST(EtlSamples, NetMergedKernelAndUser) {
  HEAPQL_SKIP_ON_WINDOWS("python3's zipfile unpacks the sample (windows.package reads it unzipped)");
  REQUIRE_SAMPLES();
  const Scan s = scan(extracted("perfview-net.4.5.2.x64.etl.zip", "net.4.5.2.x64.etl"));
  EXPECT_EQ(s.stats.buffers, 360U);
  EXPECT_EQ(s.stats.compressed_buffers, 359U);
  EXPECT_EQ(s.stats.bytes, 4'879'401U);
  EXPECT_EQ(s.stats.records, 179'474U);
  EXPECT_EQ(s.stats.records_by_header_kind,
            (KindCounts{{"perf64", 100'157},
                        {"evh64", 34'765},
                        {"evh32", 33'378},
                        {"full64", 7'956},
                        {"sys64", 3'189},
                        {"full32", 27},
                        {"sys32", 2}}));
  expect_common_header(s);
  EXPECT_EQ(s.header.processors, 8U);
  // Mixed widths: the pointer size follows each record's header kind.
  EXPECT_EQ(s.pointer_size_by_kind.at("full32"), 4);
  EXPECT_EQ(s.pointer_size_by_kind.at("evh32"), 4);
  EXPECT_EQ(s.pointer_size_by_kind.at("full64"), 8);

  auto hook = [&](std::uint16_t id) { return s.hooks.contains(id) ? s.hooks.at(id) : 0; };
  EXPECT_EQ(hook(0x0F2E), 79'528U);  // SampledProfile
  EXPECT_EQ(hook(0x1820), 252U);     // StackWalk
  EXPECT_EQ(hook(0x1823), 1'909U);   // stack keys: KeyDelete, KeyRundown, kernel, user
  EXPECT_EQ(hook(0x1824), 1'012U);
  EXPECT_EQ(hook(0x1825), 2'061U);
  EXPECT_EQ(hook(0x1826), 7'046U);
  EXPECT_EQ(hook(0x030A), 35U);  // image Load, DCStart, DCEnd, Unload
  EXPECT_EQ(hook(0x1403), 1'763U);
  EXPECT_EQ(hook(0x1404), 1'766U);
  EXPECT_EQ(hook(0x1402), 32U);
  EXPECT_EQ(hook(0x0301) + hook(0x0302) + hook(0x0303) + hook(0x0304) + hook(0x0327), 68U);  // process
  EXPECT_EQ(hook(0x0301), 1U);  // Start
  EXPECT_EQ(hook(0x0302), 1U);  // End
  EXPECT_EQ(hook(0x0303), 32U);  // DCStart
  EXPECT_EQ(hook(0x0304), 32U);  // DCEnd
  EXPECT_EQ(hook(0x0327), 2U);  // Defunct
}

TEST(EtlSamples, ShutdownPerfDiagLogger) {
  REQUIRE_SAMPLES();
  const Scan s = scan(sample_dir() + "/etlparser-ShutdownPerfDiagLogger.etl");
  EXPECT_EQ(s.stats.buffers, 49U);
  EXPECT_EQ(s.stats.compressed_buffers, 0U);
  EXPECT_EQ(s.stats.records, 17'078U);
  EXPECT_EQ(s.stats.records_by_header_kind, (KindCounts{{"perf64", 8'645}, {"sys64", 8'433}}));
  expect_common_header(s);
  EXPECT_EQ(s.header.processors, 2U);
  EXPECT_EQ(s.header.os_version & 0xFFFFU, 10U);  // major 10, minor 0

  auto hook = [&](std::uint16_t id) { return s.hooks.contains(id) ? s.hooks.at(id) : 0; };
  EXPECT_EQ(hook(0x0301), 0U);
  // The README's 196 process events: End, DCStart, DCEnd and Defunct (not 0x030B).
  EXPECT_EQ(hook(0x0302), 60U);
  EXPECT_EQ(hook(0x0303), 94U);
  EXPECT_EQ(hook(0x0304), 37U);
  EXPECT_EQ(hook(0x0327), 5U);
  EXPECT_EQ(hook(0x0302) + hook(0x0303) + hook(0x0304) + hook(0x0327), 196U);
  EXPECT_EQ(hook(0x030B), 60U);
  EXPECT_EQ(hook(0x030A), 72U);
  EXPECT_EQ(hook(0x1403), 6'745U);
  EXPECT_EQ(hook(0x1404), 2'145U);
  EXPECT_EQ(hook(0x1402), 4'791U);
  // One hook under two header kinds; process DCStart only as PERFINFO64.
  EXPECT_EQ((s.hooks_by_kind.at({"sys64", 0x1403})), 196U);
  EXPECT_EQ((s.hooks_by_kind.at({"perf64", 0x1403})), 6'549U);
  EXPECT_GT((s.hooks_by_kind.at({"perf64", 0x0303})), 0U);
  EXPECT_FALSE((s.hooks_by_kind.contains({"sys64", 0x0303})));
}

TEST(EtlSamples, SniffRecognisesEtlFilesOnly) {
  REQUIRE_SAMPLES();
  EXPECT_TRUE(EtlFile::sniff(sample_dir() + "/perfview-SelfDescribingSingleEvent.etl"));
  EXPECT_TRUE(EtlFile::sniff(sample_dir() + "/etlparser-ShutdownPerfDiagLogger.etl"));
  EXPECT_FALSE(EtlFile::sniff(sample_dir() + "/README.md"));
  EXPECT_FALSE(EtlFile::sniff(sample_dir() + "/perfview-primitive-types.etl.zip"));
  EXPECT_FALSE(EtlFile::sniff(sample_dir() + "/no-such-file.etl"));
  test::TempDir dir;
  test::write_file(dir.file("empty.etl"), "");
  EXPECT_FALSE(EtlFile::sniff(dir.file("empty.etl")));
}

// ---------------------------------------------------------------------------
// Bad input, made from perfview-SelfDescribingSingleEvent.etl: buffer 0 at
// byte 0 (1,024 bytes, plain), buffer 1 at 1,024 (6,153 bytes, compressed),
// buffer 2 at 7,177 (226 bytes, compressed; 168 bytes of records inflated).

constexpr std::size_t kBuffer1 = 1024;
constexpr std::size_t kBuffer2 = 7177;

class EtlBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (sample_dir().empty()) GTEST_SKIP() << "no ../shared/data/etw: the ETL sample files are absent";
    original_ = test::read_file(sample_dir() + "/perfview-SelfDescribingSingleEvent.etl");
    ASSERT_EQ(original_.size(), 7403U);
    path_ = dir_.file("mutated.etl");
  }

  static void put_u32(std::string& bytes, std::size_t at, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<char>(value >> (8 * i));
  }
  static void put_u16(Bytes& bytes, std::size_t at, std::uint16_t value) {
    bytes[at] = static_cast<std::uint8_t>(value);
    bytes[at + 1] = static_cast<std::uint8_t>(value >> 8);
  }

  // The records of buffer 2, inflated.
  Bytes last_buffer_records() const {
    const Bytes compressed(original_.begin() + kBuffer2 + 72, original_.end());
    Bytes records;
    EXPECT_EQ(xpress_decompress(compressed, 240 - 72, records), "");
    return records;
  }
  // The file with buffer 2 replaced by `records` stored as literals only.
  std::string with_last_buffer(const Bytes& records) const {
    std::string bytes = original_.substr(0, kBuffer2 + 72);
    const Bytes stream = XpressStreamBuilder().literal(std::string_view(
        reinterpret_cast<const char*>(records.data()), records.size())).finish();
    bytes.append(stream.begin(), stream.end());
    put_u32(bytes, kBuffer2, static_cast<std::uint32_t>(72 + stream.size()));
    return bytes;
  }

  // Reads `bytes` written to a file; expects a heapql::Error naming the file
  // and `byte_offset`, whose message contains `expected_text`.
  void expect_error(const std::string& bytes, std::uint64_t byte_offset, const std::string& expected_text) {
    test::write_file(path_, bytes);
    expect_error_at(path_, byte_offset, expected_text);
  }
  static void expect_error_at(const std::string& path, std::optional<std::uint64_t> byte_offset,
                              const std::string& expected_text) {
    try {
      EtlFile(path).read([](const EtlRecord&) {});
      ADD_FAILURE() << "no error; expected one containing: " << expected_text;
    } catch (const Error& error) {
      const std::string what = error.what();
      EXPECT_EQ(error.where().file, path);
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_EQ(error.where().byte_offset, byte_offset) << what;
      if (byte_offset) {
        EXPECT_NE(what.find(fmt::format("byte {}", *byte_offset)), std::string::npos) << what;
      }
      EXPECT_NE(what.find(expected_text), std::string::npos) << what;
    }
  }

  test::TempDir dir_;
  std::string original_;
  std::string path_;
};

TEST_F(EtlBadInput, UnchangedLiteralOnlyRebuildStillReads) {
  // The rebuilt last buffer itself must be right, or the tests below prove nothing.
  test::write_file(path_, with_last_buffer(last_buffer_records()));
  EtlFile file(path_);
  file.read([](const EtlRecord&) {});
  EXPECT_EQ(file.stats().records_by_header_kind, (KindCounts{{"sys64", 3}, {"full64", 18}, {"evh64", 1}}));
  EXPECT_EQ(file.stats().compressed_buffers, 2U);
}

// A file cut short after its complete buffers (a recording stopped
// mid-write, etw-heap.md §4.6) reads those buffers and says where it ends.
TEST_F(EtlBadInput, ACutFileReadsItsCompleteBuffers) {
  struct Case {
    std::size_t keep;
    std::uint64_t at;
    std::uint64_t left_over;
    const char* what;
  };
  for (const Case& c : {Case{7000, kBuffer1, 7000 - kBuffer1, "the last buffer is cut short"},
                        Case{kBuffer2 + 30, kBuffer2, 30, "the file ends 30 bytes into a buffer header"},
                        // Whole buffers, fewer than the header's BuffersWritten (3).
                        Case{kBuffer2, kBuffer2, 0,
                             "its logfile header counts 3 buffers written, and the file ends "
                             "after 2"}}) {
    test::write_file(path_, original_.substr(0, c.keep));
    EtlFile file(path_);
    std::uint64_t records = 0;
    file.read([&](const EtlRecord&) { ++records; });
    ASSERT_TRUE(file.cut().has_value()) << c.keep;
    EXPECT_EQ(file.cut()->file, path_);
    EXPECT_EQ(file.cut()->at_byte, c.at);
    EXPECT_EQ(file.cut()->left_over_bytes, c.left_over);
    EXPECT_NE(file.cut()->what.find(c.what), std::string::npos) << file.cut()->what;
    EXPECT_GT(records, 0u);
    EXPECT_EQ(file.stats().buffers, c.at == kBuffer1 ? 1u : 2u);
  }
  EtlFile whole(path_);
  test::write_file(path_, original_);
  whole.read([](const EtlRecord&) {});
  EXPECT_FALSE(whole.cut().has_value());
}

TEST_F(EtlBadInput, BufferSizePastTheEndIsACutLastBuffer) {
  std::string bytes = original_;
  put_u32(bytes, kBuffer2, 300);
  test::write_file(path_, bytes);
  EtlFile file(path_);
  file.read([](const EtlRecord&) {});
  ASSERT_TRUE(file.cut().has_value());
  EXPECT_EQ(file.cut()->what, "the last buffer is cut short (226 of its 300 bytes)");
}

TEST_F(EtlBadInput, ACutFirstBufferIsNoEtlFile) {
  expect_error(original_.substr(0, 50), 0, "not an ETL file");
}

TEST_F(EtlBadInput, InMemoryBytesReadAsTheFile) {
  EtlFile from_memory("mem.etl", original_);
  std::uint64_t records = 0;
  from_memory.read([&](const EtlRecord&) { ++records; });
  test::write_file(path_, original_);
  EtlFile from_file(path_);
  from_file.read([](const EtlRecord&) {});
  EXPECT_EQ(records, from_file.stats().records);
  EXPECT_EQ(from_memory.stats().records_by_header_kind, from_file.stats().records_by_header_kind);
}

TEST_F(EtlBadInput, BufferSizeBelowTheHeader) {
  std::string bytes = original_;
  put_u32(bytes, kBuffer1, 40);
  expect_error(bytes, kBuffer1, "BufferSize 40 is smaller than the 72-byte buffer header");
}

TEST_F(EtlBadInput, SavedOffsetPastTheBuffer) {
  std::string bytes = original_;
  put_u32(bytes, 4, 2000);  // buffer 0 is plain and 1,024 bytes
  expect_error(bytes, 0, "SavedOffset 2000 is outside the buffer");
}

TEST_F(EtlBadInput, CorruptCompressedBytes) {
  std::string bytes = original_;
  // All match flags: the very first item reaches back before any output.
  put_u32(bytes, kBuffer1 + 72, 0xFFFFFFFF);
  expect_error(bytes, kBuffer1, "before the output start");
  bytes = original_;
  put_u32(bytes, kBuffer1 + 4, 72 + 100);  // inflates to more than the stated 100 bytes
  expect_error(bytes, kBuffer1, "corrupt Xpress data");
}

TEST_F(EtlBadInput, UnknownHeaderKind) {
  Bytes records = last_buffer_records();
  records[2] = 0x30;
  expect_error(with_last_buffer(records), kBuffer2, "record at buffer offset 72 (decompressed): unknown trace header kind 0x30");
}

TEST_F(EtlBadInput, RecordSizePastTheDataEnd) {
  Bytes records = last_buffer_records();
  put_u16(records, 0, 200);  // 168 bytes of records
  expect_error(with_last_buffer(records), kBuffer2, "record size 200 runs past the data end (expected at most 168)");
}

TEST_F(EtlBadInput, RecordSizeBelowItsHeader) {
  Bytes records = last_buffer_records();
  put_u16(records, 0, 40);
  expect_error(with_last_buffer(records), kBuffer2, "record size 40 is smaller than its evh64 header (80 bytes)");
}

TEST_F(EtlBadInput, FirstRecordIsNotALogfileHeader) {
  std::string bytes = original_;
  bytes[72 + 6] = 0x50;  // hook 0x0050 instead of 0x0000
  expect_error(bytes, 0, "not an ETL file");
}

TEST_F(EtlBadInput, EmptyMissingAndForeignFiles) {
  test::write_file(path_, "");
  expect_error_at(path_, std::nullopt, "empty file");
  expect_error_at(dir_.file("missing.etl"), std::nullopt, "cannot open");
  expect_error_at(dir_.path().string(), std::nullopt, "cannot open");
  std::string text;
  for (int i = 0; i < 40; ++i) text += "this is a line of plain text, not a trace\n";
  expect_error(text, 0, "not an ETL file");
  expect_error("short", 0, "not an ETL file");
}

TEST_F(EtlBadInput, EveryTruncationAndByteFlipThrowsOrSucceeds) {
  // Hostile input must end in a heapql::Error or a clean read, never a crash
  // (this also runs under ASan and UBSan).
  auto read_or_error = [&](const std::string& change) {
    try {
      EtlFile(path_).read([](const EtlRecord& record) { (void)record.payload.size(); });
    } catch (const Error&) {
    } catch (const std::exception& other) {
      ADD_FAILURE() << change << ": not a heapql::Error: " << other.what();
    }
  };
  // Bytes are flipped in place: rewriting the whole file each time is what
  // costs (milliseconds per write on this file system), not the reading.
  auto put_byte = [&](std::size_t at, char value) {
    std::fstream file(path_, std::ios::binary | std::ios::in | std::ios::out);
    file.seekp(static_cast<std::streamoff>(at));
    file.put(value);
    ASSERT_TRUE(file.good()) << "cannot patch " << path_;
  };
  // Every byte of the buffer headers and the first records (where the
  // structure is), every 3rd byte elsewhere.
  auto interesting = [](std::size_t at) {
    for (std::size_t buffer : {std::size_t{0}, kBuffer1, kBuffer2}) {
      if (at >= buffer && at < buffer + 72 + 48) return true;
    }
    return at % 3 == 0;
  };
  for (std::size_t keep = 0; keep < original_.size(); keep += 29) {
    test::write_file(path_, original_.substr(0, keep));
    read_or_error(fmt::format("truncated to {}", keep));
  }
  test::write_file(path_, original_);
  for (std::size_t at = 0; at < original_.size(); ++at) {
    if (!interesting(at)) continue;
    for (std::uint8_t mask : {std::uint8_t{0x01}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
      put_byte(at, static_cast<char>(original_[at] ^ mask));
      read_or_error(fmt::format("byte {} ^ {:#x}", at, mask));
    }
    put_byte(at, original_[at]);
  }
}

}  // namespace
}  // namespace heapql
