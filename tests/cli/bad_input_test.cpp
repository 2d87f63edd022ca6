// Bad input: every broken trace, option, pattern or cull list must end in a
// clear message (the file, the line number or byte offset, and what was
// expected there), the documented exit code (2: the trace cannot be read,
// 3: the query or its options are wrong; cli/exit_codes.h) and never a
// crash. The inputs are written at test time into a fresh folder.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

constexpr int kBadTrace = 2;
constexpr int kBadQuery = 3;

// The smallest valid prefix: one string, IP, trace and allocation-info
// (5 lines), so a bad record appended to it is on line 6.
const std::string kPrefix =
    "v 10400 3\n"
    "s 4 /bin\n"
    "i 1000 1\n"
    "t 1 0\n"
    "a 10 1\n";

const std::string kGoodEvents = kPrefix + "+ 0\nc a\n- 0\nc 14\n";
// heaptrack_interpret's closing lines count the 's' and 'i' records.
const std::string kGoodTrace = kGoodEvents + "\n# strings: 1\n# ips: 1\n";

// A failure with `code`, nothing on stdout, and each of `parts` in the
// message.
void expect_error(const CommandResult& r, int code, std::initializer_list<std::string> parts) {
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("heapql", 0), 0u) << "messages start with the program name: " << r.err;
  for (const std::string& part : parts) {
    EXPECT_NE(r.err.find(part), std::string::npos) << "missing '" << part << "' in: " << r.err;
  }
}

// A trace problem: exit 2, the file name and the location in the message.
void expect_trace_error(const CommandResult& r, std::initializer_list<std::string> parts) {
  expect_error(r, kBadTrace, parts);
}

// `heapql info` on a plain-text trace written from `text`.
CommandResult info_on_text(const TempDir& dir, const std::string& name, const std::string& text) {
  write_file(dir.file(name), text);
  return heapql_on("info", dir.file(name));
}

CommandResult query_with(const TempDir& dir, const std::string& options) {
  write_file(dir.file("good.txt"), kGoodTrace);
  return heapql_on("query", dir.file("good.txt"), options);
}

// ---- the file itself ----

TEST(BadInput, GoodTraceIsRead) {
  // The baseline the other cases break.
  TempDir dir;
  const CommandResult r = info_on_text(dir, "good.txt", kGoodTrace);
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(BadInput, MissingFile) {
  TempDir dir;
  const CommandResult r = heapql_on("info", dir.file("missing.zst"));
  expect_trace_error(r, {"missing.zst: ", "cannot open", "No such file or directory"});
}

TEST(BadInput, MissingFileInQuery) {
  TempDir dir;
  const CommandResult r = heapql_on("query", dir.file("missing.zst"), "--by frame");
  expect_trace_error(r, {"missing.zst: ", "cannot open"});
}

TEST(BadInput, EmptyFile) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "empty.zst", "");
  expect_trace_error(r, {"empty.zst: ", "empty file"});
}

TEST(BadInput, DirectoryInsteadOfFile) {
  TempDir dir;
  const CommandResult r = heapql_on("info", dir.path().string());
  expect_trace_error(r, {dir.path().string() + ": ", "cannot open", "Is a directory"});
}

// Each sniffer and the store lookup would take bytes of a pipe the reader
// needed ("empty file", "not a heaptrack file" before): refused, and why.
TEST(BadInput, TraceFromAPipeIsRefusedWithWhy) {
  HEAPQL_SKIP_ON_WINDOWS("a shell pipeline (cat | heapql) feeds the trace");
  TempDir dir;
  write_file(dir.file("good.txt"), kGoodTrace);
  for (const char* command : {"query", "info", "ingest", "import", "export --to csv x"}) {
    SCOPED_TRACE(command);
    const std::string words = command;
    const std::string verb = words.substr(0, words.find(' '));
    const std::string rest = words.size() > verb.size() ? words.substr(verb.size()) : "";
    // In braces: run_command's own </dev/null would replace the pipe.
    const CommandResult r = run_command("{ cat " + shell_quote(dir.file("good.txt")) + " | " + heapql() + " " + verb +
                                        " /dev/stdin" + rest + "; }");
    expect_trace_error(r, {"/dev/stdin: is a pipe, not a file", "write the trace to a file first"});
  }
}

