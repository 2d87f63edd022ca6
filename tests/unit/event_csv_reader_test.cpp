// The event CSV reader (docs/import.md) on hand-written files: how lines
// become blocks (semantics.md §1), every error with its line and column, and
// hostile input.
#include "engine/ingest/event_csv_reader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>

#include "engine/error.h"
#include "engine/ingest/block_matcher.h"
#include "engine/query/aggregator.h"
#include "engine/store/trace_store.h"
#include "tests/support/stack_texts.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

const std::string kHeader = "time,event,process,thread,heap,address,size,old_address,stack\n";

// The worked example of docs/import.md.
const std::string kExample =
    "# written by a tracing script\n"
    "time,event,process,thread,heap,address,size,old_address,stack\n"
    "0,alloc,demo (4242),7,,0x1000,64,,libc.so.6!malloc;demo!make_buf;demo!main\n"
    "1ms,alloc,demo (4242),7,,0x2000,4KiB,,\"demo!std::map<int, int>::insert;demo!main\"\n"
    "1.5ms,realloc,demo (4242),7,,0x3000,8192,0x1000,libc.so.6!realloc;demo!grow;demo!main\n"
    "\n"
    "2ms,free,demo (4242),8,,0x2000,,,\n"
    "2ms,alloc,demo (4242),8,VirtualAlloc,0x7f0000,1MiB,,kernelbase.dll!VirtualAlloc;demo!0x1a2b;?!0x7ffe1234\n"
    "3s,free,demo (4242),7,,0x9999,,,\n";

// Every block as the consumer saw it, by block id.
struct RecordedBlock {
  BucketId bucket;
  std::int64_t alloc_ns = 0;
  std::optional<std::int64_t> free_ns;
  bool temporary = false;
};

class Recorder final : public EventConsumer {
 public:
  void on_alloc(const LiveBlock& b) override {
    ASSERT_EQ(b.id.index(), blocks.size());
    blocks.push_back(RecordedBlock{b.bucket, b.alloc_ns, std::nullopt, false});
  }
  void on_free(const LiveBlock& b, std::uint64_t, std::int64_t ns, bool temporary) override {
    blocks.at(b.id.index()).free_ns = ns;
    blocks.at(b.id.index()).temporary = temporary;
  }
  void on_still_alive(const LiveBlock& b) override { still_alive.push_back(b.id.index()); }
  void on_finish(std::int64_t ns) override { end_ns = ns; }

  std::vector<RecordedBlock> blocks;
  std::vector<std::uint32_t> still_alive;
  std::int64_t end_ns = -1;
};

struct Read {
  TraceTables tables;
  Recorder recorder;
  SourceInfo source;
  std::string warnings;

  const Bucket& bucket(std::size_t block) const { return tables.bucket(recorder.blocks.at(block).bucket); }
  std::vector<std::string> frames(std::size_t block) const { return stack_texts(tables, bucket(block).stack); }
  std::string process(std::size_t block) const {
    const Process& p = tables.process(tables.process_of(bucket(block)));
    return fmt::format("{} ({})", tables.string(p.name), p.pid);
  }
  std::string heap(std::size_t block) const { return std::string(tables.string(tables.heap(bucket(block).heap).name)); }
  std::uint64_t handle(std::size_t block) const { return tables.heap(bucket(block).heap).handle; }
};

std::unique_ptr<Read> read_text(const std::string& text, const std::string& name = "events.csv") {
  TempDir dir;
  const std::string path = dir.file(name);
  write_file(path, text);
  auto r = std::make_unique<Read>();
  EventCsvReadOptions options;
  options.show_progress = false;
  options.warnings = &r->warnings;
  r->source = read_event_csv(path, r->tables, r->recorder, options);
  return r;
}

