// The heaptrack reader on hand-written traces (formats/heaptrack.md §2-§9;
// semantics.md §1 for how records become blocks and frames).
#include "engine/ingest/heaptrack_reader.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "engine/ingest/block_matcher.h"
#include "engine/query/aggregator.h"
#include "engine/store/trace_store.h"
#include "tests/support/source_details_lookup.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

struct Read {
  SourceInfo source;
  Result result;
  std::string warnings;
};

Read read(const std::string& path, Query q, bool use_raw_twin = true, bool strict = false) {
  TraceTables tables;
  Aggregator aggregator(tables, q);
  HeaptrackReadOptions options;
  options.show_progress = false;
  options.use_raw_twin = use_raw_twin;
  options.strict = strict;
  Read r;
  options.warnings = &r.warnings;
  r.source = read_heaptrack(path, tables, aggregator, options);
  r.result = aggregator.result(r.source);
  return r;
}

Query by_stack() {
  Query q;
  q.by = {GroupBy::kStack};
  q.default_cull = false;
  return q;
}

// Replaces the first `from` in `text` (it must be there) by `to`.
void respell(std::string& text, std::string_view from, std::string_view to) {
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
}

// Reading `path` fails with an Error whose message holds each of `parts`.
void expect_read_error(const std::string& path, std::initializer_list<std::string> parts) {
  try {
    read(path, by_stack());
    ADD_FAILURE() << "accepted " << path;
  } catch (const Error& e) {
    const std::string message = e.what();
    for (const std::string& part : parts) EXPECT_NE(message.find(part), std::string::npos) << part << " in " << message;
  }
}

// Format 3: length-prefixed strings (one with a space), an inlined frame, an
// unsymbolized frame, two timestamps.
constexpr const char* kVersion3 =
    "v 10400 3\n"
    "X ./demo --flag\n"
    "I 1000 100\n"
    "s 13 /home/u/my app/demo\n"
    "s 8 make_buf\n"
    "s 7 leaky()\n"
    "s 4 main\n"
    "s 6 demo.c\n"
    "i 1000 1 4 5 a\n"              // main at demo.c:10
    "t 1 0\n"
    "i 2000 1 2 5 6 3 5 8\n"        // make_buf inlined into leaky()
    "t 2 1\n"
    "i 3000 1\n"                    // no symbol
    "t 3 1\n"
    "a 64 2\n"
    "+ 0\n"
    "c a\n"
    "a 20 3\n"
    "+ 1\n"
    "- 1\n"
    "c 14\n"
    "R 3c\n"
    "\n"
    "# strings: 5\n"
    "# ips: 3\n";

TEST(HeaptrackReader, Version3StringsInlineFramesAndUnknownSymbols) {
  TempDir dir;
  write_zstd(dir.file("heaptrack.demo.4242.zst"), kVersion3);
  const Read r = read(dir.file("heaptrack.demo.4242.zst"), by_stack());
  ASSERT_EQ(r.result.rows.size(), 2u);
  // Inlined frames are frames of their own, innermost first; modules are base names.
  EXPECT_EQ(r.result.rows[0].key[0].frames, (std::vector<std::string>{"demo!make_buf", "demo!leaky()", "demo!main"}));
  // Interpreted files have no module bases: the absolute address.
  EXPECT_EQ(r.result.rows[1].key[0].frames, (std::vector<std::string>{"demo!0x3000", "demo!main"}));
  EXPECT_EQ(detail(r.source, {"heaptrack", "format_version"}).number, 3u);
  EXPECT_EQ(detail(r.source, {"heaptrack", "version"}).text, "1.4.0");
  EXPECT_EQ(r.source.command, "./demo --flag");
  EXPECT_EQ(r.source.compression, "zstd");
  EXPECT_EQ(r.source.block_identity, BlockIdentity::kBucketLifo);
  EXPECT_EQ(r.source.end_ns, 20'000'000);
  EXPECT_EQ(r.source.peak_rss_bytes, 0x3cu * 0x1000u);
}