// The first 20 bytes of a PNG file: signature, then the IHDR chunk's start.
std::string png_header() {
  static constexpr char kPng[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10";
  return std::string(kPng, sizeof kPng - 1);
}

TEST(BadInput, PngHeaderIsATraceError) {
  TempDir dir;
  const std::string png = png_header();
  const CommandResult r = info_on_text(dir, "picture.png", png);
  expect_trace_error(r, {"picture.png:1: ", "expected"});
}

TEST(BadInput, ProseIsNotAHeaptrackFile) {
  // A first line that looks like a record ("A" = attached) but no 'v' first.
  TempDir dir;
  const CommandResult r = info_on_text(dir, "notes.txt", "A short note, not a heap trace.\nSecond line.\n");
  expect_trace_error(r, {"notes.txt:1: ", "not a heaptrack file", "expected the 'v' record first"});
}

TEST(BadInput, CommentsOnlyIsNotAHeaptrackFile) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "comments.txt", "# nothing here\n\n# at all\n");
  expect_trace_error(r, {"comments.txt: ", "not a heaptrack file", "no 'v' record"});
}

// Regression: for a file whose second byte is not a space (a PNG, most prose)
// the message used to be "expected a space after the record type", which did
// not tell the user that the file is not a heaptrack trace at all.
TEST(BadInput, WrongMagicSaysNotAHeaptrackFile) {
  TempDir dir;
  const std::string png = png_header();
  expect_trace_error(info_on_text(dir, "picture.png", png), {"picture.png:1: ", "not a heaptrack file"});
  expect_trace_error(info_on_text(dir, "prose.txt", "Hello, this is prose.\n"),
                     {"prose.txt:1: ", "not a heaptrack file"});
}

// ---- compressed streams ----


TEST(BadInput, CorruptZstd) {
  TempDir dir;
  write_zstd(dir.file("c.zst"), kGoodTrace);
  std::string bytes = read_file(dir.file("c.zst"));
  ASSERT_GT(bytes.size(), 8u);
  bytes[4] = static_cast<char>(bytes[4] | 0x08);  // the frame header's reserved bit
  write_file(dir.file("c.zst"), bytes);
  const CommandResult r = heapql_on("info", dir.file("c.zst"));
  expect_trace_error(r, {"c.zst: byte ", "corrupt zstd stream"});
}

TEST(BadInput, CorruptGzip) {
  TempDir dir;
  write_gzip(dir.file("c.gz"), kGoodTrace);
  std::string bytes = read_file(dir.file("c.gz"));
  ASSERT_GT(bytes.size(), 12u);
  bytes[2] = 0x07;  // compression method: only 8 (deflate) exists
  write_file(dir.file("c.gz"), bytes);
  const CommandResult r = heapql_on("info", dir.file("c.gz"));
  expect_trace_error(r, {"c.gz: byte ", "corrupt gzip stream"});
}

TEST(BadInput, ErrorsInsideCompressedFilesHaveLineNumbers) {
  TempDir dir;
  write_zstd(dir.file("bad.zst"), kPrefix + "+ zz\n");
  expect_trace_error(heapql_on("info", dir.file("bad.zst")), {"bad.zst:6: ", "expected a lowercase hex number"});
  write_gzip(dir.file("bad.gz"), kPrefix + "+ zz\n");
  expect_trace_error(heapql_on("info", dir.file("bad.gz")), {"bad.gz:6: ", "expected a lowercase hex number"});
}

// ---- records ----

TEST(BadInput, NotHexWhereHexIsDue) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "+ zz\n");
  expect_trace_error(r, {"t.txt:6: ", "'+' record", "expected a lowercase hex number", "'zz'"});
}

TEST(BadInput, UppercaseHex) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "+ A\n");
  expect_trace_error(r, {"t.txt:6: ", "'+' record", "expected a lowercase hex number", "'A'"});
}

TEST(BadInput, UppercaseHexInASize) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "a 1F 1\n");
  expect_trace_error(r, {"t.txt:6: ", "'a' record", "size", "expected a lowercase hex number", "'1F'"});
}

TEST(BadInput, NumberLongerThan64Bits) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "a 10000000000000000 1\n");
  expect_trace_error(r, {"t.txt:6: ", "'a' record", "longer than 64 bits"});
}