TEST(EventCsvReader, WorkedExampleBecomesBlocks) {
  const auto r = read_text(kExample);
  const auto& blocks = r->recorder.blocks;
  ASSERT_EQ(blocks.size(), 4u);

  EXPECT_EQ(r->bucket(0).size, 64u);
  EXPECT_EQ(blocks[0].alloc_ns, 0);
  EXPECT_EQ(blocks[0].free_ns, 1'500'000);  // ended by the realloc
  EXPECT_FALSE(r->bucket(0).is_realloc);
  EXPECT_EQ(r->frames(0), (std::vector<std::string>{"libc.so.6!malloc", "demo!make_buf", "demo!main"}));
  EXPECT_EQ(r->process(0), "demo (4242)");
  EXPECT_EQ(r->heap(0), "default");
  EXPECT_EQ(r->handle(0), 0u);
  EXPECT_EQ(r->bucket(0).thread, 7u);
  EXPECT_EQ(r->bucket(0).kind, BlockKind::kHeap);

  EXPECT_EQ(r->bucket(1).size, 4096u);
  EXPECT_EQ(blocks[1].alloc_ns, 1'000'000);
  EXPECT_EQ(blocks[1].free_ns, 2'000'000);
  EXPECT_EQ(r->frames(1), (std::vector<std::string>{"demo!std::map<int, int>::insert", "demo!main"}));

  EXPECT_EQ(r->bucket(2).size, 8192u);
  EXPECT_TRUE(r->bucket(2).is_realloc);
  EXPECT_EQ(blocks[2].alloc_ns, 1'500'000);
  EXPECT_FALSE(blocks[2].free_ns);
  EXPECT_EQ(r->frames(2), (std::vector<std::string>{"libc.so.6!realloc", "demo!grow", "demo!main"}));

  EXPECT_EQ(r->bucket(3).size, 1024u * 1024u);
  EXPECT_EQ(r->bucket(3).kind, BlockKind::kVirtual);
  EXPECT_EQ(r->heap(3), "VirtualAlloc");
  EXPECT_EQ(r->bucket(3).thread, 8u);
  EXPECT_EQ(r->frames(3),
            (std::vector<std::string>{"kernelbase.dll!VirtualAlloc", "demo!0x1a2b", "?!0x7ffe1234"}));

  EXPECT_EQ(r->recorder.still_alive, (std::vector<std::uint32_t>{2, 3}));
  EXPECT_EQ(r->recorder.end_ns, 3'000'000'000);
  EXPECT_EQ(r->tables.process_count(), 1u);
  EXPECT_EQ(r->tables.heap_count(), 2u);

  const SourceInfo& s = r->source;
  EXPECT_EQ(s.source, "csv");
  EXPECT_EQ(s.format, "events");
  EXPECT_EQ(s.compression, "plain");
  EXPECT_EQ(s.block_identity, BlockIdentity::kExact);
  EXPECT_TRUE(s.realloc_marked);
  EXPECT_TRUE(s.threads);
  EXPECT_EQ(s.time_resolution_ns, 1);
  EXPECT_EQ(s.end_ns, 3'000'000'000);
  EXPECT_EQ(s.lines, 6u);
  EXPECT_EQ(s.anomalies.unmatched_frees, 1u);
  EXPECT_EQ(s.anomalies.alloc_over_live, 0u);
  EXPECT_EQ(s.anomalies.total(), 1u);
  EXPECT_NE(r->warnings.find("events.csv:9: free of 0x9999 in heap default, where no block is alive (unmatched_frees)"),
            std::string::npos)
      << r->warnings;
}

// docs/import.md and tests/data/csv/example.csv show the example checked above.
TEST(EventCsvReader, TheDocsAndTheSampleFileHoldTheWorkedExample) {
  EXPECT_EQ(read_file(std::string(HEAPQL_TEST_DATA_DIR) + "/csv/example.csv"), kExample);
  EXPECT_NE(read_file(std::string(HEAPQL_SOURCE_DIR) + "/docs/import.md").find(kExample), std::string::npos);
}

TEST(EventCsvReader, TheAggregatorAnswersAQueryOnIt) {
  TempDir dir;
  write_file(dir.file("e.csv"), kExample);
  TraceStore store;
  TraceStore::Builder builder(store);
  EventCsvReadOptions options;
  std::string warnings;
  options.warnings = &warnings;
  store.source() = read_event_csv(dir.file("e.csv"), store.tables(), builder, options);

  Query q;
  q.by = {GroupBy::kHeap};
  q.default_cull = false;
  Aggregator aggregator(store.tables(), q);
  store.replay(aggregator);
  const Result result = aggregator.result(store.source());
  EXPECT_TRUE(result.realloc_known);
  EXPECT_EQ(result.totals.stc, 4u);
  EXPECT_EQ(result.totals.st, 64u + 4096u + 8192u + 1048576u);
  EXPECT_EQ(result.totals.so, 8192u + 1048576u);
  EXPECT_EQ(result.totals.src, 1u);
  ASSERT_EQ(result.rows.size(), 2u);
  EXPECT_EQ(result.rows[0].key[0].text, "VirtualAlloc");
  EXPECT_EQ(result.rows[1].key[0].text, "default");
  EXPECT_EQ(result.trace_end_ns, 3'000'000'000);

  Query virtual_only;
  virtual_only.kinds = {BlockKind::kVirtual};
  Aggregator filtered(store.tables(), virtual_only);
  store.replay(filtered);
  EXPECT_EQ(filtered.result(store.source()).totals.st, 1048576u);
}

TEST(EventCsvReader, QuotingCommentsBlankLinesCrlfAndByteOrderMark) {
  const auto r = read_text(
      "\xEF\xBB\xBF# comment before the header\r\n"
      "   \r\n"
      "time,\"event\",process,thread,heap,address,size,old_address,stack\r\n"
      "# a comment between events\r\n"
      "5,alloc,app,,,0x10,8,,\"m!say \"\"hi\"\", then; m!main \"\r\n"
      "\t\r\n"
      "6,alloc,app,,,0x20,8,,\"\"");  // no line break at the end
  ASSERT_EQ(r->recorder.blocks.size(), 2u);
  // Frames are trimmed of spaces around them; the quoted "" is one quote.
  EXPECT_EQ(r->frames(0), (std::vector<std::string>{"m!say \"hi\", then", "m!main"}));
  EXPECT_TRUE(r->frames(1).empty());
  EXPECT_EQ(r->source.lines, 2u);
  EXPECT_FALSE(r->source.threads);
  EXPECT_EQ(r->recorder.end_ns, 6);
}

TEST(EventCsvReader, TimesTakeUnitsOrBareNanosecondsAndMayRepeat) {
  const auto r = read_text(kHeader +
                           "250,alloc,p,,,0x1,1,,\n"
                           "250ns,alloc,p,,,0x2,1,,\n"
                           "1.5us,alloc,p,,,0x3,1,,\n"
                           "2ms,alloc,p,,,0x4,1,,\n"
                           "1s,alloc,p,,,0x5,1,,\n"
                           "1m,alloc,p,,,0x6,1,,\n"
                           "1H,alloc,p,,,0x7,1,,\n");
  std::vector<std::int64_t> times;
  for (const auto& b : r->recorder.blocks) times.push_back(b.alloc_ns);
  EXPECT_EQ(times, (std::vector<std::int64_t>{250, 250, 1500, 2'000'000, 1'000'000'000, 60'000'000'000,
                                               3'600'000'000'000}));
  EXPECT_EQ(r->source.end_ns, 3'600'000'000'000);
}

TEST(EventCsvReader, SizesTakeUnits) {
  const auto r = read_text(kHeader +
                           "0,alloc,p,,,0x1,0,,\n"
                           "0,alloc,p,,,0x2,1KB,,\n"
                           "0,alloc,p,,,0x3,1.5kib,,\n"
                           "0,alloc,p,,,0x4,2MiB,,\n"
                           "0,alloc,p,,,0x5,17B,,\n");
  std::vector<std::uint64_t> sizes;
  for (std::size_t i = 0; i < r->recorder.blocks.size(); ++i) sizes.push_back(r->bucket(i).size);
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{0, 1000, 1536, 2 * 1024 * 1024, 17}));
}

TEST(EventCsvReader, ProcessesAsNameAndPidABarePidABareNameOrNothing) {
  const auto r = read_text(kHeader +
                           "0,alloc,my app (12),,,0x1,1,,\n"
                           "0,alloc,12,,,0x2,1,,\n"
                           "0,alloc,my app,,,0x3,1,,\n"
                           "0,alloc,,,,0x4,1,,\n"
                           "0,alloc,my app (12),,,0x5,1,,\n"
                           "0,alloc,f (x),,,0x6,1,,\n");
  EXPECT_EQ(r->process(0), "my app (12)");
  EXPECT_EQ(r->process(1), "? (12)");
  EXPECT_EQ(r->process(2), "my app (0)");
  EXPECT_EQ(r->process(3), "? (0)");
  EXPECT_EQ(r->tables.process_of(r->bucket(4)), r->tables.process_of(r->bucket(0)));
  EXPECT_EQ(r->process(5), "f (x) (0)");  // not a pid in parentheses: all name
  EXPECT_EQ(r->tables.process_count(), 5u);
}

TEST(EventCsvReader, HeapsByDefaultHandleOrName) {
  const auto r = read_text(kHeader +
                           "0,alloc,p,,,0x1,1,,\n"
                           "0,alloc,p,,default,0x2,1,,\n"
                           "0,alloc,p,,0x0,0x3,1,,\n"
                           "0,alloc,p,,0x1A0000,0x4,1,,\n"
                           "0,alloc,p,,0x1a0000,0x5,1,,\n"
                           "0,alloc,p,,arena,0x6,1,,\n"
                           "0,alloc,p,,other,0x7,1,,\n"
                           "0,alloc,p,,VirtualAlloc,0x8,1,,\n"
                           "0,alloc,p,,virtualalloc,0x9,1,,\n"
                           "0,alloc,q,,arena,0xa,1,,\n");
  EXPECT_EQ(r->bucket(1).heap, r->bucket(0).heap);
  EXPECT_EQ(r->bucket(2).heap, r->bucket(0).heap);
  EXPECT_EQ(r->heap(3), "0x1a0000");
  EXPECT_EQ(r->handle(3), 0x1a0000u);
  EXPECT_EQ(r->bucket(4).heap, r->bucket(3).heap);
  EXPECT_EQ(r->heap(5), "arena");
  EXPECT_EQ(r->handle(5), 0xffffffffffffffffu);  // named heaps are numbered down from the top
  EXPECT_EQ(r->handle(6), 0xfffffffffffffffeu);
  EXPECT_EQ(r->bucket(7).kind, BlockKind::kVirtual);
  EXPECT_EQ(r->bucket(8).kind, BlockKind::kHeap);  // only the exact name means virtual
  EXPECT_NE(r->bucket(9).heap, r->bucket(5).heap);  // another process's heap
  EXPECT_EQ(r->handle(9), 0xffffffffffffffffu);
}

TEST(EventCsvReader, ANamedHeapSkipsAHandleAHexHeapHas) {
  const auto r = read_text(kHeader +
                           "0,alloc,p,,0xffffffffffffffff,0x1,1,,\n"
                           "0,alloc,p,,arena,0x2,1,,\n");
  EXPECT_EQ(r->heap(0), "0xffffffffffffffff");
  EXPECT_EQ(r->heap(1), "arena");
  EXPECT_EQ(r->handle(1), 0xfffffffffffffffeu);
}

TEST(EventCsvReader, BlocksAreExactByProcessHeapAndAddress) {
  const auto r = read_text(kHeader +
                           "0,alloc,a,,,0x10,1,,\n"
                           "0,alloc,b,,,0x10,2,,\n"
                           "0,alloc,a,,h,0x10,3,,\n"
                           "1,free,b,,,0x10,,,\n"
                           "2,free,a,,h,0x10,,,\n"
                           "3,free,a,,,0x10,,,\n"
                           "4,free,a,,,0x10,,,\n");
  const auto& b = r->recorder.blocks;
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[1].free_ns, 1);
  EXPECT_EQ(b[2].free_ns, 2);
  EXPECT_EQ(b[0].free_ns, 3);
  // The second free of a's 0x10 is a double free, not a free of an unknown address.
  EXPECT_EQ(r->source.anomalies.double_frees, 1u);
  EXPECT_EQ(r->source.anomalies.unmatched_frees, 0u);
  EXPECT_NE(r->warnings.find(":8: free of 0x10 in heap default, freed before and not allocated since (double_frees)"),
            std::string::npos)
      << r->warnings;
}