TEST(HeaptrackReader, ProcessNameFromTheCommandAndPidFromTheFileName) {
  TempDir dir;
  write_file(dir.file("heaptrack.demo.4242"), kVersion3);
  Query q = by_stack();
  q.by = {GroupBy::kProcess};
  const Read r = read(dir.file("heaptrack.demo.4242"), q);
  EXPECT_EQ(r.result.rows.at(0).key[0].text, "demo (4242)");
  EXPECT_EQ(r.source.compression, "plain");
}

TEST(HeaptrackReader, TimesComeFromClockRecordsInMillisecondsAndStartAtZero) {
  TempDir dir;
  write_gzip(dir.file("t.gz"), kVersion3);
  Query q = by_stack();
  q.window.end_ns = 10'000'000;  // [0, 10 ms): only the block before the first 'c'
  const Read r = read(dir.file("t.gz"), q);
  EXPECT_EQ(r.result.totals.stc, 1u);
  EXPECT_EQ(r.result.totals.st, 0x64u);
  EXPECT_EQ(r.source.compression, "gzip");
}

TEST(HeaptrackReader, Version2StringsAreTheRestOfTheLine) {
  TempDir dir;
  write_file(dir.file("v2"),
             "v 10250 2\n"
             "s /usr/lib/lib with space.so\n"
             "s operator new(unsigned long)\n"
             "i 10 1 2\n"
             "t 1 0\n"
             "a 8 1\n"
             "+ 0\n");
  const Read r = read(dir.file("v2"), by_stack());
  EXPECT_EQ(r.result.rows.at(0).key[0].frames, (std::vector<std::string>{"lib with space.so!operator new(unsigned long)"}));
  EXPECT_EQ(detail(r.source, {"heaptrack", "format_version"}).number, 2u);
}

TEST(HeaptrackReader, AMultiLineCommandRunsOnUntilTheIRecord) {
  TempDir dir;
  // heaptrack writes `python3 -c "<script>"` unescaped: its lines become lines of the file.
  write_file(dir.file("t"), "v 10400 3\nX python3 -c import os\nprint(1)\na = 1\nI 1000 10\ns 1 m\ni 1 1\nt 1 0\na 8 1\n+ 0\n");
  const Read r = read(dir.file("t"), by_stack());
  EXPECT_EQ(r.source.command, "python3 -c import os\nprint(1)\na = 1");
  EXPECT_EQ(r.result.totals.stc, 1u);
  write_file(dir.file("no-i"), "v 10400 3\nX prog\ns 1 m\ni 1 1\nt 1 0\na 8 1\n+ 0\n");
  EXPECT_THROW(read(dir.file("no-i"), by_stack()), Error);
}

TEST(HeaptrackReader, DecreasingTimestampsAreCountedAndKeptAtThePreviousTime) {
  TempDir dir;
  write_file(dir.file("t"), "v 10400 3\ns 1 m\ni 1 1\nt 1 0\na 8 1\nc 64\n+ 0\nc 32\n+ 0\n");
  const Read r = read(dir.file("t"), by_stack());
  EXPECT_EQ(r.source.anomalies.decreasing_timestamps, 1u);
  EXPECT_EQ(r.source.end_ns, 100'000'000);
}

TEST(HeaptrackReader, Version0FilesCarryAddressesAndGiveExactIdentity) {
  TempDir dir;
  write_file(dir.file("v0"),
             "v 10000\n"
             "s m\n"
             "i 1 1\n"
             "t 1 0\n"
             "+ 8 1 aa\n"
             "+ 8 1 bb\n"
             "c a\n"
             "- aa\n"
             "- cc\n");
  const Read r = read(dir.file("v0"), by_stack());
  EXPECT_EQ(r.source.block_identity, BlockIdentity::kExact);
  EXPECT_EQ(r.result.totals.soc, 1u);
  EXPECT_EQ(r.source.anomalies.unmatched_frees, 1u);
}