// Sizes that no address space holds would make the sums wrap to a small,
// wrong number (engine/query/byte_sums.h): refused, on every path.
TEST(BadInput, SizesAddingUpPast2To63AreRefused) {
  TempDir dir;
  const std::string trace = dir.file("t.txt");
  // Two allocation infos: 2^62-1 bytes (1 in the prefix's 'a' record's place) and 2^62.
  const std::string head = "v 10400 3\ns 4 /bin\ni 1000 1\nt 1 0\na 3fffffffffffffff 1\na 4000000000000000 1\n";
  write_file(trace, head + "+ 0\n+ 1\n");  // 2^63-1 in all: the most that is answered
  const CommandResult most = heapql_on("query", trace, "--format csv");
  EXPECT_EQ(most.exit_code, 0) << most.err;
  EXPECT_NE(most.out.find(",9223372036854775807,2,9223372036854775807,2,"), std::string::npos) << most.out;
  const std::string past = trace + ": sizes add up past 2^63-1 bytes";
  // The outstanding level passes 2^63-1: every query, and ingest, refuse.
  write_file(trace, head + "+ 0\n+ 1\n+ 0\n");
  for (const char* options : {"", "--window 0s..1s", "--by image", "--at-peak", "--impacting AIFO"}) {
    SCOPED_TRACE(options);
    expect_trace_error(heapql_on("query", trace, options), {past});
  }
  expect_trace_error(heapql_on("ingest", trace, "--no-progress"), {past});
  EXPECT_FALSE(std::filesystem::exists(trace + ".hqdb"));
  expect_trace_error(heapql_on("export", trace, "--to csv " + shell_quote(dir.file("tables"))), {past});
  EXPECT_FALSE(std::filesystem::exists(dir.file("tables")));
  expect_trace_error(heapql_on("run leaks", trace), {past});
  // Only st passes it (a block freed, then more allocated): the queries that
  // sum st refuse; those of the blocks outstanding answer 2^63-1 exactly.
  write_file(trace, head + "+ 1\n- 1\n+ 1\n+ 0\n");
  for (const char* options : {"", "--window 0s..1s", "--by image"}) {
    SCOPED_TRACE(options);
    expect_trace_error(heapql_on("query", trace, options), {past});
  }
  // A recipe's query found it in the roll-up: a trace error too, not the recipe's.
  expect_trace_error(heapql_on("run top-frames", trace), {past});
  for (const char* options : {"--at-peak", "--impacting AIFO"}) {
    const CommandResult r = heapql_on("query", trace, std::string(options) + " --format csv");
    EXPECT_EQ(r.exit_code, 0) << options << r.err;
    EXPECT_NE(r.out.find(",9223372036854775807,2,9223372036854775807,2,"), std::string::npos) << options << r.out;
  }
  write_file(trace, "v 10400 3\ns 4 /bin\ni 1000 1\nt 1 0\na 8000000000000000 1\n+ 0\n");  // one block of 2^63
  expect_trace_error(heapql_on("query", trace), {trace + ": sizes add up past 2^63-1 bytes"});
}

TEST(BadInput, MissingField) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "t 1\n");
  expect_trace_error(r, {"t.txt:6: ", "'t' record", "missing field", "parent trace index"});
}

TEST(BadInput, AllocationIndexPointsNowhere) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "+ 5\n");
  expect_trace_error(r, {"t.txt:6: ", "'+' record", "allocation-info index 5 points nowhere", "1 'a' records"});
}

TEST(BadInput, TraceParentPointsNowhere) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "t 1 9\n");
  expect_trace_error(r, {"t.txt:6: ", "'t' record", "parent trace index 9 points nowhere", "1 traces defined"});
}

TEST(BadInput, TraceIpPointsNowhere) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "t 7 1\n");
  expect_trace_error(r, {"t.txt:6: ", "'t' record", "instruction pointer index 7 points nowhere"});
}

TEST(BadInput, AllocInfoTracePointsNowhere) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "a 10 7\n");
  expect_trace_error(r, {"t.txt:6: ", "'a' record", "trace index 7 points nowhere"});
}

TEST(BadInput, IpStringIndexPointsNowhere) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "i 2000 1 9\n");
  expect_trace_error(r, {"t.txt:6: ", "'i' record", "function", "string index 9 points nowhere", "1 strings defined"});
}

TEST(BadInput, IpModuleIndexPointsNowhere) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "i 2000 2\n");
  expect_trace_error(r, {"t.txt:6: ", "'i' record", "module", "string index 2 points nowhere"});
}

TEST(BadInput, AllocationBeforeAnyAllocInfo) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", "v 10400 3\n+ 0\n");
  expect_trace_error(r, {"t.txt:2: ", "'+' record", "allocation-info index 0 points nowhere"});
}

