// Traces cut short (a recording killed along with its program, a file copied
// while it was written): heapql answers from the complete part, exit 0, and
// says so on stderr and in info (text and JSON); --strict refuses them with
// exit 2. Anything malformed inside the file stays an error. Also: double
// frees counted apart from frees of unknown addresses.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

// A trace of many allocations at many times, so a cut leaves a real part
// (zstd decodes whole blocks of up to 128 KiB of text: a cut stream needs
// several).
// heaptrack_interpret's last lines, as long_trace's counts make them.
const std::string kClosingLines = "\n# strings: 2\n# ips: 1\n";

std::string long_trace(int rounds = 4000) {
  std::string text = "v 10400 3\nX ./cut\nI 1000 1\ns 4 prog\ns 4 func\ni 1000 1 2\nt 1 0\na 40 1\na 80 1\n";
  for (int i = 0; i < rounds; ++i) {
    text += "+ 0\n+ 1\n- 0\n";
    if (i % 100 == 99) text += "c " + std::to_string(i / 100 + 1) + "\n";
  }
  return text + kClosingLines;
}

class BadInputCutTrace : public ::testing::Test {
 protected:
  // Writes `bytes` as `name` and the complete part (`prefix`) as a second
  // trace; both must give the same answer.
  void expect_answered_from_complete_part(const std::string& name, const std::string& bytes,
                                          const std::string& prefix_path, const std::string& what) {
    const std::string path = dir_.file(name);
    write_file(path, bytes);
    const CommandResult cut = heapql_on("query", path, "--by stack --format csv");
    EXPECT_EQ(cut.exit_code, 0) << cut.err;
    expect_contains(cut.err, "heapql: warning: " + path + ": the trace ends early: " + what);
    expect_contains(cut.err, "the answers cover 0s..");
    const CommandResult complete = heapql_on("query", prefix_path, "--by stack --format csv");
    EXPECT_EQ(complete.exit_code, 0) << complete.err;
    EXPECT_EQ(cut.out, complete.out) << "the cut trace's answer is its complete part's";

    const CommandResult info = heapql_on("info", path);
    EXPECT_EQ(info.exit_code, 0);
    expect_contains(info.out, "ENDS EARLY         " + path + ": " + what);
    const CommandResult json = heapql_on("info", path, "--format json");
    expect_contains(json.out, "\"cut\":{\"file\":\"" + as_json_text(path) + "\"");
    expect_contains(json.out, "\"what\":\"" + what);

    const CommandResult strict = heapql_on("query", path, "--strict");
    EXPECT_EQ(strict.exit_code, 2);
    EXPECT_EQ(strict.out, "");
    expect_contains(strict.err, path + ": byte ");
    expect_contains(strict.err, "--strict refuses a trace cut short");
  }

  TempDir dir_;
};

TEST_F(BadInputCutTrace, PlainTextCutInTheMiddleOfALine) {
  const std::string text = long_trace();
  // Cut inside "+ 1" of a late record: "+ " alone would read as nothing, and
  // a cut "- 1a" as "- 1" would be a wrong record.
  const std::size_t at = text.rfind("+ 1\n", text.size() * 2 / 3) + 2;
  const std::string prefix = dir_.file("prefix.txt");
  write_file(prefix, text.substr(0, text.rfind('\n', at) + 1));
  expect_answered_from_complete_part("cut.txt", text.substr(0, at), prefix, "the last line has no newline");
}

// A cut between two lines leaves every line whole: what is missing is the
// closing lines, which heaptrack_interpret writes last.
TEST_F(BadInputCutTrace, PlainTextCutAtTheEndOfALine) {
  const std::string text = long_trace();
  const std::string part = text.substr(0, text.rfind("+ 1\n", text.size() * 2 / 3) + 4);
  const std::string prefix = dir_.file("prefix.txt");
  write_file(prefix, part + kClosingLines);
  const std::string what =
      "its closing '# strings' and '# ips' lines are missing (heaptrack_interpret writes them last)";
  expect_answered_from_complete_part("cut.txt", part, prefix, what);
  const CommandResult info = heapql_on("info", dir_.file("cut.txt"));
  expect_contains(info.err, what + " at byte " + std::to_string(part.size()) + ", 0 bytes left over");
}

