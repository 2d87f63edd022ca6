// The ETW reader on SYNTHETIC traces written by the test-only EtlWriter
// (etw-heap.md §3-§4): heap blocks, moving and in-place reallocs, heap
// destroy, page-exact VirtualAlloc commit lifetimes, stack walks and keys,
// modules, time order across buffers, clocks, pointer sizes, bad payloads.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "engine/error.h"
#include "engine/ingest/block_matcher.h"
#include "engine/ingest/open_trace.h"
#include "engine/query/aggregator.h"
#include "engine/report/reports.h"
#include "tests/support/etl_writer.h"
#include "tests/support/etw_scenarios.h"
#include "tests/support/source_details_lookup.h"
#include "tests/support/stack_texts.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::uint32_t kPid = 500, kTid = 501;
constexpr std::uint64_t kHeap = 0x2a0000;

struct Loaded {
  std::unique_ptr<TraceStore> store;
  // A number of the reader's "etw" details (docs/json.md), by path.
  std::uint64_t etw(std::string_view a, std::string_view b = {}) const {
    return b.empty() ? detail(store->source(), {"etw", a}).number : detail(store->source(), {"etw", a, b}).number;
  }
  const InfoValue& named(std::initializer_list<std::string_view> path) const { return detail(store->source(), path); }
};

Loaded load(EtlWriter& writer, const TempDir& dir, const std::string& name = "t.etl") {
  const std::string path = dir.file(name);
  writer.write(path);
  OpenOptions options;
  options.show_progress = false;
  return Loaded{load_trace(path, options)};
}

Result run(const Loaded& t, Query q) {
  q.default_cull = false;
  Aggregator aggregator(t.store->tables(), q);
  t.store->replay(aggregator);
  return aggregator.result(t.store->source());
}

Query totals() {
  Query q;
  q.by.clear();
  return q;
}


// Every block's bucket, in allocation order, by replaying the store.
struct BlockLog final : EventConsumer {
  struct Entry {
    BucketId bucket;
    std::int64_t alloc_ns = 0;
    std::int64_t free_ns = kNeverNs;
  };
  std::vector<Entry> blocks;
  void on_alloc(const LiveBlock& b) override { blocks.push_back({b.bucket, b.alloc_ns}); }
  void on_free(const LiveBlock& b, std::uint64_t, std::int64_t ns, bool) override { blocks[b.id.index()].free_ns = ns; }
  void on_still_alive(const LiveBlock&) override {}
  void on_finish(std::int64_t) override {}
};

BlockLog blocks_of(const Loaded& t) {
  BlockLog log;
  t.store->replay(log);
  return log;
}

void start_process(EtlWriter& w, std::uint32_t processor = 0) {
  ProcessInfo p;
  p.pid = kPid;
  p.image_file_name = "app.exe";
  w.process_start(processor, w.ticks_at_ns(0), p);
}

TEST(EtwReader, SyntheticSingleAllocationHasItsStackProcessHeapAndTimes) {
  TempDir dir;
  EtlWriter w;
  const SingleAllocTrace s = single_alloc_free(w);
  const Loaded t = load(w, dir);
  const TraceTables& tables = t.store->tables();
  ASSERT_EQ(t.store->block_count(), 1u);
  const BlockLog log = blocks_of(t);
  const Bucket& b = tables.bucket(log.blocks[0].bucket);
  EXPECT_EQ(b.size, s.size);
  EXPECT_EQ(b.kind, BlockKind::kHeap);
  EXPECT_FALSE(b.is_realloc);
  EXPECT_EQ(b.thread, s.tid);
  EXPECT_EQ(tables.string(tables.process(tables.process_of(b)).name), "single.exe");
  EXPECT_EQ(tables.process(tables.process_of(b)).pid, s.pid);
  EXPECT_EQ(tables.string(tables.heap(b.heap).name), "0x10000");
  EXPECT_EQ(stack_texts(tables, b.stack), std::vector<std::string>{"single.exe!0x1010"});
  EXPECT_EQ(log.blocks[0].alloc_ns, s.alloc_ns);
  EXPECT_EQ(log.blocks[0].free_ns, s.free_ns);
  const SourceInfo& source = t.store->source();
  EXPECT_EQ(source.source, "etw");
  EXPECT_EQ(source.block_identity, BlockIdentity::kExact);
  EXPECT_TRUE(source.realloc_marked);
  EXPECT_EQ(source.time_resolution_ns, 100);
  EXPECT_EQ(source.anomalies.total(), 0u);
  EXPECT_EQ(t.etw("events_by_hook", "0x1021"), 1u);
  EXPECT_EQ(t.etw("events_by_hook", "0x1820"), 1u);
  EXPECT_EQ(t.etw("stacks", "blocks_with_stack"), 1u);
  ASSERT_EQ(t.named({"processes"}).items.size(), 1u);
  EXPECT_EQ(t.named({"processes", "0", "name"}).text, "single.exe");
}

