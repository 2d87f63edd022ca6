// The live journal (docs/store-format.md, "The live journal"): readers
// reading it over and over while a writer fed by a real trace's reader
// appends to it see, every time, a whole prefix of the trace, whose answer is
// the answer of the same prefix of the trace; a journal cut short, damaged or
// crafted is read up to its last whole segment while the writer lives, and is
// an error naming the file and the byte once it does not; a session answers
// from a recording in progress and passes over a journal its writer left.
#include "engine/session/live_journal.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#ifndef _WIN32
#include <sys/resource.h>
#endif

#include <algorithm>
#include <atomic>
#include <csignal>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/binary_file/checksum.h"
#include "engine/binary_file/varint.h"
#include "engine/error.h"
#include "engine/ingest/open_trace.h"
#include "engine/platform/file_lock.h"
#include "engine/query/aggregator.h"
#include "engine/query/query_plan.h"
#include "engine/report/reports.h"
#include "engine/session/trace_session.h"
#include "engine/store_file/live_journal_format.h"
#include "engine/store_file/store_format.h"
#include "tests/support/live_journal_checksums.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;
using store_file::LiveJournalRead;
using store_file::read_live_journal;
using store_file::read_live_journal_bytes;

OpenOptions quiet(std::string& warnings) {
  OpenOptions options;
  options.show_progress = false;
  options.warnings = &warnings;
  return options;
}

// The biggest real trace at hand: a heaptrack recording of heaptrack_gui
// from the sample-data folder, else the bundled example.
std::string real_trace() {
  const std::string gui = shared_data("heaptrack/heaptrack.heaptrack_gui.99454.zst");
  return fs::exists(gui) ? gui : example_trace();
}

// Records `trace` into a store in memory through a LiveJournalWriter whose
// journal is beside `recording` (a name only: no file is there), publishing
// every `interval`, with the builder's bucket sums unless `without_sums`.
// Returns the reader's SourceInfo.
SourceInfo record_with_journal(const std::string& trace, const std::string& recording, std::chrono::milliseconds interval,
                               TraceStore& built, std::uint64_t* segments = nullptr, bool without_sums = false) {
  std::string warnings;
  TraceStore::Builder builder(built);
  SourceInfo reading;
  reading.path = recording;
  reading.source = "heaptrack";
  LiveJournalWriter writer(recording, built.tables(), reading, builder,
                           without_sums ? nullptr : &builder.sums_so_far(), interval);
  SourceInfo info = read_trace(trace, built.tables(), writer, quiet(warnings));
  if (segments != nullptr) *segments = writer.segments();
  return info;
}

// The whole trace, and per prefix of its events what a whole-trace query
// counts: blocks allocated, bytes allocated, bytes outstanding.
struct Reference {
  std::unique_ptr<TraceStore> store;
  std::vector<std::uint64_t> allocated_bytes, outstanding_bytes;  // after event i, at i + 1
};

Reference reference_of(const std::string& trace) {
  std::string warnings;
  Reference r;
  r.store = load_trace(trace, quiet(warnings));
  const StoreColumns& c = r.store->columns();
  r.allocated_bytes.assign(c.event_count + 1, 0);
  r.outstanding_bytes.assign(c.event_count + 1, 0);
  std::size_t next_alloc = 0, next_free = 0;
  std::uint64_t allocated = 0, outstanding = 0;
  for (std::uint64_t seq = 0; seq < c.event_count; ++seq) {
    if (next_alloc < c.alloc_seq.size() && c.alloc_seq[next_alloc] == seq) {
      const std::uint64_t size = r.store->tables().bucket(BucketId(c.bucket[next_alloc++])).size;
      allocated += size;
      outstanding += size;
    } else {
      const std::uint32_t block = c.free_order[next_free++] & StoreColumns::kBlockMask;
      outstanding -= r.store->tables().bucket(BucketId(c.bucket[block])).size;
    }
    r.allocated_bytes[seq + 1] = allocated;
    r.outstanding_bytes[seq + 1] = outstanding;
  }
  return r;
}

// Forwards the events before `events` only: the store of a prefix of a trace.
class FirstEvents final : public EventConsumer {
 public:
  FirstEvents(EventConsumer& next, std::uint64_t events, std::int64_t end_ns)
      : next_(next), events_(events), end_ns_(end_ns) {}
  void on_alloc(const LiveBlock& b) override {
    if (b.alloc_seq < events_) next_.on_alloc(b);
  }
  void on_free(const LiveBlock& b, std::uint64_t seq, std::int64_t ns, bool temporary) override {
    if (seq < events_) next_.on_free(b, seq, ns, temporary);
  }
  void on_still_alive(const LiveBlock&) override {}
  void on_finish(std::int64_t) override { next_.on_finish(end_ns_); }