TEST_F(BadInputCutTrace, ZstdStreamCutInsideItsFrame) {
  HEAPQL_SKIP_ON_WINDOWS("the zstd program decodes the probe");
  const std::string text = long_trace(100'000);
  write_zstd(dir_.file("whole.zst"), text);
  const std::string whole = read_file(dir_.file("whole.zst"));
  const std::string bytes = whole.substr(0, whole.size() * 2 / 3);
  // The complete part is what a decoder gets out of those bytes, whole lines only.
  const std::string decoded_prefix_path = dir_.file("decoded.txt");
  {
    write_file(dir_.file("probe.zst"), bytes);
    const CommandResult lines = run_command("zstd -dcq " + shell_quote(dir_.file("probe.zst")));
    write_file(decoded_prefix_path, lines.out.substr(0, lines.out.rfind('\n') + 1));
  }
  expect_answered_from_complete_part("cut.zst", bytes, decoded_prefix_path, "the zstd stream ends inside a frame");
}

// A small recording is one zstd frame of one block, and zstd hands out no
// part of a block it has not read whole: cut anywhere in it, the file gives no
// text at all. That is a trace cut short, named with the byte where its frame
// stops (exit 2: nothing complete remains to answer), not a file without text,
// and not what a .zst of other text gets.
TEST_F(BadInputCutTrace, ZstdTraceOfOneBlockCutShortSaysSo) {
  write_zstd(dir_.file("whole.zst"), long_trace(20));
  const std::string whole = read_file(dir_.file("whole.zst"));
  ASSERT_LT(whole.size(), 200u) << "one small block";
  for (const std::size_t size : {std::size_t{6}, whole.size() / 2, whole.size() - 8}) {
    SCOPED_TRACE(size);
    const std::string path = dir_.file("cut" + std::to_string(size) + ".zst");
    write_file(path, whole.substr(0, size));
    for (const std::string& options : {std::string(), std::string("--strict")}) {
      const CommandResult r = heapql_on("query", path, options);
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_EQ(r.out, "");
      expect_contains(r.err, path + ": byte " + std::to_string(size) + ": the trace is cut short before its first "
                             "whole line: the zstd stream ends inside a frame (its zstd frame is incomplete); nothing "
                             "complete remains to answer");
      EXPECT_EQ(r.err.find("holds no text"), std::string::npos) << r.err;
    }
  }
  // A whole frame of other text, with or without a newline, is no heaptrack file.
  write_zstd(dir_.file("garbage.zst"), "garbage");
  const CommandResult garbage = heapql_on("query", dir_.file("garbage.zst"));
  EXPECT_EQ(garbage.exit_code, 2);
  expect_contains(garbage.err, dir_.file("garbage.zst") + ": not a heaptrack file: expected the 'v' record first, got "
                               "'garbage' (7 bytes without a newline)");
  EXPECT_EQ(garbage.err.find("cut short"), std::string::npos) << garbage.err;
  write_zstd(dir_.file("line.zst"), "garbage\n");
  expect_contains(heapql_on("query", dir_.file("line.zst")).err, "line.zst:1: not a heaptrack file");
  // A first line cut off is a trace cut short too.
  write_zstd(dir_.file("v.zst"), "v 10400");
  expect_contains(heapql_on("query", dir_.file("v.zst")).err,
                  "the trace is cut short before its first whole line: the last line has no newline, 7 bytes of a "
                  "line left over");
  // And a frame of no text holds no text.
  write_zstd(dir_.file("empty.zst"), "");
  expect_contains(heapql_on("query", dir_.file("empty.zst")).err, "no records: the file holds no text");
}

TEST_F(BadInputCutTrace, GzipStreamCutInsideItsMember) {
  const std::string text = long_trace();
  write_gzip(dir_.file("whole.gz"), text);
  const std::string whole = read_file(dir_.file("whole.gz"));
  const std::string bytes = whole.substr(0, whole.size() - 4);  // the trailer: all text decodes
  const std::string prefix = dir_.file("prefix.txt");
  write_file(prefix, text);
  expect_answered_from_complete_part("cut.gz", bytes, prefix, "the gzip stream ends inside a member");
}

TEST_F(BadInputCutTrace, ACompleteTraceSaysNothingAndInfoHasNoCut) {
  const std::string path = dir_.file("whole.txt");
  write_file(path, long_trace());
  const CommandResult r = heapql_on("info", path, "--format json --strict");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  expect_contains(r.out, "\"cut\":null");
}

TEST_F(BadInputCutTrace, MalformedInsideTheFileStaysAnError) {
  std::string text = long_trace();
  text.insert(text.size() / 2, "+ zz\n");
  const std::string path = dir_.file("bad.txt");
  write_file(path, text.substr(0, text.size() - 3));  // also cut: the error inside comes first
  const CommandResult r = heapql_on("query", path);
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, path + ":");
}

