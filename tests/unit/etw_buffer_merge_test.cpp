// The ETW reader merges every processor's buffers by time before it matches
// stack walks to their events (etw-heap.md §3.3, §3.4), so where a buffer lies
// in the file changes nothing. SYNTHETIC traces from the test-only EtlWriter,
// and the same bytes with their buffers reordered (etl_buffer_order.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/ingest/etl/etl_file.h"
#include "engine/ingest/open_trace.h"
#include "tests/support/etl_buffer_order.h"
#include "tests/support/etl_writer.h"
#include "tests/support/etw_scenarios.h"
#include "tests/support/source_details_lookup.h"
#include "tests/support/stack_texts.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

constexpr std::uint32_t kPid = 500, kTid = 501;
constexpr std::uint64_t kHeap = 0x2a0000;
constexpr std::uint64_t kBase = 0x7ff6'0000'0000;

void start_app(EtlWriter& w) {
  ProcessInfo p;
  p.pid = kPid;
  p.image_file_name = "app.exe";
  w.process_start(0, w.ticks_at_ns(0), p);
  w.image_load(0, w.ticks_at_ns(0), ImageInfo{kBase, 0x10000, kPid, 0, 0, 0, u"\\app.exe"});
}

// A StackWalk record stamped `record_ts`, later than the event it names
// (EtlWriter::stack_walk stamps a walk with its event's time).
void late_stack_walk(EtlWriter& w, std::uint32_t processor, std::int64_t record_ts, std::int64_t event_ts,
                     std::uint64_t frame) {
  std::vector<std::uint8_t> payload;
  auto put = [&](std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) payload.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  };
  put(static_cast<std::uint64_t>(event_ts), 8);
  put(kPid, 4);
  put(kTid, 4);
  put(frame, 8);
  w.perfinfo(processor, hook::kStackWalk, 2, record_ts, payload);
}

std::unique_ptr<TraceStore> load_bytes(const std::vector<std::uint8_t>& bytes, const TempDir& dir,
                                       const std::string& name) {
  const std::string path = dir.file(name);
  write_file(path, std::string(bytes.begin(), bytes.end()));
  OpenOptions options;
  options.show_progress = false;
  return load_trace(path, options);
}

// Each block's stack as text, in allocation order.
struct BlockStacks final : EventConsumer {
  const TraceTables* tables = nullptr;
  std::vector<std::vector<std::string>> stacks;
  void on_alloc(const LiveBlock& b) override { stacks.push_back(stack_texts(*tables, tables->bucket(b.bucket).stack)); }
  void on_free(const LiveBlock&, std::uint64_t, std::int64_t, bool) override {}
  void on_still_alive(const LiveBlock&) override {}
  void on_finish(std::int64_t) override {}
};

std::vector<std::vector<std::string>> block_stacks(const TraceStore& store) {
  BlockStacks log;
  log.tables = &store.tables();
  store.replay(log);
  return log.stacks;
}

std::uint64_t etw_number(const TraceStore& store, std::string_view a, std::string_view b = {}) {
  return b.empty() ? detail(store.source(), {"etw", a}).number : detail(store.source(), {"etw", a, b}).number;
}

// The thread moved between its heap event and the stack walk: the event is in
// processor 1's buffer, the walk in processor 0's, which the file holds first.
TEST(EtwBufferMerge, SyntheticStackWalkInAnEarlierBufferOfAnotherProcessorIsAttached) {
  TempDir dir;
  EtlWriter w;
  start_app(w);
  const std::int64_t t1 = w.ticks_at_ms(1), t2 = w.ticks_at_ms(2);
  w.heap_alloc(1, kTid, kPid, t1, kHeap, 16, 0x1000);
  const std::uint64_t first[] = {kBase + 0x10};
  w.stack_walk(0, t1, kPid, kTid, first);  // stamped with its event's time: the clock did not tick
  w.heap_alloc(1, kTid, kPid, t2, kHeap, 32, 0x2000);
  late_stack_walk(w, 0, t2 + 7, t2, kBase + 0x20);
  const std::vector<std::uint8_t> bytes = w.bytes();
  const std::vector<EtlBufferPlace> buffers = etl_buffers(bytes);
  ASSERT_EQ(buffers.size(), 3u);  // the header, processor 0's (the walks), processor 1's (the events)
  ASSERT_EQ(buffers[1].processor, 0u);
  ASSERT_EQ(buffers[2].processor, 1u);

  const auto store = load_bytes(bytes, dir, "moved.etl");
  EXPECT_EQ(block_stacks(*store),
            (std::vector<std::vector<std::string>>{{"app.exe!0x10"}, {"app.exe!0x20"}}));
  EXPECT_EQ(etw_number(*store, "stacks", "blocks_with_stack"), 2u);
  EXPECT_EQ(etw_number(*store, "stacks", "unattached"), 0u);
  EXPECT_EQ(etw_number(*store, "records_out_of_time_order"), 0u);
}