// docs/import.md: a second free is a double free while the address's latest
// free is among the last BlockMatcher::kFreesRemembered frees, else an
// unmatched free; the reader keeps the live blocks and that many addresses.
TEST(EventCsvReader, ADoubleFreeIsToldApartWithinTheBoundAndUnmatchedBeyondIt) {
  for (const std::uint64_t others : {std::uint64_t{BlockMatcher::kFreesRemembered - 1},
                                     std::uint64_t{BlockMatcher::kFreesRemembered}}) {
    SCOPED_TRACE(others);
    std::string text = kHeader + "0,alloc,a,,,0x10,1,,\n1,free,a,,,0x10,,,\n";
    for (std::uint64_t i = 0; i < others; ++i) {
      text += fmt::format("2,alloc,a,,,0x{:x},1,,\n2,free,a,,,0x{:x},,,\n", 0x1000 + 16 * i, 0x1000 + 16 * i);
    }
    text += "3,free,a,,,0x10,,,\n";
    const auto r = read_text(text);
    const bool inside = others < BlockMatcher::kFreesRemembered;
    EXPECT_EQ(r->source.anomalies.double_frees, inside ? 1u : 0u);
    EXPECT_EQ(r->source.anomalies.unmatched_frees, inside ? 0u : 1u);
  }
}