// An interpreted file and its raw twin, in step line for line for t, + and -.
// Two blocks of one bucket; the OLDER one is freed. Bucket-LIFO pairing would
// end the newer one; the raw twin's addresses say which one really died.
constexpr const char* kInterpreted =
    "v 10400 3\n"
    "X ./p\n"
    "I 1000 100\n"
    "s 8 /bin/p.x\n"
    "s 1 f\n"
    "i 401010 1 2\n"
    "t 1 0\n"
    "i 401777 1\n"
    "t 2 1\n"
    "a 10 1\n"
    "+ 0\n"
    "c a\n"
    "+ 0\n"
    "c 14\n"
    "- 0\n"
    "a 20 2\n"
    "+ 1\n";
constexpr const char* kRaw =
    "v 10400 3\n"
    "x 8 /bin/p.x\n"
    "X ./p\n"
    "I 1000 100\n"
    "m 8 /bin/p.x 400000 0 10000\n"
    "t 401010 0\n"
    "t 401777 1\n"
    "+ 10 1 aaa0\n"
    "c a\n"
    "+ 10 1 bbb0\n"
    "- 999\n"  // a free of an unknown address: heaptrack_interpret drops it
    "c 14\n"
    "- aaa0\n"
    "+ 20 2 ccc0\n";

TEST(HeaptrackReader, TheRawTwinGivesExactBlocksAndModuleOffsets) {
  TempDir dir;
  write_zstd(dir.file("p.zst"), kInterpreted);
  write_zstd(dir.file("p.raw.zst"), kRaw);
  Query q = by_stack();
  q.window.begin_ns = 10'000'000;  // [10 ms, end): the block allocated at 10 ms
  const Read exact = read(dir.file("p.zst"), q);
  EXPECT_EQ(exact.source.block_identity, BlockIdentity::kExact);
  EXPECT_EQ(exact.source.format, "raw+interpreted");
  EXPECT_EQ(exact.source.anomalies.unmatched_frees, 1u);
  const Row* f = nullptr;
  for (const Row& row : exact.result.rows) {
    if (row.key[0].frames.front() == "p.x!f") f = &row;
  }
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->measures.soc, 1u);  // the block allocated at 10 ms is still alive
  // With the raw twin, an unsymbolized frame is an offset from the module base.
  EXPECT_EQ(exact.result.rows[0].key[0].frames.front(), "p.x!0x1777");

  const Read lifo = read(dir.file("p.zst"), q, /*use_raw_twin=*/false);
  EXPECT_EQ(lifo.source.block_identity, BlockIdentity::kBucketLifo);
  for (const Row& row : lifo.result.rows) {
    if (row.key[0].frames.front() == "p.x!f") {
      EXPECT_EQ(row.measures.soc, 0u);  // LIFO ended the newer one
    }
  }
  // Whole-trace figures are the same whatever the pairing.
  const Read exact_all = read(dir.file("p.zst"), by_stack());
  const Read lifo_all = read(dir.file("p.zst"), by_stack(), false);
  EXPECT_EQ(exact_all.result.totals.so, lifo_all.result.totals.so);
  EXPECT_EQ(exact_all.result.totals.st, lifo_all.result.totals.st);
}

// The twin's lines are decoded on its reading thread when they are spelled
// canonically (lowercase hex, no leading zeros, single spaces); any other
// spelling heaptrack's fields allow is read by the checked parser instead,
// and must mean the same.
TEST(HeaptrackReader, ARawTwinSpelledOtherwiseMeansTheSame) {
  std::string spelled = kRaw;
  respell(spelled, "+ 10 1 aaa0\n", "+ 010 1 aaa0\n");     // a leading zero
  respell(spelled, "+ 10 1 bbb0\n", "+ 10 001 0bbb0\n");   // more of them
  respell(spelled, "- aaa0\n", "- aaa0 ignored\n");        // a free's fields after the address
  respell(spelled, "t 401777 1\n", "t 0401777 01\n");     // a `t`'s fields are the interpreted file's
  TempDir dir;
  write_zstd(dir.file("p.zst"), kInterpreted);
  write_zstd(dir.file("p.raw.zst"), kRaw);
  write_zstd(dir.file("q.zst"), kInterpreted);
  write_zstd(dir.file("q.raw.zst"), spelled);
  Query q = by_stack();
  q.window.begin_ns = 10'000'000;
  const Read canonical = read(dir.file("p.zst"), q);
  const Read other = read(dir.file("q.zst"), q);
  ASSERT_EQ(other.result.rows.size(), canonical.result.rows.size());
  for (std::size_t i = 0; i < canonical.result.rows.size(); ++i) {
    EXPECT_EQ(other.result.rows[i].key[0].frames, canonical.result.rows[i].key[0].frames);
    EXPECT_EQ(other.result.rows[i].measures.soc, canonical.result.rows[i].measures.soc);
    EXPECT_EQ(other.result.rows[i].measures.so, canonical.result.rows[i].measures.so);
  }
  EXPECT_EQ(other.source.anomalies.unmatched_frees, 1u);
}