// semantics.md §1: with bucket-LIFO identity a free that finds no live
// block in its bucket is an anomaly, counted as `unmatched_frees` with a
// warning at its line, and left unpaired (heaptrack_interpret drops a free it
// cannot pair too); --strict refuses the trace there.
TEST(BadInputAnomalies, FreeWithNoLiveBlockIsCountedAndWarnedAbout) {
  TempDir dir;
  write_file(dir.file("t.txt"), kPrefix + "+ 0\n- 0\n- 0\n\n# strings: 1\n# ips: 1\n");
  const CommandResult r = heapql_on("info", dir.file("t.txt"), "--format json");
  expect_no_crash(r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_contains(r.err, "heapql: warning: " + dir.file("t.txt") + ":8: '-' record: frees a block of allocation-info 0 "
                         "(16 bytes), which has no live block: not paired (unmatched_frees)\n");
  expect_contains(r.out, "\"unmatched_frees\":1,");
  expect_contains(r.out, "\"allocation_events\":1,");
  const CommandResult strict = heapql_on("query", dir.file("t.txt"), "--strict");
  expect_trace_error(strict, {"t.txt:8: ", "'-' record", "no live block", "--strict refuses a trace with an anomaly"});
}

// Events reach the aggregator in runs between clock lines; a free that fails
// inside a run, after interleaved `t` and `a` records, is still reported at
// its own line, by every consumer (info, a counting query, a query that
// follows blocks one by one), and the rest of its run is read as if it were
// not there.
TEST(BadInputAnomalies, FreeWithNoLiveBlockInsideARunIsCountedAtItsLine) {
  TempDir dir;
  std::string head = kPrefix + "c 1\n";
  int line = 6;
  for (int i = 0; i < 100; ++i, ++line) head += "+ 0\n";
  head += "t 1 1\na 20 2\n+ 1\n- 0\n- 1\n";
  line += 5;
  for (int i = 0; i < 50; ++i, ++line) head += "- 0\n";
  const std::string bad_free = "- 1\n";  // alloc-info 1's one block is gone already
  ++line;
  const std::string tail = "+ 1\n- 0\n+ 0\nc 2\n- 1\n\n# strings: 1\n# ips: 1\n";
  write_file(dir.file("t.txt"), head + bad_free + tail);
  write_file(dir.file("without.txt"), head + tail);
  const std::string at = "t.txt:" + std::to_string(line) + ": ";
  for (const std::string& options : {std::string("--format csv"), std::string("--by stack --format csv"),
                                     std::string("--lifetime 0ms.. --format csv")}) {
    SCOPED_TRACE(options);
    const CommandResult r = heapql_on("query", dir.file("t.txt"), options);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_contains(r.err, at + "'-' record: frees a block of allocation-info 1");
    expect_contains(r.err, "(unmatched_frees)");
    const CommandResult without = heapql_on("query", dir.file("without.txt"), options);
    ASSERT_EQ(without.exit_code, 0) << without.err;
    EXPECT_EQ(r.out, without.out) << "the unpaired free changes nothing else";
    expect_trace_error(heapql_on("query", dir.file("t.txt"), options + " --strict"),
                       {at, "'-' record", "allocation-info 1", "no live block", "--strict"});
  }
  const CommandResult info = heapql_on("info", dir.file("t.txt"), "--format json");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  expect_contains(info.err, at);
  expect_contains(info.out, "\"unmatched_frees\":1,");
}

// The first few anomalies are listed with their places; the rest are counted
// in one line, and all of them in info.
TEST(BadInputAnomalies, ManyAnomaliesListTheFirstTenThenCountTheRest) {
  TempDir dir;
  std::string text = kPrefix;
  for (int i = 0; i < 13; ++i) text += "- 0\n";
  write_file(dir.file("t.txt"), text + "\n# strings: 1\n# ips: 1\n");
  const CommandResult r = heapql_on("info", dir.file("t.txt"), "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_contains(r.err, "t.txt:15: '-' record");
  EXPECT_EQ(r.err.find("t.txt:16: "), std::string::npos) << r.err;
  expect_contains(r.err, dir.file("t.txt") + ": 3 more anomalies not listed");
  expect_contains(r.out, "\"unmatched_frees\":13,");
}

TEST(BadInput, NonLetterRecordTypeIsAnError) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "% 1 2\n+ 0\n");
  expect_trace_error(r, {"t.txt:6: ", "'%'", "unknown record type"});
}

TEST(BadInput, NulByteRecordTypeIsAnError) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + std::string("\0 1\n", 4) + "+ 0\n");
  expect_trace_error(r, {"t.txt:6: ", "0x00", "unknown record type"});
}