// The issue as reported: each of two allocations has its walk in the other
// processor's buffer. Read in file order, the first buffer's walk was lost
// and the second's attached, and swapping the two buffers swapped which
// (etw-heap.md §3.4). Merged by time, both attach in both orders.
TEST(EtwBufferMerge, SyntheticSwappingTwoBuffersChangesNoStack) {
  TempDir dir;
  EtlWriter w;
  start_app(w);
  const std::int64_t t1 = w.ticks_at_ms(1), t2 = w.ticks_at_ms(2);
  w.heap_alloc(0, kTid, kPid, t1, kHeap, 16, 0x1000);
  late_stack_walk(w, 1, t1 + 2, t1, kBase + 0x10);
  w.heap_alloc(1, kTid, kPid, t2, kHeap, 32, 0x2000);
  late_stack_walk(w, 0, t2 + 2, t2, kBase + 0x20);
  const std::vector<std::uint8_t> bytes = w.bytes();
  ASSERT_EQ(etl_buffers(bytes).size(), 3u);
  const std::vector<std::vector<std::string>> expected = {{"app.exe!0x10"}, {"app.exe!0x20"}};
  for (const std::vector<std::size_t>& order : {std::vector<std::size_t>{0, 1, 2}, std::vector<std::size_t>{0, 2, 1}}) {
    SCOPED_TRACE(order[1]);
    const auto store = load_bytes(reorder_etl_buffers(bytes, order), dir, "swapped.etl");
    EXPECT_EQ(block_stacks(*store), expected);
    EXPECT_EQ(etw_number(*store, "stacks", "unattached"), 0u);
  }
}

// Two events of one thread with the same timestamp on two processors: each
// walk goes to the event on its own processor (etw-heap.md §3.3).
TEST(EtwBufferMerge, SyntheticStackWalkPrefersTheEventOnItsOwnProcessor) {
  TempDir dir;
  EtlWriter w;
  start_app(w);
  const std::int64_t t1 = w.ticks_at_ms(1);
  w.heap_alloc(0, kTid, kPid, t1, kHeap, 16, 0x1000);
  w.heap_alloc(1, kTid, kPid, t1, kHeap, 32, 0x2000);
  late_stack_walk(w, 1, t1 + 3, t1, kBase + 0x22);
  late_stack_walk(w, 0, t1 + 5, t1, kBase + 0x11);
  const auto store = load_bytes(w.bytes(), dir, "same-time.etl");
  EXPECT_EQ(block_stacks(*store),
            (std::vector<std::vector<std::string>>{{"app.exe!0x11"}, {"app.exe!0x22"}}));
  EXPECT_EQ(etw_number(*store, "stacks", "blocks_with_stack"), 2u);
}

// A stack walk names an event time no event of its thread has: unattached,
// whether it is read before or after the records of that time.
TEST(EtwBufferMerge, SyntheticStackWalkWithoutItsEventIsCountedUnattached) {
  TempDir dir;
  EtlWriter w;
  start_app(w);
  const std::int64_t t1 = w.ticks_at_ms(1);
  w.heap_alloc(1, kTid, kPid, t1, kHeap, 16, 0x1000);
  const std::uint64_t frames[] = {kBase + 0x10};
  w.stack_walk(0, t1, kPid, kTid + 1, frames);  // another thread
  w.stack_walk(0, t1 + 1, kPid, kTid, frames);  // one tick off: waits for an event then, and expires
  const auto store = load_bytes(w.bytes(), dir, "unattached.etl");
  EXPECT_EQ(etw_number(*store, "stacks", "blocks_with_stack"), 0u);
  EXPECT_EQ(etw_number(*store, "stacks", "unattached"), 2u);
}

std::size_t write_migrating_thread(EtlWriter& w) {
  const MigratingThreadTrace trace = migrating_thread(w);
  EXPECT_GT(trace.walks_on_another_processor, trace.blocks / 3);
  return trace.blocks;
}

EtlWriterOptions small_buffers() {
  EtlWriterOptions options;
  options.buffer_size = 1024;
  return options;
}