TEST(EventCsvReader, AnAddressAllocatedAgainAfterItsFreeIsNoDoubleFree) {
  const auto r = read_text(kHeader +
                           "0,alloc,a,,,0x10,1,,\n"
                           "1,free,a,,,0x10,,,\n"
                           "2,alloc,a,,,0x10,2,,\n"
                           "3,free,a,,,0x10,,,\n"
                           "4,free,a,,,0x20,,,\n");
  EXPECT_EQ(r->recorder.blocks.size(), 2u);
  EXPECT_EQ(r->source.anomalies.double_frees, 0u);
  EXPECT_EQ(r->source.anomalies.unmatched_frees, 1u);  // 0x20 was never allocated
  EXPECT_EQ(r->source.anomalies.alloc_over_live, 0u);
}

TEST(EventCsvReader, ReallocEndsTheOldBlockAndStartsAMarkedOne) {
  const auto r = read_text(kHeader +
                           "0,alloc,p,,,0x10,16,,m!f\n"
                           "1,realloc,p,,,0x10,32,0x10,m!g\n"     // in place
                           "2,realloc,p,,,0x20,64,0x10,m!g\n"     // moved
                           "3,realloc,p,,,0x30,8,,m!h\n"          // realloc(NULL, 8)
                           "4,realloc,p,,,0x40,8,0x0,m!h\n"       // the same, written 0x0
                           "5,realloc,p,,,0x50,8,0x999,m!h\n");   // nothing alive at the old address
  const auto& b = r->recorder.blocks;
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b[0].free_ns, 1);
  EXPECT_EQ(b[1].free_ns, 2);
  EXPECT_TRUE(r->bucket(1).is_realloc);
  EXPECT_EQ(r->bucket(2).size, 64u);
  EXPECT_FALSE(b[2].free_ns);
  EXPECT_TRUE(r->bucket(3).is_realloc);
  EXPECT_TRUE(r->bucket(4).is_realloc);
  EXPECT_EQ(r->source.anomalies.unmatched_frees, 1u);
  EXPECT_NE(r->warnings.find(":7: realloc of 0x999 in heap default, where no block is alive"), std::string::npos)
      << r->warnings;
}