TEST(EtwReader, SyntheticThirtyTwoBitTraceReadsTheSame) {
  TempDir dir;
  EtlWriterOptions options;
  options.pointer_size = 4;
  EtlWriter w(options);
  const SingleAllocTrace s = single_alloc_free(w);
  const Loaded t = load(w, dir);
  const BlockLog log = blocks_of(t);
  ASSERT_EQ(log.blocks.size(), 1u);
  const Bucket& b = t.store->tables().bucket(log.blocks[0].bucket);
  EXPECT_EQ(b.size, s.size);
  EXPECT_EQ(stack_texts(t.store->tables(), b.stack), std::vector<std::string>{"single.exe!0x1010"});
  EXPECT_EQ(t.etw("pointer_size"), 4u);
  EXPECT_EQ(t.etw("events_by_header_kind", "sys32"), 5u);  // logfile header, process, image, alloc, free
}

// ntdll logs a moving HeapReAlloc as HeapRealloc + HeapAlloc(new) + HeapFree(old),
// in an order nobody has checked: every order must count the block once.
TEST(EtwReader, SyntheticMovingReallocCountsTheNewBlockOnceInEveryOrder) {
  enum Order { kReallocFirst, kReallocLast, kReallocBetween };
  for (Order order : {kReallocFirst, kReallocLast, kReallocBetween}) {
    SCOPED_TRACE(order);
    TempDir dir;
    EtlWriter w;
    start_process(w);
    w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(1), kHeap, 10, 0x1000);
    const std::int64_t t = w.ticks_at_ms(2);
    auto realloc = [&] { w.heap_realloc(0, kTid, kPid, t, kHeap, 0x2000, 0x1000, 20, 10); };
    auto alloc = [&] { w.heap_alloc(0, kTid, kPid, t, kHeap, 20, 0x2000); };
    auto free = [&] { w.heap_free(0, kTid, kPid, t, kHeap, 0x1000); };
    if (order == kReallocFirst) realloc(), alloc(), free();
    if (order == kReallocLast) alloc(), free(), realloc();
    if (order == kReallocBetween) alloc(), realloc(), free();
    const Loaded loaded = load(w, dir);
    const Result r = run(loaded, totals());
    EXPECT_EQ(r.totals.stc, 2u);
    EXPECT_EQ(r.totals.st, 30u);
    EXPECT_EQ(r.totals.soc, 1u);
    EXPECT_EQ(r.totals.so, 20u);
    EXPECT_EQ(r.totals.src, 1u);
    EXPECT_EQ(loaded.store->source().anomalies.total(), 0u);
    EXPECT_EQ(loaded.etw("moving_reallocs"), 1u);
    EXPECT_EQ(loaded.etw("realloc_companions_dropped"), 2u);
    const BlockLog log = blocks_of(loaded);
    ASSERT_EQ(log.blocks.size(), 2u);
    EXPECT_EQ(log.blocks[0].free_ns, 2 * kMs);
    EXPECT_TRUE(loaded.store->tables().bucket(log.blocks[1].bucket).is_realloc);
  }
}

TEST(EtwReader, SyntheticInPlaceReallocEndsTheOldBlockAndStartsAMarkedOne) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(1), kHeap, 10, 0x1000);
  w.heap_realloc(0, kTid, kPid, w.ticks_at_ms(2), kHeap, 0x1000, 0x1000, 40, 10);
  const Loaded t = load(w, dir);
  const Result r = run(t, totals());
  EXPECT_EQ(r.totals.stc, 2u);
  EXPECT_EQ(r.totals.so, 40u);
  EXPECT_EQ(r.totals.src, 1u);
  EXPECT_EQ(t.etw("moving_reallocs"), 0u);
  EXPECT_EQ(t.store->source().anomalies.total(), 0u);
}