TEST(BadInput, UnknownLetterRecordTypeIsAWarning) {
  TempDir dir;
  write_file(dir.file("t.txt"), kPrefix + "Q 1 2\n+ 0\nc a\n");
  const CommandResult r = heapql_on("info", dir.file("t.txt"), "--format json");
  expect_no_crash(r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("t.txt:6: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'Q'"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\"skipped_records\":1"), std::string::npos) << r.out;
  // The records around it are still read.
  EXPECT_NE(r.out.find("\"allocation_events\":1,"), std::string::npos) << r.out;
}

TEST(BadInput, StringRunsPastTheLine) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", "v 10400 3\ns 20 /bin\n");
  expect_trace_error(r, {"t.txt:2: ", "'s' record", "length 20", "runs past the end of the line"});
}

TEST(BadInput, FormatVersion4) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", "v 10400 4\n");
  expect_trace_error(r, {"t.txt:1: ", "'v' record", "file format version 4", "newer than this reader knows (3)"});
}

TEST(BadInput, SecondVersionRecord) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kGoodEvents + "v 10400 3\n");
  expect_trace_error(r, {"t.txt:10: ", "a second 'v' record"});
}

// heaptrack_interpret's closing lines count the file's 's' and 'i' records
// and end it: other counts, or records after them, mean a damaged file.
TEST(BadInput, ClosingLinesThatDisagreeWithTheFile) {
  TempDir dir;
  expect_trace_error(info_on_text(dir, "s.txt", kGoodEvents + "\n# strings: 2\n# ips: 1\n"),
                     {"s.txt:11: ", "the closing line counts 2 strings, but the file has 1 's' records before it"});
  expect_trace_error(info_on_text(dir, "i.txt", kGoodEvents + "\n# strings: 1\n# ips: 0\n"),
                     {"i.txt:12: ", "counts 0 instruction pointers, but the file has 1 'i' records before it"});
  expect_trace_error(info_on_text(dir, "after.txt", kGoodTrace + "+ 0\n"),
                     {"after.txt:12: ", "records follow heaptrack_interpret's closing lines"});
  expect_trace_error(info_on_text(dir, "c.txt", kGoodTrace + "c 20\n"),
                     {"c.txt:12: ", "records follow heaptrack_interpret's closing lines"});
  // Comments and empty lines after them are no records.
  const CommandResult r = info_on_text(dir, "tail.txt", kGoodTrace + "# a note\n\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(BadInput, SecondCommandRecord) {
  TempDir dir;
  // heaptrack writes 'I' right after 'X' (which may run over several lines).
  const CommandResult r = info_on_text(dir, "t.txt", "v 10400 3\nX ./a\nI 1000 1\nX ./b\nI 1000 1\n");
  expect_trace_error(r, {"t.txt:4: ", "'X' record", "a second 'X' record"});
}

// ---- raw files ----

const std::string kRaw =
    "v 10400 3\n"
    "X ./prog\n"
    "I 1000 5e2922\n"
    "x 9 /bin/prog\n"
    "m 1 x 400000 0 2000\n"
    "t 401000 0\n"
    "+ 10 1 55550000\n"
    "- 55550000\n"
    "c a\n";
const std::string kInterpreted =
    "v 10400 3\n"
    "X ./prog\n"
    "I 1000 5e2922\n"
    "s 9 /bin/prog\n"
    "i 401000 1\n"
    "t 1 0\n"
    "a 10 1\n"
    "+ 0\n"
    "- 0\n"
    "c a\n"
    "\n"
    "# strings: 1\n"
    "# ips: 1\n";

TEST(BadInput, RawFileWithoutItsTwin) {
  TempDir dir;
  write_zstd(dir.file("t.raw.zst"), kRaw);
  const CommandResult r = heapql_on("info", dir.file("t.raw.zst"));
  expect_trace_error(r, {"t.raw.zst: ", "raw heaptrack file", "interpreted twin", dir.file("t") + ".zst"});
}

TEST(BadInput, RawRecordsInAnInterpretedFile) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", kRaw);
  expect_trace_error(r, {"t.txt:4: ", "'x' record", "raw heaptrack file", "interpreted twin"});
}