// semantics.md §1: each anomaly is counted, with a warning naming the file
// and line, and the read goes on; --strict refuses the trace at it.
TEST(HeaptrackReader, EveryAnomalyIsWarnedAboutAtItsLineAndRefusedWhenStrict) {
  TempDir dir;
  write_file(dir.file("clock"), "v 10400 3\ns 1 m\ni 1 1\nt 1 0\na 8 1\nc 64\n+ 0\nc 32\n+ 0\n");
  write_file(dir.file("v0"), "v 10000\ns m\ni 1 1\nt 1 0\n+ 8 1 aa\n+ 8 1 aa\n- aa\n- aa\n- cc\n");
  write_zstd(dir.file("p.zst"), kInterpreted);
  write_zstd(dir.file("p.raw.zst"), kRaw);
  write_file(dir.file("skip"), "v 10400 3\ns 1 m\ni 1 1\nt 1 0\na 8 1\nQ 1\n+ 0\n");
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"clock", {":8: the clock goes back from 100 ms to 50 ms; the events after it keep 100 ms "
                 "(decreasing_timestamps)"}},
      {"v0", {":6: allocation at 0xaa, where a block is still alive: the earlier block ends here (alloc_over_live)",
              ":8: free of 0xaa, freed before and not allocated since (double_frees)",
              ":9: free of 0xcc, where no block is alive (unmatched_frees)"}},
      {"p.zst", {"p.raw.zst:11: free of 0x999, where no block is alive (unmatched_frees; heaptrack_interpret drops "
                 "it)"}},
      {"skip", {":6: skipped unknown record type 'Q' (as heaptrack does; skipped_records)"}},
  };
  for (const auto& [name, warnings] : cases) {
    SCOPED_TRACE(name);
    const Read r = read(dir.file(name), by_stack());
    EXPECT_EQ(r.source.anomalies.total(), warnings.size());
    for (const std::string& warning : warnings) {
      EXPECT_NE(r.warnings.find(warning + "\n"), std::string::npos) << r.warnings;
    }
    try {
      read(dir.file(name), by_stack(), true, /*strict=*/true);
      ADD_FAILURE() << "--strict accepted " << name;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(warnings.front() + "; --strict refuses a trace with an anomaly"), std::string::npos)
          << what;
    }
  }
}

// docs/heaptrack.md ("Double frees"): a raw twin's free of an address that
// is not alive is a double free when the address's latest free is among the
// last BlockMatcher::kFreesRemembered frees of live blocks, else an
// unmatched free. A block at 0x10, then `others` blocks at other addresses,
// each freed at once, then 0x10 freed again (heaptrack_interpret drops it),
// then a block at 0x20.
SourceInfo read_double_free_after(std::uint64_t others) {
  std::string interpreted = "v 10400 3\nX ./p\nI 1000 100\ns 8 /bin/p.x\ni 401010 1\nt 1 0\na 10 1\n+ 0\n- 0\n";
  std::string raw = "v 10400 3\nx 8 /bin/p.x\nX ./p\nI 1000 100\nm 8 /bin/p.x 400000 0 10000\nt 401010 0\n"
                    "+ 10 1 10\n- 10\n";
  for (std::uint64_t i = 0; i < others; ++i) {
    interpreted += "+ 0\n- 0\n";
    raw += fmt::format("+ 10 1 {:x}\n- {:x}\n", 0x1000 + 16 * i, 0x1000 + 16 * i);
  }
  // The twin is read as far as the interpreted file asks: an allocation
  // after the double free makes it read that far.
  interpreted += "+ 0\n";
  raw += "- 10\n+ 10 1 20\n";
  TempDir dir;
  write_zstd(dir.file("p.zst"), interpreted);
  write_zstd(dir.file("p.raw.zst"), raw);
  return read(dir.file("p.zst"), by_stack()).source;
}