TEST(EtwReader, SyntheticHeapDestroyEndsEveryLiveBlockOfThatHeapOnly) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  w.heap_create(0, kTid, kPid, w.ticks_at_ms(1), kHeap);
  w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(2), kHeap, 100, 0x1000);
  w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(3), kHeap, 200, 0x2000);
  w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(3), kHeap + 0x10000, 7, 0x1000);  // same address, other heap
  w.heap_destroy(0, kTid, kPid, w.ticks_at_ms(4), kHeap);
  const Loaded t = load(w, dir);
  const Result r = run(t, totals());
  EXPECT_EQ(r.totals.so, 7u);
  EXPECT_EQ(r.totals.soc, 1u);
  EXPECT_EQ(t.store->source().anomalies.total(), 0u);
  const BlockLog log = blocks_of(t);
  EXPECT_EQ(log.blocks[0].free_ns, 4 * kMs);
  EXPECT_EQ(log.blocks[1].free_ns, 4 * kMs);
  EXPECT_EQ(log.blocks[2].free_ns, kNeverNs);
  ASSERT_EQ(t.named({"heaps"}).items.size(), 2u);
  EXPECT_TRUE(t.named({"heaps", "0", "created"}).flag);
  EXPECT_TRUE(t.named({"heaps", "0", "destroyed"}).flag);
  EXPECT_EQ(t.named({"heaps", "0", "allocations"}).number, 2u);
}

TEST(EtwReader, SyntheticDoubleFreeIsCountedApartFromAnUnknownAddress) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(1), kHeap, 64, 0x1000);
  w.heap_free(0, kTid, kPid, w.ticks_at_ms(2), kHeap, 0x1000);
  w.heap_free(0, kTid, kPid, w.ticks_at_ms(3), kHeap, 0x1000);  // a second free: a double free
  w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(4), kHeap, 64, 0x1000);
  w.heap_free(0, kTid, kPid, w.ticks_at_ms(5), kHeap, 0x1000);  // allocated again in between: normal
  w.heap_destroy(0, kTid, kPid, w.ticks_at_ms(6), kHeap);       // ends nothing: every block is freed
  const Loaded t = load(w, dir);
  EXPECT_EQ(t.store->source().anomalies.double_frees, 1u);
  EXPECT_EQ(t.store->source().anomalies.unmatched_frees, 0u);
  EXPECT_EQ(t.store->block_count(), 2u);
}

// docs/windows.md: a second HeapFree is a double free while the first is
// among the last BlockMatcher::kFreesRemembered frees, else an unmatched
// free; the reader keeps the live blocks' addresses and that many freed ones.
TEST(EtwReader, SyntheticDoubleFreeIsToldApartWithinTheBoundAndUnmatchedBeyondIt) {
  for (const std::uint64_t others : {std::uint64_t{BlockMatcher::kFreesRemembered - 1},
                                     std::uint64_t{BlockMatcher::kFreesRemembered}}) {
    SCOPED_TRACE(others);
    TempDir dir;
    EtlWriter w;
    start_process(w);
    w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(1), kHeap, 64, 0x10);
    w.heap_free(0, kTid, kPid, w.ticks_at_ms(1), kHeap, 0x10);
    for (std::uint64_t i = 0; i < others; ++i) {
      w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(2), kHeap, 64, 0x100000 + 16 * i);
      w.heap_free(0, kTid, kPid, w.ticks_at_ms(2), kHeap, 0x100000 + 16 * i);
    }
    w.heap_free(0, kTid, kPid, w.ticks_at_ms(3), kHeap, 0x10);
    const Loaded t = load(w, dir);
    const bool inside = others < BlockMatcher::kFreesRemembered;
    EXPECT_EQ(t.store->source().anomalies.double_frees, inside ? 1u : 0u);
    EXPECT_EQ(t.store->source().anomalies.unmatched_frees, inside ? 0u : 1u);
  }
}