TEST(EventCsvReader, AnomaliesAreCountedNeverFatal) {
  const auto r = read_text(kHeader +
                           "0,alloc,p,,,0x10,16,,\n"
                           "1,alloc,p,,,0x10,32,,\n"   // the first's free was lost
                           "2,free,p,,,0x0,,,\n"       // free(NULL): nothing
                           "3,free,p,,,0x77,8,,\n"     // unmatched; a size on a free is allowed
                           "4,free,p,,,0x10,,,\n");
  const auto& b = r->recorder.blocks;
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].free_ns, 1);
  EXPECT_EQ(b[1].free_ns, 4);
  EXPECT_EQ(r->source.anomalies.alloc_over_live, 1u);
  EXPECT_EQ(r->source.anomalies.unmatched_frees, 1u);
  EXPECT_EQ(r->source.lines, 5u);
  EXPECT_NE(r->warnings.find(":3: alloc at 0x10 in heap default, where a block is still alive"), std::string::npos)
      << r->warnings;
}

TEST(EventCsvReader, WarningsStopAfterTenWithACount) {
  std::string text = kHeader;
  for (int i = 0; i < 25; ++i) text += fmt::format("{},free,p,,,0x{:x},,,\n", i, i + 1);
  const auto r = read_text(text);
  EXPECT_EQ(r->source.anomalies.unmatched_frees, 25u);
  EXPECT_NE(r->warnings.find("15 more warnings not listed"), std::string::npos) << r->warnings;
  EXPECT_EQ(std::count(r->warnings.begin(), r->warnings.end(), '\n'), 11);
}

TEST(EventCsvReader, TemporaryFollowsTheThread) {
  const auto r = read_text(kHeader +
                           "0,alloc,p,1,,0x10,8,,\n"
                           "0,alloc,p,2,,0x20,8,,\n"
                           "0,free,p,1,,0x10,,,\n"   // thread 1's next event: temporary
                           "0,free,p,2,,0x20,,,\n");
  EXPECT_TRUE(r->recorder.blocks[0].temporary);
  EXPECT_TRUE(r->recorder.blocks[1].temporary);
  EXPECT_TRUE(r->source.threads);
}

TEST(EventCsvReader, FramesOfEveryForm) {
  const auto r = read_text(kHeader +
                           "0,alloc,p,,,0x1,1,,operator new;/usr/lib/libfoo.so.1!0x1A2B;C:\\Windows\\ntdll.dll!"
                           "RtlAllocateHeap;?!0x7ffe;?!mystery;0x42;m!a!b\n");
  EXPECT_EQ(r->frames(0), (std::vector<std::string>{"?!operator new", "libfoo.so.1!0x1a2b", "ntdll.dll!RtlAllocateHeap",
                                                     "?!0x7ffe", "?!mystery", "?!0x42", "m!a!b"}));
}

TEST(EventCsvReader, AHeaderOnlyFileIsAnEmptyTrace) {
  const auto r = read_text(kHeader);
  EXPECT_TRUE(r->recorder.blocks.empty());
  EXPECT_EQ(r->source.lines, 0u);
  EXPECT_EQ(r->source.end_ns, 0);
  EXPECT_EQ(r->recorder.end_ns, 0);
}

TEST(EventCsvReader, LooksLikeEventCsvSniffsTheHeader) {
  TempDir dir;
  write_file(dir.file("a.csv"), kExample);
  write_file(dir.file("b.csv"), "# only a comment\n");
  write_file(dir.file("c.txt"), "v 10400 3\nX ./demo\n");
  write_file(dir.file("d.csv"), "time,event,process\n");
  write_file(dir.file("e.csv"), "");
  write_file(dir.file("f.csv"), std::string("\x28\xb5\x2f\xfd\0\0junk", 10));
  write_file(dir.file("g.csv"), "\xEF\xBB\xBF" + kHeader);
  write_file(dir.file("h.csv"), std::string(200000, 'x'));
  EXPECT_TRUE(looks_like_event_csv(dir.file("a.csv")));
  EXPECT_FALSE(looks_like_event_csv(dir.file("b.csv")));
  EXPECT_FALSE(looks_like_event_csv(dir.file("c.txt")));
  EXPECT_FALSE(looks_like_event_csv(dir.file("d.csv")));
  EXPECT_FALSE(looks_like_event_csv(dir.file("e.csv")));
  EXPECT_FALSE(looks_like_event_csv(dir.file("f.csv")));
  EXPECT_TRUE(looks_like_event_csv(dir.file("g.csv")));
  EXPECT_FALSE(looks_like_event_csv(dir.file("h.csv")));
  EXPECT_FALSE(looks_like_event_csv(dir.file("missing.csv")));
  EXPECT_FALSE(looks_like_event_csv(dir.path().string()));  // a folder
}