TEST(BadInput, RawTwinThatDisagrees) {
  TempDir dir;
  const std::string interpreted = dir.file("heaptrack.prog.123.zst");
  const std::string raw = dir.file("heaptrack.prog.123.raw.zst");
  write_zstd(interpreted, kInterpreted);
  write_zstd(raw, kRaw);
  {
    // The agreeing pair is read together (exact block identity).
    const CommandResult r = heapql_on("info", interpreted);
    expect_no_crash(r);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("heaptrack.prog.123.raw.zst"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("block identity exact"), std::string::npos) << r.out;
  }
  std::string wrong = kRaw;
  wrong.replace(wrong.find("+ 10 1"), 6, "+ 20 1");  // 32 bytes where the interpreted file says 16
  write_zstd(raw, wrong);
  const CommandResult r = heapql_on("info", interpreted);
  expect_trace_error(
      r, {"heaptrack.prog.123.zst:8: ", "raw twin disagrees", "heaptrack.prog.123.raw.zst:7", "16 bytes", "32 bytes"});
  // Named by its raw file, the pair is the same pair and the same error.
  expect_trace_error(heapql_on("info", raw), {"heaptrack.prog.123.zst:8: ", "heaptrack.prog.123.raw.zst:7"});
  // --no-raw reads the interpreted file alone.
  const CommandResult alone = heapql_on("info", interpreted, "--no-raw");
  expect_no_crash(alone);
  EXPECT_EQ(alone.exit_code, 0) << alone.err;
}

// A twin that ends before the interpreted file's events: it disagrees, and
// the message says the way out.
TEST(BadInput, RawTwinCutShortIsNamedWithTheWayOut) {
  TempDir dir;
  const std::string interpreted = dir.file("heaptrack.prog.123.zst");
  write_zstd(interpreted, kInterpreted);
  write_zstd(dir.file("heaptrack.prog.123.raw.zst"), kRaw.substr(0, kRaw.find("- 55550000")));
  expect_trace_error(heapql_on("info", interpreted),
                     {"heaptrack.prog.123.zst:9: ", "raw twin disagrees: this file has a '-' record where ",
                      "heaptrack.prog.123.raw.zst:7 has the end of the file (a twin cut short: --no-raw reads this "
                      "file alone)"});
  EXPECT_EQ(heapql_on("info", interpreted, "--no-raw").exit_code, 0);
}

TEST(BadInput, RawTwinAllocatingFromAnotherStack) {
  TempDir dir;
  const std::string interpreted = dir.file("heaptrack.prog.123.zst");
  const std::string raw = dir.file("heaptrack.prog.123.raw.zst");
  write_zstd(interpreted, kInterpreted);
  // Trace 0 is the empty stack, not trace 1's; trace 7 is none at all.
  for (const std::string trace : {"0", "7"}) {
    std::string wrong = kRaw;
    wrong.replace(wrong.find("+ 10 1"), 6, "+ 10 " + trace);
    write_zstd(raw, wrong);
    expect_trace_error(heapql_on("info", interpreted),
                       {"heaptrack.prog.123.zst:8: ", "raw twin disagrees", "allocation-info 0",
                        "heaptrack.prog.123.raw.zst:7", "from trace " + trace});
  }
}

// ---- options, patterns, cull lists: exit 3 ----

TEST(BadInputOptions, WindowEndBeforeStart) {
  TempDir dir;
  expect_error(query_with(dir, "--window 5s..1s"), kBadQuery, {"--window", "'5s..1s'", "before"});
}

TEST(BadInputOptions, WindowUnknownUnit) {
  TempDir dir;
  expect_error(query_with(dir, "--window 1xs.."), kBadQuery,
               {"--window", "'1xs..'", "unknown unit 'xs'", "ns us ms s m h"});
}

TEST(BadInputOptions, WindowWithoutDots) {
  TempDir dir;
  expect_error(query_with(dir, "--window 5s"), kBadQuery, {"--window", "expected A..B"});
}

TEST(BadInputOptions, SizeNotAWholeNumberOfBytes) {
  TempDir dir;
  expect_error(query_with(dir, "--size 1.5B.."), kBadQuery, {"--size", "'1.5B..'", "not a whole number of bytes"});
}

TEST(BadInputOptions, LifetimeWithoutUnit) {
  TempDir dir;
  expect_error(query_with(dir, "--lifetime 100.."), kBadQuery, {"--lifetime", "needs a unit"});
}

TEST(BadInputOptions, UnknownSortKey) {
  TempDir dir;
  expect_error(query_with(dir, "--sort foo"), kBadQuery, {"--sort 'foo'", "expected one of so|soc|st|stc|src"});
}

TEST(BadInputOptions, UnknownGroupingKey) {
  TempDir dir;
  expect_error(query_with(dir, "--by stack,colour"), kBadQuery, {"--by 'colour'", "expected one of stack|frame|image"});
}

TEST(BadInputOptions, NegativeTop) {
  TempDir dir;
  expect_error(query_with(dir, "--top -1"), kBadQuery, {"--top '-1'", "expected a whole number"});
}