TEST(EtwReader, SyntheticFreeAfterItsHeapWasDestroyedIsADoubleFree) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  w.heap_create(0, kTid, kPid, w.ticks_at_ms(1), kHeap);
  w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(2), kHeap, 100, 0x1000);
  w.heap_destroy(0, kTid, kPid, w.ticks_at_ms(3), kHeap);      // frees the block at 0x1000
  w.heap_free(0, kTid, kPid, w.ticks_at_ms(4), kHeap, 0x1000);  // freed again: a double free
  w.heap_free(0, kTid, kPid, w.ticks_at_ms(5), kHeap, 0x9000);  // never allocated: unknown
  w.heap_create(0, kTid, kPid, w.ticks_at_ms(6), kHeap);      // the handle reused
  w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(7), kHeap, 8, 0x1000);
  w.heap_free(0, kTid, kPid, w.ticks_at_ms(8), kHeap, 0x1000);  // a normal free of the new block
  const Loaded t = load(w, dir);
  EXPECT_EQ(t.store->source().anomalies.double_frees, 1u);
  EXPECT_EQ(t.store->source().anomalies.unmatched_frees, 1u);
  EXPECT_EQ(t.store->block_count(), 2u);
  const BlockLog log = blocks_of(t);
  EXPECT_EQ(log.blocks[0].free_ns, 3 * kMs);
  EXPECT_EQ(log.blocks[1].free_ns, 8 * kMs);
}

// No real heap .etl is public to show which header kinds Windows writes heap
// and VirtualAlloc events in: FULL_HEADER and EVENT_HEADER records that name
// the provider by GUID read as the classic events do (etw-heap.md §3.1).
TEST(EtwReader, SyntheticHeapEventsNamedByProviderGuidReadAsClassicOnes) {
  TempDir dir;
  auto answer = [&](ProviderHeader header, const std::string& name) {
    EtlWriterOptions options;
    options.heap_events = header;
    const std::string path = dir.file(name);
    write_memory_test_app(path, options);
    OpenOptions open;
    open.show_progress = false;
    const auto store = load_trace(path, open);
    Query by_stack;
    by_stack.by = {GroupBy::kStack};
    by_stack.default_cull = false;
    Aggregator heap(store->tables(), by_stack);
    store->replay(heap);
    Query virtual_commits = by_stack;
    virtual_commits.kinds = {BlockKind::kVirtual};
    Aggregator commits(store->tables(), virtual_commits);
    store->replay(commits);
    SourceInfo source = store->source();
    source.path = "t.etl";
    return result_csv(heap.result(source)) + result_csv(commits.result(source));
  };
  const std::string classic = answer(ProviderHeader::kClassic, "classic.etl");
  EXPECT_NE(classic.find("MemoryTestApp.exe"), std::string::npos) << classic;
  EXPECT_EQ(answer(ProviderHeader::kFull, "full.etl"), classic);
  EXPECT_EQ(answer(ProviderHeader::kEventHeader, "evh.etl"), classic);
}

TEST(EtwReader, SyntheticFreeOfAnUnknownBlockIsCountedNotFatal) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  w.heap_free(0, kTid, kPid, w.ticks_at_ms(1), kHeap, 0xdead0);
  const Loaded t = load(w, dir);
  EXPECT_EQ(t.store->source().anomalies.unmatched_frees, 1u);
  EXPECT_EQ(t.store->block_count(), 0u);
}