TEST(HeaptrackReader, ARawTwinsDoubleFreeIsToldApartWithinTheBoundAndUnmatchedBeyondIt) {
  const SourceInfo inside = read_double_free_after(BlockMatcher::kFreesRemembered - 1);
  EXPECT_EQ(inside.anomalies.double_frees, 1u);
  EXPECT_EQ(inside.anomalies.unmatched_frees, 0u);
  const SourceInfo outside = read_double_free_after(BlockMatcher::kFreesRemembered);
  EXPECT_EQ(outside.anomalies.double_frees, 0u);
  EXPECT_EQ(outside.anomalies.unmatched_frees, 1u);
  EXPECT_EQ(outside.block_identity, BlockIdentity::kExact);
}

TEST(HeaptrackReader, AMalformedRawTwinLineIsNamedWithItsFileAndLine) {
  for (const auto& [from, to, what] : {std::tuple{"+ 10 1 bbb0\n", "+ 10 1 BBB0\n", "'+' record: address"},
                                       std::tuple{"- aaa0\n", "- aaa0x\n", "'-' record: address"},
                                       std::tuple{"+ 10 1 bbb0\n", "+ 10 1 bbb0 7\n", "extra fields"},
                                       std::tuple{"+ 10 1 bbb0\n", "+ 10 1\n", "missing field"}}) {
    std::string raw = kRaw;
    respell(raw, from, to);
    TempDir dir;
    write_zstd(dir.file("p.zst"), kInterpreted);
    write_zstd(dir.file("p.raw.zst"), raw);
    SCOPED_TRACE(to);
    expect_read_error(dir.file("p.zst"), {"p.raw.zst:", what});
  }
}

// The interpreted file's `t` and `a` records are decoded where they lie in
// the reading thread's buffer when spelled canonically; any other spelling
// heaptrack's fields allow goes to the checked parser and means the same,
// and a malformed one is named with its own line, far into a batch or not.
TEST(HeaptrackReader, TraceAndAllocationInfoRecordsSpelledOtherwiseMeanTheSame) {
  std::string spelled = kVersion3;
  respell(spelled, "t 2 1\n", "t 02 1\n");
  respell(spelled, "a 64 2\n", "a 064 02\n");
  respell(spelled, "t 3 1\n", "t 3 01\n");
  TempDir dir;
  write_zstd(dir.file("canonical.zst"), kVersion3);
  write_zstd(dir.file("spelled.zst"), spelled);
  const Read canonical = read(dir.file("canonical.zst"), by_stack());
  const Read other = read(dir.file("spelled.zst"), by_stack());
  ASSERT_EQ(canonical.result.rows.size(), 2u);
  ASSERT_EQ(other.result.rows.size(), canonical.result.rows.size());
  for (std::size_t i = 0; i < canonical.result.rows.size(); ++i) {
    EXPECT_EQ(other.result.rows[i].key[0].frames, canonical.result.rows[i].key[0].frames);
    EXPECT_EQ(other.result.rows[i].measures.so, canonical.result.rows[i].measures.so);
    EXPECT_EQ(other.result.rows[i].measures.stc, canonical.result.rows[i].measures.stc);
  }

  // Thousands of events first, so that the bad record lies deep in a batch.
  std::string events;
  for (int i = 0; i < 5000; ++i) events += "+ 0\n- 0\n";
  const std::string deep = std::string(kVersion3).insert(std::string(kVersion3).find("a 20 3\n"), events);
  for (const auto& [from, to, what] : {std::tuple{"t 3 1\n", "t 3 1x\n", "'t' record"},
                                       std::tuple{"a 20 3\n", "a 20 3 4\n", "extra fields"},
                                       std::tuple{"a 20 3\n", "a 20 A\n", "'a' record"}}) {
    std::string bad = deep;
    respell(bad, from, to);
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(bad.begin(), bad.begin() + bad.find(to), '\n'));
    write_zstd(dir.file("bad.zst"), bad);
    SCOPED_TRACE(to);
    expect_read_error(dir.file("bad.zst"), {fmt::format("bad.zst:{}:", line), what});
  }
}