 private:
  EventConsumer& next_;
  std::uint64_t events_;
  std::int64_t end_ns_;
};

Result by_stack(const TraceStore& store) {
  Query q;
  q.by = {GroupBy::kStack};
  Aggregator a(store.tables(), q, compile_stack_filters(q));
  a.answer_from(store);
  return a.result(store.source());
}

// The answer as JSON without the source it names (a live one says so).
std::string rows_json(const Result& r) { return result_json(r, SourceInfo{}); }

std::string prefix_answer(const TraceStore& full, std::uint64_t events, std::int64_t end_ns) {
  TraceStore prefix;
  prefix.tables() = full.tables();
  TraceStore::Builder builder(prefix);
  FirstEvents first(builder, events, end_ns);
  full.replay(first);
  return rows_json(by_stack(prefix));
}

// The bucket sums and peak a journal carries, against those the store
// builder counts from the journal's own columns: "" when the same.
std::string sums_differ(const TraceStore& journal_store) {
  const StoreColumns& carried = journal_store.columns();
  const auto rebuilt = store_file::rebuilt_through_builder(journal_store);
  const std::vector<BucketSum> carried_sums = carried.bucket_sums.all();
  const StoreColumns& counted = rebuilt->columns();
  const std::vector<BucketSum> counted_sums = counted.bucket_sums.all();
  if (carried_sums.size() != counted_sums.size()) {
    return fmt::format("{} bucket sums, not {}", carried_sums.size(), counted_sums.size());
  }
  for (std::size_t i = 0; i < counted_sums.size(); ++i) {
    const BucketSum& a = carried_sums[i];
    const BucketSum& b = counted_sums[i];
    if (a.bucket != b.bucket || a.live_at_peak != b.live_at_peak || a.allocs != b.allocs || a.frees != b.frees ||
        a.temporary_frees != b.temporary_frees) {
      return fmt::format("sum {}: bucket {} ({} {} {} {}), not bucket {} ({} {} {} {})", i, a.bucket, a.live_at_peak,
                         a.allocs, a.frees, a.temporary_frees, b.bucket, b.live_at_peak, b.allocs, b.frees,
                         b.temporary_frees);
    }
  }
  if (carried.peak.bytes != counted.peak.bytes || carried.peak.blocks != counted.peak.blocks ||
      carried.peak.time_ns != counted.peak.time_ns) {
    return fmt::format("peak {} B {} blocks at {}, not {} B {} blocks at {}", carried.peak.bytes, carried.peak.blocks,
                       carried.peak.time_ns, counted.peak.bytes, counted.peak.blocks, counted.peak.time_ns);
  }
  return "";
}

// Two threads read while a real trace is journalled: every read is a whole
// prefix of the trace, and answers as that prefix does; with the bucket
// sums (whole-trace queries answer from them, which equal those the store
// builder counts from the prefix), or without (they replay it).
void readers_against_a_writer(bool without_sums) {
  const std::string trace = real_trace();
  const Reference ref = reference_of(trace);
  TempDir dir;
  const std::string recording = dir.file("recording.zst");
  const std::string journal = live_journal_beside(recording);
  std::atomic<bool> writing{true};
  std::atomic<int> reads{0}, compared{0};
  std::vector<std::string> failures;
  std::mutex failures_mutex;
  const auto failed = [&](const std::string& what) {
    const std::lock_guard lock(failures_mutex);
    if (failures.size() < 10) failures.push_back(what);
  };
  const auto reader = [&](bool compare_rows) {
    std::uint64_t last_events = 0;
    std::uint64_t n = 0;
    while (writing.load() || n == 0) {
      if (!fs::exists(journal)) continue;
      const bool alive = file_lock_is_held(journal);
      try {
        const LiveJournalRead read = read_live_journal(journal, alive);
        ++reads;
        ++n;
        const TraceStore& s = *read.store;
        if (read.events < last_events) failed("the events went back");
        last_events = read.events;
        const std::size_t blocks = s.block_count();
        const std::size_t allocs = ref.store->columns().alloc_seq.lower_bound(read.events);
        if (blocks != allocs) failed("blocks differ from the trace's prefix");
        const Result r = by_stack(s);
        if (r.totals.stc != allocs || r.totals.st != ref.allocated_bytes[read.events] ||
            r.totals.so != ref.outstanding_bytes[read.events] || r.totals.soc != allocs - (read.events - allocs)) {
          failed("totals differ from the trace's prefix at " + std::to_string(read.events) + " events");
        }
        if (compare_rows && n % 4 == 1 && rows_json(r) != prefix_answer(*ref.store, read.events, read.time_ns)) {
          failed("rows differ from the trace's prefix at " + std::to_string(read.events) + " events");
        }
        if (s.columns().has_bucket_sums() == without_sums && read.events > 0) {
          failed("the journal's store has bucket sums: " + std::to_string(!without_sums));
        }
        if (compare_rows && !without_sums) {
          if (const std::string differ = sums_differ(s); !differ.empty()) {
            failed("at " + std::to_string(read.events) + " events, " + differ);
          }
        }
        if (compare_rows) ++compared;
      } catch (const Error& e) {
        failed(std::string("a read failed: ") + e.what());
      }
    }
  };
  std::thread a(reader, true), b(reader, false);
  TraceStore built;
  std::uint64_t segments = 0;
  record_with_journal(trace, recording, std::chrono::milliseconds(0), built, &segments, without_sums);
  writing = false;
  a.join();
  b.join();
  for (const std::string& f : failures) ADD_FAILURE() << f;
  EXPECT_GT(segments, 3u);
  EXPECT_GT(reads.load(), 2);
  EXPECT_GT(compared.load(), 0);
  // The writer is gone: the journal is whole, and the whole trace.
  const LiveJournalRead last = read_live_journal(journal, false);
  EXPECT_EQ(last.segments, segments);
  EXPECT_EQ(last.events, ref.store->event_count());
  EXPECT_EQ(rows_json(by_stack(*last.store)), rows_json(by_stack(*ref.store)));
  // Fed through the store builder instead, the same answer.
  EXPECT_EQ(rows_json(by_stack(*store_file::rebuilt_through_builder(*last.store))), rows_json(by_stack(*ref.store)));
  if (!without_sums) {
    EXPECT_EQ(sums_differ(*last.store), "");
  }
}