TEST(BadInputOptions, UnknownImpactingType) {
  TempDir dir;
  expect_error(query_with(dir, "--impacting AIFO,XXXX"), kBadQuery,
               {"--impacting 'XXXX'", "expected AIFI, AIFO, AOFI or AOFO"});
}

TEST(BadInputOptions, BadCullPattern) {
  TempDir dir;
  expect_error(query_with(dir, "--cull '!'"), kBadQuery, {"frame pattern '!'", "column 1", "expected a module name"});
}

TEST(BadInputOptions, BadRequirePattern) {
  TempDir dir;
  expect_error(query_with(dir, "--require '!'"), kBadQuery, {"frame pattern '!'", "expected a module name"});
}

TEST(BadInputOptions, MissingCullList) {
  TempDir dir;
  expect_error(query_with(dir, "--cull-list " + shell_quote(dir.file("missing.txt"))), kBadQuery,
               {dir.file("missing.txt") + ": ", "cannot open cull list", "No such file or directory"});
}

TEST(BadInputOptions, CullListWithABadPatternOnLine3) {
  TempDir dir;
  write_file(dir.file("cull.txt"), "# my allocator wrappers\nmy_malloc\n!\nmy_free\n");
  expect_error(query_with(dir, "--cull-list " + shell_quote(dir.file("cull.txt"))), kBadQuery,
               {dir.file("cull.txt") + ":3: ", "frame pattern '!'", "expected a module name"});
}

TEST(BadInputOptions, UnknownOption) {
  TempDir dir;
  expect_error(query_with(dir, "--frobnicate"), kBadQuery, {"unknown option '--frobnicate'"});
}

TEST(BadInputOptions, OptionWithoutItsValue) {
  TempDir dir;
  expect_error(query_with(dir, "--window"), kBadQuery, {"--window", "needs a value"});
}

TEST(BadInputOptions, ValueAfterEqualsIsCheckedToo) {
  TempDir dir;
  expect_error(query_with(dir, "--window=5s..1s"), kBadQuery, {"--window", "'5s..1s'", "before"});
}

TEST(BadInputOptions, UnknownFormat) {
  TempDir dir;
  expect_error(query_with(dir, "--format xml"), kBadQuery, {"--format 'xml'", "table|json|csv"});
}

TEST(BadInputOptions, QueryErrorsComeBeforeTraceErrors) {
  // The query is checked before the trace is opened: a bad option wins.
  TempDir dir;
  expect_error(heapql_on("query", dir.file("missing.zst"), "--sort foo"), kBadQuery, {"--sort 'foo'"});
}

// ---- hostile input ----

TEST(BadInputHostile, TenMegabyteString) {
  TempDir dir;
  const std::size_t n = std::size_t{10} << 20;
  const std::string text =
      "v 10400 3\ns 4 /bin\ns a00000 " + std::string(n, 'x') + "\n" + "i 1000 1 2\nt 1 0\na 10 1\n+ 0\nc 1\n";
  write_zstd(dir.file("long.zst"), text);
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = heapql_on("query", dir.file("long.zst"), "--by frame --format csv");
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expect_no_crash(r);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == kBadTrace) << r.err;
  EXPECT_LT(seconds, 30.0);
  // Read as a 10 MiB function name: bin!xxx...
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(r.out.size(), n);
}

TEST(BadInputHostile, TenMegabyteLineWithoutNewline) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "t.txt", "v 10400 3\n# " + std::string(std::size_t{10} << 20, '#'));
  expect_no_crash(r);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == kBadTrace) << r.err.substr(0, 500);
}

TEST(BadInputHostile, TenMegabyteStringThatRunsPastItsLine) {
  TempDir dir;
  const std::size_t n = std::size_t{10} << 20;
  const CommandResult r = info_on_text(dir, "t.txt", "v 10400 3\ns a00005 " + std::string(n, 'x') + "\n");
  expect_trace_error(r, {"t.txt:2: ", "runs past the end of the line"});
}

// Regression: a bad field used to be quoted whole in the message, so a 10 MiB
// field made a 10 MiB error message. Messages quote a short excerpt.
TEST(BadInputHostile, HugeBadFieldGivesAShortMessage) {
  TempDir dir;
  const std::size_t n = std::size_t{10} << 20;
  const CommandResult r = info_on_text(dir, "t.txt", kPrefix + "+ " + std::string(n, 'z') + "\n");
  expect_trace_error(r, {"t.txt:6: ", "'+' record"});
  EXPECT_LT(r.err.size(), 1000u);
  const CommandResult extra = info_on_text(dir, "u.txt", kPrefix + "+ 0 " + std::string(n, 'z') + "\n");
  expect_trace_error(extra, {"u.txt:6: ", "unexpected extra fields"});
  EXPECT_LT(extra.err.size(), 1000u);
}