// A second free of a freed address is a double free; a free of an address
// never allocated is not (semantics.md §1): told apart however far back the
// first free was.
TEST(HeaptrackReader, ARawTwinTellsADoubleFreeFromAFreeOfAnUnknownAddress) {
  std::string interpreted = "v 10400 3\nX ./p\nI 1000 100\ns 8 /bin/p.x\ni 401010 1\nt 1 0\na 10 1\n";
  std::string raw = "v 10400 3\nx 8 /bin/p.x\nX ./p\nI 1000 100\nm 8 /bin/p.x 400000 0 10000\nt 401010 0\n";
  constexpr int kBlocks = 20'000;  // far more than the set keeps pending or recent
  for (int i = 0; i < kBlocks; ++i) {
    interpreted += "+ 0\n- 0\n";
    raw += fmt::format("+ 10 1 {:x}\n- {:x}\n", 0x10000 + 16 * i, 0x10000 + 16 * i);
  }
  raw += "- 10000\n";          // the first block's address, freed long ago: a double free
  raw += "- 5\n";              // never allocated
  raw += fmt::format("- {:x}\n", 0x10000 + 16 * (kBlocks - 1));  // freed just now: a double free
  interpreted += "+ 0\n";
  raw += "+ 10 1 5\n";
  TempDir dir;
  write_zstd(dir.file("p.zst"), interpreted);
  write_zstd(dir.file("p.raw.zst"), raw);
  const Read r = read(dir.file("p.zst"), by_stack());
  EXPECT_EQ(r.source.anomalies.double_frees, 2u);
  EXPECT_EQ(r.source.anomalies.unmatched_frees, 1u);
  EXPECT_EQ(r.result.totals.soc, 1u);
}

TEST(HeaptrackReader, ARawFileNamedDirectlyFindsItsInterpretedTwin) {
  TempDir dir;
  write_zstd(dir.file("p.zst"), kInterpreted);
  write_zstd(dir.file("p.raw.zst"), kRaw);
  const Read r = read(dir.file("p.raw.zst"), by_stack());
  EXPECT_EQ(r.source.block_identity, BlockIdentity::kExact);
  EXPECT_EQ(r.result.totals.stc, 3u);
}

// Both files read on threads of their own in batches of lines: a pair long
// enough for many batches, walked in step across their ends. Each round
// allocates two blocks of one bucket and frees the OLDER one (which the raw
// twin's addresses say, where LIFO pairing would end the newer); every
// 1000th round the twin also frees an address never allocated.
std::pair<std::string, std::string> long_pair(std::size_t rounds, std::size_t mismatch_round = 0) {
  std::string interpreted = "v 10400 3\nX ./p\nI 1000 100\ns 8 /bin/p.x\ns 1 f\ni 401010 1 2\nt 1 0\na 10 1\n";
  std::string raw = "v 10400 3\nx 8 /bin/p.x\nX ./p\nI 1000 100\nm 8 /bin/p.x 400000 0 10000\nt 401010 0\n";
  std::uint64_t address = 0x1000;
  for (std::size_t round = 1; round <= rounds; ++round) {
    interpreted += "+ 0\n+ 0\n- 0\n";
    const std::uint64_t older = address, newer = address + 0x10;
    address += 0x20;
    raw += fmt::format("+ 10 1 {:x}\n+ {} 1 {:x}\n", older, round == mismatch_round ? "20" : "10", newer);
    if (round % 1000 == 0) raw += "- deadbeef0\n";
    raw += fmt::format("- {:x}\n", older);
    if (round % 100 == 0) {
      interpreted += fmt::format("c {:x}\n", round);
      raw += fmt::format("c {:x}\n", round);
    }
  }
  return {interpreted, raw};
}