// A partial decommit splits a committed range page-exactly: the decommitted
// pages end there, the rest lives on with the commit's time and stack.
TEST(EtwReader, SyntheticPartialDecommitSplitsTheCommittedRange) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  w.virtual_alloc(0, kTid, kPid, w.ticks_at_ms(1), 0x10000, 0x4000, kPid, kMemCommit | kMemReserve);
  w.virtual_free(0, kTid, kPid, w.ticks_at_ms(2), 0x11000, 0x1000, kPid, kMemDecommit);
  w.virtual_free(0, kTid, kPid, w.ticks_at_ms(3), 0x10000, 0, kPid, kMemRelease);  // the whole region
  const Loaded t = load(w, dir);
  const BlockLog log = blocks_of(t);
  ASSERT_EQ(log.blocks.size(), 3u);
  const TraceTables& tables = t.store->tables();
  std::uint64_t total = 0;
  for (const auto& b : log.blocks) {
    const Bucket& bucket = tables.bucket(b.bucket);
    EXPECT_EQ(bucket.kind, BlockKind::kVirtual);
    EXPECT_EQ(tables.string(tables.heap(bucket.heap).name), "VirtualAlloc");
    EXPECT_EQ(b.alloc_ns, 1 * kMs);
    total += bucket.size;
  }
  EXPECT_EQ(total, 0x4000u);
  // In address order: [0x10000, 0x11000) and [0x12000, 0x14000) end at the
  // release; [0x11000, 0x12000) at the decommit.
  EXPECT_EQ(tables.bucket(log.blocks[0].bucket).size, 0x1000u);
  EXPECT_EQ(log.blocks[0].free_ns, 3 * kMs);
  EXPECT_EQ(tables.bucket(log.blocks[1].bucket).size, 0x1000u);
  EXPECT_EQ(log.blocks[1].free_ns, 2 * kMs);
  EXPECT_EQ(tables.bucket(log.blocks[2].bucket).size, 0x2000u);
  EXPECT_EQ(log.blocks[2].free_ns, 3 * kMs);
  EXPECT_EQ(t.store->source().anomalies.total(), 0u);

  Query middle;
  middle.window = TimeWindow{kMs + kMs / 2, 2 * kMs + kMs / 2};
  middle.by = {GroupBy::kImpacting};
  const Result r = run(t, middle);
  EXPECT_EQ(r.totals.impacting, -0x1000);
}

TEST(EtwReader, SyntheticRecommitCountsOnlyNewlyCommittedPages) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  w.virtual_alloc(0, kTid, kPid, w.ticks_at_ms(1), 0x10000, 0x2000, kPid);
  w.virtual_alloc(0, kTid, kPid, w.ticks_at_ms(2), 0x11000, 0x2000, kPid);  // one page already committed
  const Loaded t = load(w, dir);
  const Result r = run(t, totals());
  EXPECT_EQ(r.totals.st, 0x3000u);
  EXPECT_EQ(t.etw("recommitted_bytes"), 0x1000u);
}

// Buffers are written per processor as they fill, so the file is not in time
// order; blocks are built after merging every buffer's events by time.
TEST(EtwReader, SyntheticEventsOfDifferentBuffersAreMergedByTime) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  w.heap_alloc(1, kTid, kPid, w.ticks_at_ms(1), kHeap, 64, 0x1000);  // processor 1's buffer: last in the file
  w.heap_free(0, kTid, kPid, w.ticks_at_ms(2), kHeap, 0x1000);      // processor 0's buffer: first
  const Loaded t = load(w, dir);
  EXPECT_EQ(t.store->source().anomalies.total(), 0u);
  const BlockLog log = blocks_of(t);
  ASSERT_EQ(log.blocks.size(), 1u);
  EXPECT_EQ(log.blocks[0].free_ns, 2 * kMs);
}

TEST(EtwReader, SyntheticClockTypesConvertToNanoseconds) {
  for (std::uint32_t clock : {1u, 2u, 3u}) {
    SCOPED_TRACE(clock);
    TempDir dir;
    EtlWriterOptions options;
    options.clock_type = clock;
    options.perf_freq = 3'579'545;
    EtlWriter w(options);
    start_process(w);
    w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(250), kHeap, 1, 0x1000);
    const Loaded t = load(w, dir);
    const BlockLog log = blocks_of(t);
    ASSERT_EQ(log.blocks.size(), 1u);
    EXPECT_NEAR(static_cast<double>(log.blocks[0].alloc_ns), 250.0 * kMs, 1000.0);
  }
}