// ---- errors: each with its line, column and exact message ----

struct ErrorCase {
  const char* name;
  std::string text;
  std::optional<std::uint64_t> line;
  std::optional<std::uint64_t> column;
  std::string message;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

class EventCsvErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(EventCsvErrors, SaysWhereAndWhatWasExpected) {
  const ErrorCase& c = GetParam();
  TempDir dir;
  const std::string path = dir.file("events.csv");
  write_file(path, c.text);
  TraceTables tables;
  Recorder recorder;
  EventCsvReadOptions options;
  std::string warnings;
  options.warnings = &warnings;
  try {
    read_event_csv(path, tables, recorder, options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), c.message);
    EXPECT_EQ(e.where().file, path);
    EXPECT_EQ(e.where().line, c.line);
    EXPECT_EQ(e.where().column, c.column);
  }
}

const std::string kValidLine = "0,alloc,p,,,0x10,8,,m!f\n";

INSTANTIATE_TEST_SUITE_P(
    EventCsvReader, EventCsvErrors,
    ::testing::Values(
        ErrorCase{"EmptyFile", "", std::nullopt, std::nullopt,
                  "empty file: expected the header line "
                  "time,event,process,thread,heap,address,size,old_address,stack"},
        ErrorCase{"OnlyComments", "# nothing\n\n", std::nullopt, std::nullopt,
                  "no header line: the file holds only blank lines and comments; expected "
                  "time,event,process,thread,heap,address,size,old_address,stack"},
        ErrorCase{"WrongHeaderName", "time,evt,process,thread,heap,address,size,old_address,stack\n", 1, 6,
                  "header: column 2 is \"evt\", expected \"event\"; the first line that is not blank or a comment "
                  "must be exactly time,event,process,thread,heap,address,size,old_address,stack"},
        ErrorCase{"HeaderWithSpaces", "time, event,process,thread,heap,address,size,old_address,stack\n", 1, 6,
                  "header: column 2 is \" event\", expected \"event\"; the first line that is not blank or a comment "
                  "must be exactly time,event,process,thread,heap,address,size,old_address,stack"},
        ErrorCase{"ShortHeader", "# c\ntime,event,process\n", 2, 19,
                  "header: the line ends after 3 columns; expected the header line "
                  "time,event,process,thread,heap,address,size,old_address,stack"},
        ErrorCase{"LongHeader", "time,event,process,thread,heap,address,size,old_address,stack,extra\n", 1, 63,
                  "header: an extra column \"extra\"; expected the header line "
                  "time,event,process,thread,heap,address,size,old_address,stack"},
        ErrorCase{"TooFewFields", kHeader + "0,alloc,p,,,0x10,8,\n", 2, 20,
                  "expected 9 fields (time,event,process,thread,heap,address,size,old_address,stack), got 8"},
        ErrorCase{"TooManyFields", kHeader + "0,alloc,p,,,0x10,8,,std::map<int, int>::insert\n", 2, 34,
                  "expected 9 fields (time,event,process,thread,heap,address,size,old_address,stack), got 10; "
                  "quote fields that contain commas"},
        ErrorCase{"UnterminatedQuote", kHeader + "0,alloc,p,,,0x10,8,,\"m!f\n", 2, 21,
                  "unterminated quoted field: the closing '\"' is missing (a quoted field must end on its line)"},
        ErrorCase{"TextAfterClosingQuote", kHeader + "0,alloc,\"p\"x,,,0x10,8,,m!f\n", 2, 12,
                  "expected ',' or the end of the line after a quoted field, got \"x\""},
        ErrorCase{"QuoteInsideUnquotedField", kHeader + "0,alloc,p\"q,,,0x10,8,,m!f\n", 2, 10,
                  "a '\"' inside an unquoted field: quote the whole field and double the '\"' in it"},
        ErrorCase{"BinaryJunk", kHeader + kValidLine + std::string("0,al\0loc\n", 9), 3, 5,
                  "unexpected control byte 0x00 (is this a text file?)"},
        ErrorCase{"Gzip", std::string("\x1f\x8b\x08\0\0\0", 6), std::nullopt, std::nullopt,
                  "gzip-compressed: heapql reads event CSV files as plain text; decompress it first"},
        ErrorCase{"OverlongLine", kHeader + std::string(kEventCsvMaxLineBytes + 1, 'a') + "\n", 2, std::nullopt,
                  "the line is longer than 1048576 bytes (is this an event CSV file?)"},
        ErrorCase{"OverlongLastLineWithoutBreak", kHeader + kValidLine + std::string(kEventCsvMaxLineBytes + 7, '#'),
                  3, std::nullopt, "the line is longer than 1048576 bytes (is this an event CSV file?)"},
        ErrorCase{"TimeMissing", kHeader + ",alloc,p,,,0x10,8,,\n", 2, 1,
                  "time: missing; expected a time such as 1.5s, 250us or a whole number of nanoseconds"},
        ErrorCase{"TimeBadUnit", kHeader + "3 s,alloc,p,,,0x10,8,,\n", 2, 1,
                  "time: expected a time such as 1.5s, 250us or a whole number of nanoseconds, got \"3 s\" "
                  "(unknown unit ' s', expected one of ns us ms s m h)"},
        ErrorCase{"TimeNegative", kHeader + "-5ms,alloc,p,,,0x10,8,,\n", 2, 1,
                  "time: expected a time such as 1.5s, 250us or a whole number of nanoseconds, got \"-5ms\" "
                  "(expected a number; negative values are not allowed)"},
        ErrorCase{"TimeFraction", kHeader + "1.5,alloc,p,,,0x10,8,,\n", 2, 1,
                  "time: expected a time such as 1.5s, 250us or a whole number of nanoseconds, got \"1.5\" "
                  "(needs a unit: ns us ms s m h)"},
        ErrorCase{"TimeTooLarge", kHeader + "9223372036854775808,alloc,p,,,0x10,8,,\n", 2, 1,
                  "time: \"9223372036854775808\" nanoseconds is too large (the most is 9223372036854775807)"},
        ErrorCase{"TimeDecreases", kHeader + "2s,alloc,p,,,0x10,8,,\n# gap\n1500ms,free,p,,,0x10,,,\n", 4, 1,
                  "time: 1.5s is earlier than 2s on line 2; times must not decrease (sort the events by time first)"},
        ErrorCase{"TimeDecreasesByANanosecond", kHeader + "1000000001,alloc,p,,,0x10,8,,\n1s,free,p,,,0x10,,,\n", 3, 1,
                  "time: 1s is earlier than 1000000001ns on line 2; times must not decrease (sort the events by time "
                  "first)"},
        ErrorCase{"UnknownEvent", kHeader + "0,malloc,p,,,0x10,8,,\n", 2, 3,
                  "event: expected alloc, free or realloc, got \"malloc\""},
        ErrorCase{"PidTooLarge", kHeader + "0,alloc,p (99999999999999999999),,,0x10,8,,\n", 2, 9,
                  "process: pid \"99999999999999999999\" is too large"},
        ErrorCase{"BadThread", kHeader + "0,alloc,p,t1,,0x10,8,,\n", 2, 11,
                  "thread: expected a thread id (a whole number below 2^32) or nothing, got \"t1\""},
        ErrorCase{"ThreadTooLarge", kHeader + "0,alloc,p,4294967296,,0x10,8,,\n", 2, 11,
                  "thread: expected a thread id (a whole number below 2^32) or nothing, got \"4294967296\""},
        ErrorCase{"BadHeapHandle", kHeader + "0,alloc,p,,0xheap,0x10,8,,\n", 2, 12,
                  "heap: expected a heap name or a hex handle such as 0x1a0000, got \"0xheap\""},
        ErrorCase{"HeapHandleOfANamedHeap", kHeader + "0,alloc,p,,arena,0x10,8,,\n0,alloc,p,,0xffffffffffffffff,0x10,8,,\n",
                  3, 12,
                  "heap: handle 0xffffffffffffffff is the one heapql gave the named heap \"arena\" (named heaps are "
                  "numbered down from 0xffffffffffffffff)"},
        ErrorCase{"AllocWithoutAddress", kHeader + "0,alloc,p,,,,8,,\n", 2, 13,
                  "address: missing; alloc needs the new block's address"},
        ErrorCase{"DecimalAddress", kHeader + "0,alloc,p,,,4096,8,,\n", 2, 13,
                  "address: expected a hex address such as 0x7f3a2c, got \"4096\""},
        ErrorCase{"AddressTooLong", kHeader + "0,alloc,p,,,0x10000000000000000,8,,\n", 2, 13,
                  "address: expected a hex address such as 0x7f3a2c, got \"0x10000000000000000\""},
        ErrorCase{"AllocAtNull", kHeader + "0,alloc,p,,,0x0,8,,\n", 2, 13,
                  "address: 0x0 is no block (leave a failed alloc out, write a free for a realloc that freed)"},
        ErrorCase{"FreeWithoutAddress", kHeader + "0,free,p,,,,,,\n", 2, 12,
                  "address: missing; a free needs the block's address"},
        ErrorCase{"AllocWithoutSize", kHeader + "0,alloc,p,,,0x10,,,\n", 2, 18,
                  "size: missing; alloc needs the block's size"},
        ErrorCase{"BadSize", kHeader + "0,alloc,p,,,0x10,4x,,\n", 2, 18,
                  "size: expected a size in bytes such as 4096 or 4KiB, got \"4x\" (unknown unit 'x', expected one of "
                  "B KB KiB MB MiB GB GiB TB TiB)"},
        ErrorCase{"FractionalBytes", kHeader + "0,alloc,p,,,0x10,1.5B,,\n", 2, 18,
                  "size: expected a size in bytes such as 4096 or 4KiB, got \"1.5B\" (not a whole number of bytes)"},
        ErrorCase{"BadSizeOnAFree", kHeader + "0,free,p,,,0x10,lots,,\n", 2, 17,
                  "size: expected a size in bytes such as 4096 or 4KiB, got \"lots\" (expected a number)"},
        ErrorCase{"OldAddressOnAnAlloc", kHeader + "0,alloc,p,,,0x10,8,0x20,\n", 2, 20,
                  "old_address: expected nothing for alloc (only realloc has one), got \"0x20\""},
        ErrorCase{"OldAddressOnAFree", kHeader + "0,free,p,,,0x10,,0x20,\n", 2, 18,
                  "old_address: expected nothing for free (only realloc has one), got \"0x20\""},
        ErrorCase{"BadOldAddress", kHeader + "0,realloc,p,,,0x10,8,16,\n", 2, 22,
                  "old_address: expected a hex address such as 0x7f3a2c, got \"16\""},
        ErrorCase{"ReallocWithoutSize", kHeader + "0,realloc,p,,,0x10,,0x20,\n", 2, 20,
                  "size: missing; realloc needs the block's size"},
        ErrorCase{"EmptyFrame", kHeader + "0,alloc,p,,,0x10,8,,m!f;;m!main\n", 2, 21,
                  "stack: frame 2 is empty (frames are separated by ';', top first)"},
        ErrorCase{"TrailingSeparator", kHeader + "0,alloc,p,,,0x10,8,,m!f;\n", 2, 21,
                  "stack: frame 2 is empty (frames are separated by ';', top first)"},
        ErrorCase{"FrameWithoutModule", kHeader + "0,alloc,p,,,0x10,8,,m!f;!g\n", 2, 21,
                  "stack: frame 2 \"!g\" has no module before '!' (write ? for an unknown module)"},
        ErrorCase{"FrameWithoutSymbol", kHeader + "0,alloc,p,,,0x10,8,,libc.so!\n", 2, 21,
                  "stack: frame 1 \"libc.so!\" has nothing after '!' (expected module!symbol or module!0xOFFSET)"}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) { return std::string(info.param.name); });