TEST_F(BadInputCutTrace, RecipesSeeTheCutTraceAndStrict) {
  const std::string path = dir_.file("cut.txt");
  const std::string text = long_trace();
  write_file(path, text.substr(0, text.size() - 2));
  const CommandResult run = heapql_on("run leaks", path);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  expect_contains(run.err, "the trace ends early");
  const CommandResult strict = heapql_on("run leaks", path, "--strict");
  EXPECT_EQ(strict.exit_code, 2) << strict.err;
}

// --- double frees, told apart from frees of unknown addresses --------------------

TEST(BadInputAnomalies, DoubleFreesAreCountedApartFromUnknownAddresses) {
  TempDir dir;
  const std::string csv = dir.file("events.csv");
  write_file(csv,
             "time,event,process,thread,heap,address,size,old_address,stack\n"
             "0,alloc,p,,,0x10,8,,f;main\n"
             "1,free,p,,,0x10,,,\n"
             "2,free,p,,,0x10,,,\n"   // freed before, not allocated since: a double free
             "3,free,p,,,0x99,,,\n"   // never seen: an unmatched free
             "4,alloc,p,,,0x10,8,,f;main\n"
             "5,free,p,,,0x10,,,\n");  // allocated again in between: a normal free
  const CommandResult text = heapql_on("info", csv);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  expect_contains(text.out, "anomalies          1 double free, 1 unmatched free, 0 allocations over a live block");
  const CommandResult json = heapql_on("info", csv, "--format json");
  expect_contains(json.out, "\"anomalies\":{\"double_frees\":1,\"unmatched_frees\":1,\"alloc_over_live\":0");
  // semantics.md §1: --strict refuses a trace with an anomaly, at the first one.
  const CommandResult strict = heapql_on("query", csv, "--strict");
  EXPECT_EQ(strict.exit_code, 2) << strict.err;
  EXPECT_EQ(strict.out, "");
  expect_contains(strict.err, csv + ":4: free of 0x10 in heap default, freed before and not allocated since "
                              "(double_frees); --strict refuses a trace with an anomaly");
  // A store keeps the counts, not the places: --strict refuses it by them.
  const CommandResult ingest = heapql_on("ingest", csv, "-o " + shell_quote(dir.file("events.hqdb")));
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  const CommandResult from_store = heapql_on("query", dir.file("events.hqdb"), "--strict");
  EXPECT_EQ(from_store.exit_code, 2) << from_store.err;
  expect_contains(from_store.err, dir.file("events.hqdb") + ": 2 anomalies (1 unmatched_frees, 1 double_frees); "
                                  "--strict refuses a trace with an anomaly");
  EXPECT_EQ(heapql_on("query", dir.file("events.hqdb")).exit_code, 0);
}

}  // namespace
}  // namespace heapql::test