// The same buffers in other orders (each processor's in its own order, the
// processors interleaved differently) give the same blocks and stacks.
TEST(EtwBufferMerge, SyntheticReorderedBuffersGiveTheSameStacks) {
  TempDir dir;
  EtlWriter w(small_buffers());
  const std::size_t blocks = write_migrating_thread(w);
  const std::vector<std::uint8_t> original = w.bytes();
  const std::vector<EtlBufferPlace> buffers = etl_buffers(original);
  ASSERT_GT(buffers.size(), 12u);

  const auto reference = load_bytes(original, dir, "original.etl");
  const auto stacks = block_stacks(*reference);
  ASSERT_EQ(stacks.size(), blocks);
  EXPECT_EQ(etw_number(*reference, "stacks", "blocks_with_stack"), blocks);
  EXPECT_EQ(etw_number(*reference, "stacks", "unattached"), 0u);

  std::mt19937 random(20261129);
  std::vector<std::vector<std::size_t>> orders = {
      interleave_etl_buffers(buffers, [](const std::vector<std::uint32_t>&) { return std::size_t{0}; }),
      interleave_etl_buffers(buffers, [](const std::vector<std::uint32_t>& left) { return left.size() - 1; })};
  for (int i = 0; i < 4; ++i) {
    orders.push_back(interleave_etl_buffers(buffers, [&](const std::vector<std::uint32_t>& left) {
      return std::uniform_int_distribution<std::size_t>(0, left.size() - 1)(random);
    }));
  }
  for (std::size_t i = 0; i < orders.size(); ++i) {
    SCOPED_TRACE(i);
    const auto store = load_bytes(reorder_etl_buffers(original, orders[i]), dir, "reordered.etl");
    EXPECT_EQ(block_stacks(*store), stacks);
    EXPECT_EQ(etw_number(*store, "stacks", "blocks_with_stack"), blocks);
    EXPECT_EQ(etw_number(*store, "records_out_of_time_order"), 0u);
    EXPECT_EQ(store->source().anomalies.total(), reference->source().anomalies.total());
  }
}

// A processor's buffers out of time order in the file (beyond what the merge
// assumes): the read goes on, and the records that come late are counted.
TEST(EtwBufferMerge, SyntheticProcessorBuffersOutOfTimeOrderAreCountedNotFatal) {
  TempDir dir;
  EtlWriter w(small_buffers());
  const std::size_t blocks = write_migrating_thread(w);
  const std::vector<std::uint8_t> original = w.bytes();
  const std::vector<EtlBufferPlace> buffers = etl_buffers(original);
  // Swap processor 0's first two data buffers.
  std::vector<std::size_t> order(buffers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<std::size_t> of_processor0;
  for (std::size_t i = 1; i < buffers.size(); ++i) {
    if (buffers[i].processor == 0) of_processor0.push_back(i);
  }
  ASSERT_GE(of_processor0.size(), 2u);
  std::swap(order[of_processor0[0]], order[of_processor0[1]]);

  const auto reference = load_bytes(original, dir, "original.etl");
  const auto store = load_bytes(reorder_etl_buffers(original, order), dir, "swapped.etl");
  EXPECT_EQ(store->block_count(), blocks);
  const std::uint64_t late = etw_number(*store, "records_out_of_time_order");
  EXPECT_GT(late, 0u);
  EXPECT_EQ(store->source().anomalies.decreasing_timestamps,
            reference->source().anomalies.decreasing_timestamps + late);
  EXPECT_EQ(store->source().lines, reference->source().lines);
}

// The container hands records over in time order whatever the buffer order,
// and each processor's records in their file order.
TEST(EtwBufferMerge, SyntheticContainerVisitsRecordsInTimeOrder) {
  EtlWriter w(small_buffers());
  write_migrating_thread(w);
  const std::vector<std::uint8_t> bytes = w.bytes();
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  EtlFile file("merge.etl", text);
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  std::uint64_t decreasing = 0, records = 0;
  std::map<std::uint32_t, std::pair<std::uint64_t, std::uint32_t>> last_place;  // processor -> (buffer, offset)
  file.read([&](const EtlRecord& r) {
    ++records;
    if (r.timestamp < last) ++decreasing;
    last = r.timestamp;
    const std::pair<std::uint64_t, std::uint32_t> place{r.buffer_offset, r.offset_in_buffer};
    auto [it, first] = last_place.try_emplace(r.processor, place);
    if (!first) {
      EXPECT_LT(it->second, place) << "processor " << r.processor;
      it->second = place;
    }
  });
  EXPECT_EQ(decreasing, 0u);
  EXPECT_EQ(records, w.record_count());
  EXPECT_EQ(file.stats().records, w.record_count());
  EXPECT_EQ(file.stats().records_out_of_time_order, 0u);
  EXPECT_EQ(file.stats().buffers, etl_buffers(bytes).size());
}

// One buffer per stream is held at once; a file that would make the merge
// hold more than its budget is refused with an error naming the buffer.
TEST(EtwBufferMerge, SyntheticMergeRefusesToHoldMoreThanItsBudget) {
  EtlWriter w(small_buffers());  // 1 KiB buffers on processors 0 and 1
  migrating_thread(w);
  const std::vector<std::uint8_t> bytes = w.bytes();
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  EtlReadOptions options;
  options.max_bytes_held = 4096;
  EtlFile fits("budget.etl", text);
  fits.read([](const EtlRecord&) {}, options);
  EXPECT_EQ(fits.stats().records, w.record_count());
  options.max_bytes_held = 1536;
  EtlFile over("budget.etl", text);
  try {
    over.read([](const EtlRecord&) {}, options);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("budget.etl"), std::string::npos) << what;
    EXPECT_NE(what.find("merging the buffers of 2 processor streams by time would hold 2048 bytes at once (expected "
                        "at most 1536)"),
              std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace heapql::test