TEST(EtwReader, SyntheticFramesAreModuleOffsetsOrUnknownOutsideModules) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  const std::uint64_t base = 0x7ff6'0000'0000;
  w.image_load(0, w.ticks_at_ms(0), ImageInfo{base, 0x10000, kPid, 0, 0, 0, u"\\Device\\X\\Program\\app.exe"});
  const std::int64_t t1 = w.ticks_at_ms(1);
  w.heap_alloc(0, kTid, kPid, t1, kHeap, 8, 0x1000);
  const std::uint64_t frames[] = {base + 0x1a2b, 0x1234'5678, base + 0x10};
  w.stack_walk(0, t1, kPid, kTid, frames);
  w.image_unload(0, w.ticks_at_ms(2), ImageInfo{base, 0x10000, kPid, 0, 0, 0, u"\\Device\\X\\Program\\app.exe"});
  const std::int64_t t3 = w.ticks_at_ms(3);
  w.heap_alloc(0, kTid, kPid, t3, kHeap, 8, 0x2000);
  w.stack_walk(0, t3, kPid, kTid, frames);  // the module is gone now
  const Loaded t = load(w, dir);
  const BlockLog log = blocks_of(t);
  ASSERT_EQ(log.blocks.size(), 2u);
  const TraceTables& tables = t.store->tables();
  EXPECT_EQ(stack_texts(tables, tables.bucket(log.blocks[0].bucket).stack),
            (std::vector<std::string>{"app.exe!0x1a2b", "?!0x12345678", "app.exe!0x10"}));
  EXPECT_EQ(stack_texts(tables, tables.bucket(log.blocks[1].bucket).stack),
            (std::vector<std::string>{"?!0x7ff600001a2b", "?!0x12345678", "?!0x7ff600000010"}));
}

// Stack caching: events name a key; the key's frames come later (KeyDelete or
// KeyRundown), and a key deleted and reused names new frames after that.
TEST(EtwReader, SyntheticStackKeysResolveToTheirNextDefinition) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  const std::uint64_t base = 0x7ff6'0000'0000;
  w.image_load(0, w.ticks_at_ms(0), ImageInfo{base, 0x10000, kPid, 0, 0, 0, u"\\app.exe"});
  const std::uint64_t key = 0x4242;
  const std::uint64_t first[] = {base + 0x100}, second[] = {base + 0x200};
  const std::int64_t t1 = w.ticks_at_ms(1), t3 = w.ticks_at_ms(3);
  w.heap_alloc(0, kTid, kPid, t1, kHeap, 1, 0x1000);
  w.stack_key_user(0, t1, kPid, kTid, key);
  w.key_delete(0, w.ticks_at_ms(2), key, first);
  w.heap_alloc(0, kTid, kPid, t3, kHeap, 2, 0x2000);
  w.stack_key_user(0, t3, kPid, kTid, key);
  w.heap_alloc(0, kTid, kPid, w.ticks_at_ms(4), kHeap, 3, 0x3000);
  w.stack_key_user(0, w.ticks_at_ms(4), kPid, kTid, 0x9999);  // never defined
  w.key_rundown(0, w.ticks_at_ms(5), key, second);
  const Loaded t = load(w, dir);
  const TraceTables& tables = t.store->tables();
  const BlockLog log = blocks_of(t);
  ASSERT_EQ(log.blocks.size(), 3u);
  EXPECT_EQ(stack_texts(tables, tables.bucket(log.blocks[0].bucket).stack), std::vector<std::string>{"app.exe!0x100"});
  EXPECT_EQ(stack_texts(tables, tables.bucket(log.blocks[1].bucket).stack), std::vector<std::string>{"app.exe!0x200"});
  EXPECT_FALSE(tables.bucket(log.blocks[2].bucket).stack.valid());
  EXPECT_EQ(t.etw("stacks", "key_uses"), 3u);
  EXPECT_EQ(t.etw("stacks", "keys_unresolved"), 1u);
}

TEST(EtwReader, SyntheticKernelAndUserFragmentsJoinKernelFirst) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  const std::uint64_t app = 0x7ff6'0000'0000, kernel = 0xffff'f803'0000'0000;
  w.image_load(0, w.ticks_at_ms(0), ImageInfo{app, 0x10000, kPid, 0, 0, 0, u"\\app.exe"});
  w.image_dcstart(0, w.ticks_at_ms(0), ImageInfo{kernel, 0x100000, 0, 0, 0, 0, u"\\SystemRoot\\system32\\ntoskrnl.exe"});
  const std::int64_t t1 = w.ticks_at_ms(1);
  w.virtual_alloc(0, kTid, kPid, t1, 0x10000, 0x1000, kPid);
  const std::uint64_t user[] = {app + 0x30}, kernel_frames[] = {kernel + 0x500, kernel + 0x600};
  w.stack_walk(0, t1, kPid, kTid, user);  // user first: the reader still puts the kernel part on top
  w.stack_walk(0, t1, kPid, kTid, kernel_frames);
  const Loaded t = load(w, dir);
  const TraceTables& tables = t.store->tables();
  const BlockLog log = blocks_of(t);
  ASSERT_EQ(log.blocks.size(), 1u);
  EXPECT_EQ(stack_texts(tables, tables.bucket(log.blocks[0].bucket).stack),
            (std::vector<std::string>{"ntoskrnl.exe!0x500", "ntoskrnl.exe!0x600", "app.exe!0x30"}));
}