// Regression: a CR (a CRLF file) used to be echoed raw into the message, so
// on a terminal the message was overwritten from its start ("got '3\r'").
TEST(BadInputHostile, CarriageReturnIsNotEchoedRaw) {
  TempDir dir;
  const CommandResult r = info_on_text(dir, "crlf.txt", "v 10400 3\r\ns 4 /bin\r\n");
  expect_trace_error(r, {"crlf.txt:1: "});
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
}

// 100,000 nested frames: each stage (reader, culling, grouping, sorting,
// every output format, the store) must not recurse once per frame.
std::string deep_trace(std::size_t depth, bool distinct_frames) {
  std::string text = "v 10400 3\ns 4 /bin\n";
  char line[96];
  for (std::size_t k = 1; k <= depth; ++k) {
    if (distinct_frames || k == 1) {
      const std::string name = "f" + std::to_string(k);
      std::snprintf(line, sizeof line, "s %zx %s\ni %zx 1 %zx\n", name.size(), name.c_str(), 0x1000 + k,
                    distinct_frames ? k + 1 : std::size_t{2});
      text += line;
    }
    std::snprintf(line, sizeof line, "t %zx %zx\n", distinct_frames ? k : std::size_t{1}, k - 1);
    text += line;
  }
  // A 16-byte block on the deepest stack, then a 32-byte one a frame deeper.
  std::snprintf(line, sizeof line, "a 10 %zx\n+ 0\nc 1\nt 1 %zx\na 20 %zx\n+ 1\n- 0\nc 2\n", depth, depth, depth + 1);
  text += line;
  return text;
}

TEST(BadInputHostile, HundredThousandNestedFrames) {
  TempDir dir;
  const std::size_t depth = 100000;
  write_zstd(dir.file("deep.zst"), deep_trace(depth, false));
  for (const std::string& options : {std::string("--format csv"), std::string(""), std::string("--format json"),
                                     std::string("--store --by frame"), std::string("--at-peak --cull 'bin!'"),
                                     std::string("--require f1 --window 1ms.. --by impacting,stack --format csv")}) {
    const CommandResult r = heapql_on("query", dir.file("deep.zst"), options);
    expect_no_crash(r);
    EXPECT_EQ(r.exit_code, 0) << options << ": " << r.err;
  }
  const CommandResult csv = heapql_on("query", dir.file("deep.zst"), "--format csv --sort st");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  // Rows: the 100,001-frame stack (32 bytes), then the 100,000-frame one.
  const std::size_t first_row_end = csv.out.find('\n', csv.out.find('\n') + 1);
  ASSERT_NE(first_row_end, std::string::npos);
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.begin() + static_cast<std::ptrdiff_t>(first_row_end), ';'),
            static_cast<std::ptrdiff_t>(depth));
  const CommandResult info = heapql_on("info", dir.file("deep.zst"), "--load");
  expect_no_crash(info);
  EXPECT_EQ(info.exit_code, 0) << info.err;
}

TEST(BadInputHostile, HundredThousandNestedDistinctFrames) {
  TempDir dir;
  write_zstd(dir.file("deep.zst"), deep_trace(100000, true));
  for (const std::string& options : {std::string("--format csv"), std::string("--format json --by frame"),
                                     std::string("--store"), std::string("--cull 'f*' --format csv")}) {
    const CommandResult r = heapql_on("query", dir.file("deep.zst"), options);
    expect_no_crash(r);
    EXPECT_EQ(r.exit_code, 0) << options << ": " << r.err;
  }
}

}  // namespace
}  // namespace heapql::test

namespace heapql::test {
namespace {

TEST(BadInputOptions, AtPeakWithAFilterOnTheBlocksFutureIsRefused) {
  TempDir dir;
  write_file(dir.file("t.txt"), "v 10400 3\nX p\nI 1000 1\ns 1 m\ni 1 1\nt 1 0\na 8 1\n+ 0\n");
  for (const char* extra : {"--temporary", "--impacting AIFI", "--by impacting", "--lifetime 1ms.."}) {
    const CommandResult r = run_command(shell_quote(heapql_binary()) + " query " + shell_quote(dir.file("t.txt")) +
                                        " --at-peak " + extra);
    EXPECT_EQ(r.exit_code, 3) << extra;
    EXPECT_NE(r.err.find("--at-peak cannot be combined"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace heapql::test