TEST(HeaptrackReader, ARawTwinIsWalkedInStepAcrossManyBatches) {
  TempDir dir;
  constexpr std::size_t kRounds = 60'000;  // 180,000 events and more lines in each file
  const auto [interpreted, raw] = long_pair(kRounds);
  write_zstd(dir.file("p.zst"), interpreted);
  write_zstd(dir.file("p.raw.zst"), raw);
  const Read r = read(dir.file("p.zst"), by_stack());
  EXPECT_EQ(r.source.block_identity, BlockIdentity::kExact);
  EXPECT_EQ(r.result.totals.stc, 2 * kRounds);
  EXPECT_EQ(r.result.totals.soc, kRounds);
  EXPECT_EQ(r.source.anomalies.unmatched_frees, kRounds / 1000);
  // The twin's addresses end the older block of each round, which the
  // round's last allocation was not: no free is temporary (§8). Paired
  // LIFO, every free would end the block just allocated.
  EXPECT_EQ(r.result.temporary_blocks, 0u);
  EXPECT_EQ(read(dir.file("p.zst"), by_stack(), /*use_raw_twin=*/false).result.temporary_blocks, kRounds);
}

TEST(HeaptrackReader, ARawTwinMismatchFarIntoTheFilesNamesBothLines) {
  TempDir dir;
  constexpr std::size_t kBadRound = 50'000;  // well past the first batch of either file
  const auto [interpreted, raw] = long_pair(60'000, kBadRound);
  write_zstd(dir.file("p.zst"), interpreted);
  write_zstd(dir.file("p.raw.zst"), raw);
  // The bad round's second '+': 8 header lines, 3 event lines a round, a
  // clock line every 100 rounds (in the rounds before it).
  const std::size_t interpreted_line = 8 + 3 * (kBadRound - 1) + (kBadRound - 1) / 100 + 2;
  const std::size_t raw_line = 6 + 3 * (kBadRound - 1) + (kBadRound - 1) / 1000 + (kBadRound - 1) / 100 + 2;
  try {
    read(dir.file("p.zst"), by_stack());
    FAIL() << "a mismatch was not found";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(fmt::format("p.zst:{}: ", interpreted_line)), std::string::npos) << what;
    EXPECT_NE(what.find(fmt::format("p.raw.zst:{} has a '+' of 32 bytes", raw_line)), std::string::npos) << what;
  }
}

TEST(HeaptrackReader, StoreReplayGivesTheSameBlocksAsTheReader) {
  TempDir dir;
  write_zstd(dir.file("p.zst"), kInterpreted);
  write_zstd(dir.file("p.raw.zst"), kRaw);
  TraceStore store;
  TraceStore::Builder builder(store);
  HeaptrackReadOptions options;
  options.show_progress = false;
  store.source() = read_heaptrack(dir.file("p.zst"), store.tables(), builder, options);
  EXPECT_EQ(store.block_count(), 3u);
  EXPECT_EQ(store.event_count(), 4u);
  // 3 blocks, 1 free, 3 distinct times. A packed column of at most 64
  // values: a word a bit of its width (its highest value less its lowest),
  // its directory entry and the end entry; the one free takes no word.
  const auto packed_bytes = [](const PackedColumn& c) {
    std::uint32_t lowest = c[0], highest = c[0];
    for (std::size_t i = 0; i < c.size(); ++i) lowest = std::min(lowest, c[i]), highest = std::max(highest, c[i]);
    return (std::bit_width(highest - lowest) + 2u) * 8u;
  };
  const StoreColumns& c = store.columns();
  EXPECT_EQ(store.column_bytes(), packed_bytes(c.bucket) + packed_bytes(c.alloc_seq) + 2u * 8u + 3u * 16u);
  EXPECT_EQ(packed_bytes(c.alloc_seq), (2u + 2u) * 8u);  // 3 of the first 4 events: 2 bits
}

}  // namespace
}  // namespace heapql::test