TEST(LiveJournal, ReadersAgainstAWriterInALoopSeeWholePrefixes) { readers_against_a_writer(false); }

TEST(LiveJournal, ReadersAgainstAWriterWithoutBucketSumsReplayThePrefix) { readers_against_a_writer(true); }

// A journal of the bundled example, written whole, and where its segments start.
struct WholeJournal {
  std::string bytes;
  std::vector<std::uint64_t> segment_at;  // and the file's end last
};

WholeJournal whole_journal() {
  TempDir dir;
  const std::string recording = dir.file("example.zst");
  TraceStore built;
  record_with_journal(example_trace(), recording, std::chrono::milliseconds(0), built);
  WholeJournal j;
  j.bytes = read_file(live_journal_beside(recording));
  for (std::uint64_t at = 0; at < j.bytes.size();) {
    j.segment_at.push_back(at);
    std::uint64_t payload = 0;
    std::memcpy(&payload, j.bytes.data() + at + 16, 8);
    at += store_file::kLiveSegmentHeaderBytes + payload;
  }
  j.segment_at.push_back(j.bytes.size());
  return j;
}

// The error a read of `bytes` by a dead writer's reader gives ("" if none).
std::string dead_error(const std::string& bytes) {
  try {
    read_live_journal_bytes(bytes, "j.hqlive", false);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void set_u64(std::string& bytes, std::uint64_t at, std::uint64_t v) { std::memcpy(bytes.data() + at, &v, 8); }

// Sets the checksums of the segment at `at` right again after its bytes were changed.
void reseal(std::string& bytes, std::uint64_t at) { test::reseal_live_segment(bytes.data(), bytes.size(), at); }

TEST(LiveJournal, ACutShortJournalIsItsWholeSegmentsWhileTheWriterLivesAndDamageAfter) {
  const WholeJournal j = whole_journal();
  ASSERT_GE(j.segment_at.size(), 4u);
  std::mt19937_64 random(50);
  std::uint64_t previous_events = 0;
  std::vector<std::uint64_t> cuts;
  for (int i = 0; i < 200; ++i) cuts.push_back(random() % (j.bytes.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  for (const std::uint64_t cut : cuts) {
    const std::string bytes = j.bytes.substr(0, cut);
    // The segments wholly before the cut.
    std::size_t whole = 0;
    while (whole + 1 < j.segment_at.size() && j.segment_at[whole + 1] <= cut) ++whole;
    if (whole == 0) {
      EXPECT_THROW(read_live_journal_bytes(bytes, "j.hqlive", true), Error) << "cut at " << cut;
      continue;
    }
    const LiveJournalRead read = read_live_journal_bytes(bytes, "j.hqlive", true);
    EXPECT_EQ(read.segments, whole) << "cut at " << cut;
    EXPECT_EQ(read.bytes_used, j.segment_at[whole]);
    EXPECT_GE(read.events, previous_events);
    previous_events = read.events;
    const std::string error = dead_error(bytes);
    if (cut == j.segment_at[whole]) {
      EXPECT_EQ(error, "") << "cut at a segment's end";
    } else {
      EXPECT_NE(error.find("j.hqlive: byte " + std::to_string(j.segment_at[whole]) + ": "), std::string::npos)
          << error;
    }
  }
}

TEST(LiveJournal, DamageIsNamedByItsByte) {
  const WholeJournal j = whole_journal();
  const std::uint64_t second = j.segment_at[2];
  {
    std::string bytes = j.bytes;
    bytes[second + 50] ^= 1;  // in its payload
    EXPECT_EQ(read_live_journal_bytes(bytes, "j.hqlive", true).segments, 2u);
    expect_contains(dead_error(bytes),
                    "j.hqlive: byte " + std::to_string(second) + ": a segment whose checksum does not match");
  }
  {
    std::string bytes = j.bytes;
    bytes[0] = 'X';
    expect_contains(dead_error(bytes), "j.hqlive: byte 0: not a heapql live journal (its magic is wrong)");
    EXPECT_THROW(read_live_journal_bytes(bytes, "j.hqlive", true), Error);
  }
  {
    std::string bytes = j.bytes;
    set_u64(bytes, second + 16, std::uint64_t{1} << 60);  // an absurd length, its header sealed
    set_u64(bytes, second + 32, store_file::checksum_of(bytes.data() + second, 32));
    EXPECT_EQ(read_live_journal_bytes(bytes, "j.hqlive", true).segments, 2u);
    expect_contains(dead_error(bytes), "byte " + std::to_string(second) + ": a segment of 1152921504606846976 bytes "
                                       "runs past the end of the file");
  }
  {
    std::string bytes = j.bytes;
    bytes[second + 8] = 7;  // version 7, sealed: an error even while the writer lives
    set_u64(bytes, second + 32, store_file::checksum_of(bytes.data() + second, 32));
    EXPECT_THROW(read_live_journal_bytes(bytes, "j.hqlive", true), Error);
    expect_contains(dead_error(bytes), "live journal version 7; this heapql reads version " + std::to_string(store_file::kLiveJournalVersion));
  }
  {
    std::string bytes = j.bytes;
    bytes[second + 12] = 9;  // a segment's number out of place, sealed
    set_u64(bytes, second + 32, store_file::checksum_of(bytes.data() + second, 32));
    expect_contains(dead_error(bytes), "segment number 9 where segment 2 belongs");
  }
}

// Where the part of `kind` starts in the segment at `segment` (its head), or 0.
std::uint64_t part_in(const std::string& bytes, std::uint64_t segment, std::uint32_t kind) {
  std::uint64_t payload = 0;
  std::memcpy(&payload, bytes.data() + segment + 16, 8);
  for (std::uint64_t at = segment + 40; at < segment + 40 + payload;) {
    std::uint32_t k = 0;
    std::uint64_t n = 0;
    std::memcpy(&k, bytes.data() + at, 4);
    std::memcpy(&n, bytes.data() + at + 16, 8);
    if (k == kind) return at;
    at += 24 + (n + 7) / 8 * 8;
  }
  return 0;
}

TEST(LiveJournal, BucketSumsThatDoNotFitTheColumnsAreRefused) {
  const WholeJournal j = whole_journal();
  // The last segment with sums (the one the end wrote may have none).
  std::uint64_t last = 0, sums = 0;
  for (std::size_t k = j.segment_at.size() - 1; k-- > 0 && sums == 0;) {
    last = j.segment_at[k];
    sums = part_in(j.bytes, last, static_cast<std::uint32_t>(store_file::Section::kBucketSums));
  }
  const std::uint64_t progress = part_in(j.bytes, last, store_file::kLiveProgressPart);
  ASSERT_NE(progress, 0u);
  ASSERT_NE(sums, 0u);
  EXPECT_EQ(dead_error(j.bytes), "");
  const auto refused = [&](const std::function<void(std::string&)>& change, const std::string& expected) {
    std::string bytes = j.bytes;
    change(bytes);
    reseal(bytes, last);
    expect_contains(dead_error(bytes), expected);
    EXPECT_THROW(read_live_journal_bytes(bytes, "j.hqlive", true), Error);  // whole segments: damage either way
  };
  const auto u64_at = [](std::uint64_t at, std::uint64_t value) {
    return [=](std::string& bytes) { set_u64(bytes, at, value); };
  };
  const std::uint64_t flags_at = progress + 24 + 40;
  refused(u64_at(flags_at, 0), "a segment that differs from the first on whether the journal carries bucket sums");
  refused(u64_at(flags_at, 3), "unknown progress flags 0x3");
  refused(u64_at(progress + 24 + 24, std::uint64_t{1} << 40), "a peak of more blocks than were allocated");
  // A sum whose blocks and frees are one byte each (varints below 126):
  // one more block, then more frees than blocks.
  std::uint64_t part_bytes = 0;
  std::memcpy(&part_bytes, j.bytes.data() + sums + 16, 8);
  const std::string_view part(j.bytes.data() + sums + 24, part_bytes);
  std::size_t at = 0, allocs_at = 0;
  std::uint64_t fields[5] = {};
  while (allocs_at == 0 && at < part.size()) {
    std::size_t field_at[5];
    for (int f = 0; f < 5; ++f) {
      field_at[f] = at;
      ASSERT_TRUE(take_varint(part, at, fields[f]));
    }
    if (fields[1] < 126 && field_at[2] == field_at[1] + 1 && field_at[3] == field_at[2] + 1) allocs_at = field_at[1];
  }
  ASSERT_NE(allocs_at, 0u) << "no sum with small counts";
  const std::uint64_t allocs_byte = sums + 24 + allocs_at;
  refused([&](std::string& bytes) { bytes[allocs_byte] = static_cast<char>(fields[1] + 1); }, "the bucket sums count");
  refused([&](std::string& bytes) { bytes[allocs_byte + 1] = static_cast<char>(fields[1] + 1); },
          "a bucket sum that does not fit the tables");
  refused([&](std::string& bytes) { bytes[allocs_byte] = static_cast<char>(0x80); },  // runs into the next field
          "a bucket sum");
}

// Buckets first allocated out of the order of their ids (an ETW trace's
// may be): the sums keep the order of first allocation, each bucket's
// latest, and the peak, segment after segment.
TEST(LiveJournal, BucketSumsOfBucketsAllocatedOutOfIdOrder) {
  TempDir dir;
  const std::string recording = dir.file("r.zst");
  TraceStore built;
  TraceTables& t = built.tables();
  const StackId stack = t.intern_stack(t.intern_frame(t.intern_string("m"), t.intern_string("f"), 0), StackId());
  std::vector<BucketId> buckets;
  for (std::uint64_t size : {10, 20, 30, 40}) {
    Bucket b;
    b.size = size;
    b.stack = stack;
    buckets.push_back(t.intern_bucket(b));
  }
  TraceStore::Builder builder(built);
  LiveJournalWriter writer(recording, t, SourceInfo{}, builder, &builder.sums_so_far(), std::chrono::hours(1));
  std::uint64_t seq = 0, blocks = 0;
  std::vector<LiveBlock> live;
  const auto alloc = [&](std::size_t k) {
    const LiveBlock b{BlockId(static_cast<std::uint32_t>(blocks++)), buckets[k], seq, static_cast<std::int64_t>(seq) * 1000};
    ++seq;
    writer.on_alloc(b);
    live.push_back(b);
  };
  const auto free_first = [&] {
    writer.on_free(live.front(), seq, static_cast<std::int64_t>(seq) * 1000, false);
    ++seq;
    live.erase(live.begin());
  };
  const auto check = [&](const char* when) {
    const LiveJournalRead read = read_live_journal(live_journal_beside(recording), true);
    EXPECT_EQ(sums_differ(*read.store), "") << when;
  };
  alloc(2), alloc(0), alloc(2);
  writer.publish_now();
  check("after buckets 2 and 0");
  alloc(3), free_first(), alloc(1), alloc(0);  // bucket 2's first block freed
  writer.publish_now();
  check("after buckets 3 and 1");
  free_first(), free_first(), free_first();  // the peak stays behind: untouched buckets keep their count at it
  writer.publish_now();
  check("after frees");
  for (int i = 0; i < 6; ++i) alloc(1);  // a new peak
  writer.publish_now();
  check("after a new peak");
  const LiveJournalRead read = read_live_journal(live_journal_beside(recording), true);
  const std::vector<BucketSum> sums = read.store->columns().bucket_sums.all();
  ASSERT_EQ(sums.size(), 4u);
  EXPECT_EQ(sums[0].bucket, buckets[2].value);
  EXPECT_EQ(sums[1].bucket, buckets[0].value);
  EXPECT_EQ(sums[2].bucket, buckets[3].value);
  EXPECT_EQ(sums[3].bucket, buckets[1].value);
  EXPECT_EQ(read.store->columns().peak.blocks, live.size());
}

// The stack and bucket tables go in whole chunks (kLiveStackChunkRows and
// kLiveBucketChunkRows rows), each viewed where it lies in the journal, and the rows past the
// last one go again with the next new rows: tables of many chunks, grown
// between segments by row counts that are no multiple of a chunk (and in
// one segment not at all), read back row for row after every segment,
// without the reader owning more than one chunk of each; the block columns
// are gathered only when first read.
TEST(LiveJournal, TablesOfManyChunksReadBackRowForRowViewedInPlace) {
  TempDir dir;
  const std::string recording = dir.file("tables.zst");
  TraceStore built;
  TraceTables& t = built.tables();
  TraceStore::Builder builder(built);
  SourceInfo reading;
  reading.path = recording;
  reading.source = "heaptrack";
  LiveJournalWriter writer(recording, t, reading, builder, &builder.sums_so_far(), std::chrono::hours(1));
  const StringId module = t.intern_string("prog");
  // Grown by counts of the bigger chunk (stack nodes'), so both tables span several.
  const std::size_t chunk = store_file::kLiveStackChunkRows;
  StackId stack;
  std::uint32_t blocks = 0;
  std::uint64_t bytes = 0;
  for (const std::size_t added : {chunk / 2, chunk + 3, std::size_t{0}, 2 * chunk - 1, std::size_t{1}, chunk}) {
    for (std::size_t i = 0; i < added; ++i) {
      // Chains of 64 nodes, each headed by a frame of its own: every node
      // is new, and so is its bucket, with few frames and shallow stacks.
      const bool head = blocks % 64 == 0;
      stack = t.intern_stack(t.intern_frame(module, StringId(), head ? 0x100000 + blocks : blocks % 64),
                             head ? StackId() : stack);
      Bucket b;
      b.size = 16 + blocks % 100;
      b.stack = stack;
      const BucketId bucket = t.intern_bucket(b);
      writer.on_alloc(LiveBlock{BlockId(blocks), bucket, blocks, std::int64_t{blocks} * 1000});
      bytes += 16 + blocks % 100;
      ++blocks;
    }
    writer.publish_now();
    const LiveJournalRead read = read_live_journal(live_journal_beside(recording), true);
    const TraceTables& r = read.store->tables();
    ASSERT_EQ(r.stack_count(), t.stack_count());
    ASSERT_EQ(r.bucket_count(), t.bucket_count());
    for (std::uint32_t i = 0; i < t.stack_count(); ++i) {
      ASSERT_EQ(r.stack(StackId(i)).frame, t.stack(StackId(i)).frame) << i;
      ASSERT_EQ(r.stack(StackId(i)).parent, t.stack(StackId(i)).parent) << i;
    }
    for (std::uint32_t i = 0; i < t.bucket_count(); ++i) ASSERT_EQ(r.bucket(BucketId(i)), t.bucket(BucketId(i))) << i;
    // Copied, the tables would own every row (32 bytes a bucket and its
    // stack: 4.7 MB at the end); viewed, at most a chunk of each, the
    // frames and the strings.
    EXPECT_LT(r.memory_bytes(), store_file::kLiveStackChunkRows * sizeof(StackNode) +
                                    store_file::kLiveBucketChunkRows * sizeof(Bucket) + (128 << 10));
    const Result answer = by_stack(*read.store);
    EXPECT_EQ(answer.totals.stc, blocks);
    EXPECT_EQ(answer.totals.st, bytes);
    // That answer came from the bucket sums: the block columns are still
    // where they lie in the journal, put together when first read.
    EXPECT_EQ(read.store->columns_but_blocks().bucket.size(), 0u);
    EXPECT_EQ(read.store->block_count(), blocks);
    EXPECT_EQ(read.store->columns_but_blocks().bucket.size(), blocks);
  }
  EXPECT_GT(t.stack_count(), 4 * chunk);
}

// A stacks part starts where the table's last whole chunk ends, and holds
// at least the rows the part before sent past it: one that holds fewer (a
// writer that sent only its new rows) would drop rows, and is refused.
TEST(LiveJournal, AStacksPartThatWouldDropRowsIsRefused) {
  TraceTables t;
  const FrameId frame = t.intern_frame(t.intern_string("prog"), t.intern_string("work"), 0);
  StackId stack;
  for (int i = 0; i < 10; ++i) stack = t.intern_stack(frame, stack);
  SourceInfo reading;
  reading.source = "heaptrack";
  store_file::LiveSegmentRows rows;
  rows.tables = &t;
  std::string bytes;
  store_file::append_live_segment(bytes, 0, &reading, rows);
  const std::uint64_t second = bytes.size();
  for (int i = 0; i < 2; ++i) stack = t.intern_stack(frame, stack);
  rows.first_string = t.string_count();
  rows.first_frame = t.frame_count();
  rows.first_process = t.process_count();
  rows.first_heap = t.heap_count();
  rows.first_stack = 10;  // the new rows only: 2, where 12 belong
  store_file::append_live_segment(bytes, 1, nullptr, rows);
  const std::string part_at = "j.hqlive: byte " + std::to_string(second + store_file::kLiveSegmentHeaderBytes);
  expect_contains(dead_error(bytes), part_at + ": 2 stack nodes from row 0, fewer than the 10 the segment before sent");
  EXPECT_THROW(read_live_journal_bytes(bytes, "j.hqlive", true), Error);
  // Sent from where the part belongs, the same rows read back.
  bytes.resize(second);
  rows.first_stack = store_file::live_table_part_start(10, store_file::kLiveStackChunkRows);
  store_file::append_live_segment(bytes, 1, nullptr, rows);
  EXPECT_EQ(read_live_journal_bytes(bytes, "j.hqlive", false).store->tables().stack_count(), 12u);
}

TEST(LiveJournal, CraftedSegmentsWithRightChecksumsAreRefusedNeverCrash) {
  const WholeJournal j = whole_journal();
  std::mt19937_64 random(7);
  int refused = 0;
  for (int i = 0; i < 400; ++i) {
    std::string bytes = j.bytes;
    const std::size_t k = random() % (j.segment_at.size() - 1);
    const std::uint64_t at = j.segment_at[k], end = j.segment_at[k + 1];
    // A few bytes of one payload changed, its checksums set right.
    for (int n = 0; n < 1 + static_cast<int>(random() % 4); ++n) {
      const std::uint64_t where = at + 40 + random() % (end - at - 40);
      bytes[where] = static_cast<char>(random());
    }
    reseal(bytes, at);
    for (const bool alive : {true, false}) {
      std::unique_ptr<TraceStore> store;
      try {
        store = read_live_journal_bytes(bytes, "j.hqlive", alive).store;
      } catch (const Error& e) {
        ++refused;
        EXPECT_NE(std::string(e.what()).find("j.hqlive"), std::string::npos) << e.what();
        continue;
      }
      // What the parts' checks let by (a packed value changed, say), the
      // replay refuses, as it does a store file's (the session names the file).
      try {
        (void)by_stack(*store);
        (void)store_file::rebuilt_through_builder(*store);
      } catch (const Error& e) {
        ++refused;
        EXPECT_NE(std::string(e.what()).find("store is inconsistent"), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_GT(refused, 100);
}

#ifndef _WIN32
// The disk takes no more (here: a file size limit, EFBIG): the journal stops
// at its last whole segment, which readers still answer, the recording goes
// on into the store, and the writer holds nothing more for the journal.
TEST(LiveJournal, AWriteThatFailsEndsTheJournalNotTheRecording) {
  TempDir dir;
  const std::string recording = dir.file("r.zst");
  const std::string trace = real_trace();
  const Reference ref = reference_of(trace);
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit limited = before;
  limited.rlim_cur = 64 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  TraceStore built;
  std::string failure;
  std::size_t pending = 0;
  {
    TraceStore::Builder builder(built);
    LiveJournalWriter writer(recording, built.tables(), SourceInfo{}, builder, &builder.sums_so_far(),
                             std::chrono::milliseconds(0));
    std::string warnings, journal_warnings;
    writer.collect_warnings(&journal_warnings);
    read_trace(trace, built.tables(), writer, quiet(warnings));
    failure = writer.failure();
    expect_contains(journal_warnings, live_journal_beside(recording) + ": cannot write the live journal (");
    expect_contains(journal_warnings, "queries on the recording answer the part published before, up to ");
    pending = writer.pending_events();
  }
  ::setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, previous_handler);
  EXPECT_NE(failure, "");
  EXPECT_LT(pending, 128u);
  EXPECT_EQ(built.event_count(), ref.store->event_count());  // the store has every event
  // As its readers saw it while the recording went on (a writer alive: the
  // segment the disk took only part of is one not yet written).
  const LiveJournalRead read = read_live_journal(live_journal_beside(recording), true);
  EXPECT_LE(read.file_bytes, 64u * 1024);
  EXPECT_LT(read.bytes_used, read.file_bytes);
  EXPECT_LT(read.events, ref.store->event_count());
  EXPECT_EQ(rows_json(by_stack(*read.store)), prefix_answer(*ref.store, read.events, read.time_ns));
}
#endif

TEST(LiveJournal, ASecondWriterOfTheSameJournalIsRefused) {
  TempDir dir;
  const std::string recording = dir.file("r.zst");
  TraceStore a, b;
  TraceStore::Builder builder_a(a), builder_b(b);
  LiveJournalWriter first(recording, a.tables(), SourceInfo{}, builder_a, &builder_a.sums_so_far());
  EXPECT_TRUE(file_lock_is_held(live_journal_beside(recording)));
  try {
    LiveJournalWriter second(recording, b.tables(), SourceInfo{}, builder_b, &builder_b.sums_so_far());
    ADD_FAILURE() << "a second writer was let in";
  } catch (const Error& e) {
    expect_contains(e.what(), "another recording is writing this live journal");
  }
}

TEST(LiveJournal, ASessionAnswersFromARecordingInProgressAndPassesOverALeftJournal) {
  TempDir dir;
  const std::string recording = dir.file("rec.zst");
  const std::string trace = example_trace();
  std::string expected;
  {
    std::string warnings;
    TraceSession whole(trace, quiet(warnings));
    Query q;
    q.by = {GroupBy::kStack};
    expected = rows_json(whole.answer_once(q, compile_stack_filters(q)).result);
  }
  Query q;
  q.by = {GroupBy::kStack};
  {
    TraceStore built;
    TraceStore::Builder builder(built);
    SourceInfo reading;
    reading.path = recording;
    reading.source = "heaptrack";
    std::string warnings;
    LiveJournalWriter writer(recording, built.tables(), reading, builder, &builder.sums_so_far(), std::chrono::hours(1));
    // Before anything is published past the first segment: no events yet.
    {
      std::string said;
      TraceSession session(recording, quiet(said));
      const Answer a = session.answer_once(q, compile_stack_filters(q));
      ASSERT_TRUE(a.source.live.has_value());
      EXPECT_EQ(a.result.totals.stc, 0u);
      expect_contains(said, recording + ": recording in progress, up to 0s");
    }
    read_trace(trace, built.tables(), writer, quiet(warnings));  // on_finish publishes
    for (const std::string& named : {recording, live_journal_beside(recording)}) {
      std::string said;
      TraceSession session(named, quiet(said));
      const Answer a = session.answer_once(q, compile_stack_filters(q));
      ASSERT_TRUE(a.source.live.has_value()) << named;
      EXPECT_EQ(a.source.live->journal, live_journal_beside(recording));
      EXPECT_EQ(rows_json(a.result), expected) << named;
      expect_contains(said, "recording in progress, up to 2.601s");
      expect_contains(result_json(a.result, a.source),
                      "\"recording_in_progress\":{\"up_to_ns\":2601000000,\"journal\":\"" +
                          as_json_text(live_journal_beside(recording)) + "\"}");
    }
  }
  // The writer is gone, the journal left: the trace is read (here a copy of
  // the example and its raw twin), with one warning, and the answer is not live.
  write_file(recording, read_file(trace));
  write_file(dir.file("rec.raw.zst"), read_file(std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.raw.zst"));
  std::string said;
  TraceSession session(recording, quiet(said));
  const Answer a = session.answer_once(q, compile_stack_filters(q));
  EXPECT_FALSE(a.source.live.has_value());
  EXPECT_EQ(rows_json(a.result), expected);
  expect_contains(said, live_journal_beside(recording) + ": left by a recording that did not finish");
}

}  // namespace
}  // namespace heapql::test

namespace heapql::test {
namespace {

#ifndef _WIN32
TEST(LiveJournal, InARecipesRunALinkedJournalIsRefusedNotFollowed) {
  TempDir dir;
  const std::string recording = dir.file("rec.zst");
  const std::string elsewhere = dir.file("elsewhere.zst");
  TraceStore built;
  TraceStore::Builder builder(built);
  LiveJournalWriter writer(elsewhere, built.tables(), SourceInfo{}, builder, &builder.sums_so_far());
  fs::create_symlink(live_journal_beside(elsewhere), live_journal_beside(recording));
  Query q;
  q.by = {GroupBy::kStack};
  std::string said;
  OpenOptions options = quiet(said);
  {
    TraceSession session(recording, options);  // followed, as other files beside a trace are
    EXPECT_TRUE(session.answer_once(q, compile_stack_filters(q)).source.live.has_value());
  }
  options.confined = true;
  TraceSession confined(recording, options);
  try {
    confined.answer_once(q, compile_stack_filters(q));
    ADD_FAILURE() << "a linked journal was followed in a recipe's run";
  } catch (const Error& e) {
    expect_contains(e.what(), live_journal_beside(recording));
  }
}
#endif

}  // namespace
}  // namespace heapql::test