TEST(EventCsvReader, AMissingFileIsAnError) {
  TempDir dir;
  TraceTables tables;
  Recorder recorder;
  try {
    read_event_csv(dir.file("nope.csv"), tables, recorder, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.what(), dir.file("nope.csv") + ": cannot open: No such file or directory");
  }
}

TEST(EventCsvReader, TheFullMessageCarriesFileLineAndColumn) {
  TempDir dir;
  write_file(dir.file("events.csv"), kHeader + "0,alloc,p,,,0x10,4x,,\n");
  TraceTables tables;
  Recorder recorder;
  try {
    read_event_csv(dir.file("events.csv"), tables, recorder, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.substr(what.find_last_of("/\\") + 1, 23), "events.csv:2:18: size: ");
  }
}

// Cut and damaged copies of a valid file: each either reads or throws
// heapql::Error, never anything else (and the sanitized build checks memory).
TEST(EventCsvReader, TruncationsAndMutationsThrowErrorOrSucceed) {
  TempDir dir;
  const std::string path = dir.file("fuzz.csv");
  const std::string valid = kExample + "4s,realloc,\"x (1)\",3,arena,0x10,1KiB,0x7f0000,\"a!b \"\"c\"\"\"\n";
  // One set of tables for every attempt (a fresh one costs more than a read).
  TraceTables tables;
  auto attempt = [&](const std::string& text) {
    write_file(path, text);
    Recorder recorder;
    EventCsvReadOptions options;
    std::string warnings;
    options.warnings = &warnings;
    try {
      read_event_csv(path, tables, recorder, options);
    } catch (const Error&) {
    } catch (...) {
      ADD_FAILURE() << "not a heapql::Error for input:\n" << text;
    }
    (void)looks_like_event_csv(path);
  };
  for (std::size_t n = 0; n <= valid.size(); ++n) attempt(valid.substr(0, n));
  std::mt19937 random(20240611);
  static constexpr char kInteresting[] = ",\"\n\r#;!x0\xff\x00 ";
  const std::string interesting(kInteresting, sizeof kInteresting - 1);
  for (int round = 0; round < 400; ++round) {
    std::string text = valid;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = random() % text.size();
      switch (random() % 3) {
        case 0: text[at] = interesting[random() % interesting.size()]; break;
        case 1: text.erase(at, 1 + random() % 8); break;
        default: text.insert(at, 1, interesting[random() % interesting.size()]); break;
      }
      if (text.empty()) text = "x";
    }
    attempt(text);
  }
}

}  // namespace
}  // namespace heapql::test