// `xperf -merge` output is ordinary input: buffers of several sessions, each
// with its logfile header, one after another. The first header is the time base.
TEST(EtwReader, SyntheticMergedSessionsReadAsOneTrace) {
  TempDir dir;
  const std::uint64_t base = 0x7ff6'0000'0000;
  EtlWriter kernel;  // the kernel session: process and image events
  start_process(kernel);
  kernel.image_load(0, kernel.ticks_at_ms(0), ImageInfo{base, 0x10000, kPid, 0, 0, 0, u"\\app.exe"});
  EtlWriter heap;  // the heap session, on the same clock
  const std::int64_t t1 = heap.ticks_at_ms(5);
  heap.heap_alloc(0, kTid, kPid, t1, kHeap, 24, 0x1000);
  const std::uint64_t frames[] = {base + 0x44};
  heap.stack_walk(0, t1, kPid, kTid, frames);
  std::vector<std::uint8_t> merged = kernel.bytes();
  const auto& second = heap.bytes();
  merged.insert(merged.end(), second.begin(), second.end());
  const std::string path = dir.file("merged.etl");
  write_file(path, std::string(merged.begin(), merged.end()));
  OpenOptions options;
  options.show_progress = false;
  const Loaded t{load_trace(path, options)};
  EXPECT_EQ(t.etw("logfile_headers"), 2u);
  const BlockLog log = blocks_of(t);
  ASSERT_EQ(log.blocks.size(), 1u);
  EXPECT_EQ(log.blocks[0].alloc_ns, 5 * kMs);
  const TraceTables& tables = t.store->tables();
  const Bucket& b = tables.bucket(log.blocks[0].bucket);
  EXPECT_EQ(stack_texts(tables, b.stack), std::vector<std::string>{"app.exe!0x44"});
  EXPECT_EQ(tables.string(tables.process(tables.process_of(b)).name), "app.exe");
}

TEST(EtwReader, SyntheticShortHeapPayloadIsAnErrorNamingFileAndBuffer) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  const std::vector<std::uint8_t> short_payload(10, 0);
  w.system(0, hook::kHeapAlloc, 2, kTid, kPid, w.ticks_at_ms(1), short_payload);
  const std::string path = dir.file("short.etl");
  w.write(path);
  OpenOptions options;
  options.show_progress = false;
  try {
    load_trace(path, options);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("HeapAlloc payload is 10 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("buffer at byte"), std::string::npos) << what;
  }
}

TEST(EtwReader, SyntheticUnknownKernelEventsAndProvidersAreSkippedAndCounted) {
  TempDir dir;
  EtlWriter w;
  start_process(w);
  const std::vector<std::uint8_t> payload(16, 0);
  w.system(0, 0x0F2E, 2, kTid, kPid, w.ticks_at_ms(1), payload);  // a sampled-profile event
  w.event_header(0, etl_guid("11111111-2222-3333-4444-555555555555"), 7, 0, 0, kTid, kPid, w.ticks_at_ms(1),
                 payload);
  const Loaded t = load(w, dir);
  EXPECT_EQ(t.etw("skipped", "kernel events of other kinds"), 1u);
  EXPECT_EQ(t.etw("skipped", "provider events"), 1u);
  EXPECT_EQ(t.etw("events_by_hook", "0x0f2e"), 1u);
  EXPECT_EQ(t.etw("events_by_hook", "11111111-2222-3333-4444-555555555555#7"), 1u);
}

}  // namespace
}  // namespace heapql::test
