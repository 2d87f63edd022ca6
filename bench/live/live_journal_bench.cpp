// The live journal's costs (docs/store-format.md, "The live journal"), by
// hand: heapql_live_journal_bench --per-event FOLDER, then
// heapql_live_journal_bench TRACE FOLDER [HEAPQL]
//  0. --per-event: 30 M synthetic events (an allocation, then its free, in
//     1,000 buckets, a new time every 16 events) fed to a consumer that does
//     nothing, straight and through a LiveJournalWriter, alternately, three
//     times each: the writer's own cost per event;
//  1. the writer's cost: TRACE read into a store in memory with and without
//     a LiveJournalWriter between the reader and the builder, alternately,
//     twice each (per event, and the journal's size against the trace's);
//  2. with the writer still holding the journal (as a recorder would), a
//     query on it: read and answered in this process, from the journal's
//     store (its bucket sums, published by the writer) or from the same
//     events fed through the builder; and, given HEAPQL, `heapql
//     query FOLDER/live.zst --by stack --top 10` as another process.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "engine/ingest/open_trace.h"
#include "engine/query/aggregator.h"
#include "engine/query/query_plan.h"
#include "engine/session/live_journal.h"
#include "engine/store_file/live_journal_format.h"

namespace {

using namespace heapql;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

OpenOptions quiet() {
  OpenOptions options;
  options.show_progress = false;
  return options;
}

std::uint64_t by_stack_top10(const TraceStore& store) {
  Query q;
  q.by = {GroupBy::kStack};
  q.top = 10;
  Aggregator a(store.tables(), q, compile_stack_filters(q));
  a.answer_from(store);
  return a.result(store.source()).totals.stc;
}

class Nothing final : public EventConsumer {
 public:
  void on_alloc(const LiveBlock&) override {}
  void on_free(const LiveBlock&, std::uint64_t, std::int64_t, bool) override {}
  void on_still_alive(const LiveBlock&) override {}
  void on_finish(std::int64_t) override {}
};

double feed(EventConsumer& consumer, std::uint64_t events) {
  const auto start = Clock::now();
  for (std::uint64_t seq = 0; seq + 1 < events; seq += 2) {
    const LiveBlock block{BlockId(static_cast<std::uint32_t>(seq / 2)), BucketId(static_cast<std::uint32_t>(seq % 1000)),
                          seq, static_cast<std::int64_t>(seq / 16)};
    consumer.on_alloc(block);
    consumer.on_free(block, seq + 1, static_cast<std::int64_t>((seq + 1) / 16), false);
  }
  consumer.on_finish(static_cast<std::int64_t>(events / 16));
  return seconds_since(start);
}

int per_event(const std::string& folder) {
  constexpr std::uint64_t kEvents = 30'000'000;
  TraceTables tables;
  const StackId stack = tables.intern_stack(tables.intern_frame(tables.intern_string("m"), StringId(), 1), StackId());
  for (std::uint32_t b = 0; b < 1000; ++b) tables.intern_bucket(Bucket{b + 1, stack, HeapId(), 0, BlockKind::kHeap, false});
  double straight = 0, journaled = 0;
  for (int round = 0; round < 3; ++round) {
    Nothing nothing;
    const double a = feed(nothing, kEvents);
    LiveJournalWriter writer(folder + "/synthetic.zst", tables, SourceInfo{}, nothing, nullptr);
    const double b = feed(writer, kEvents);
    fmt::print("straight {:.3f} s, through the writer {:.3f} s ({} segments, {} bytes)\n", a, b, writer.segments(),
               writer.bytes_written());
    straight += a;
    journaled += b;
    writer.remove_journal();
  }
  fmt::print("the writer's cost: {:.2f} ns an event\n", (journaled - straight) / 3 / double(kEvents) * 1e9);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--per-event") {
    try {
      return per_event(argv[2]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: heapql_live_journal_bench TRACE FOLDER [HEAPQL]\n");
    return 2;
  }
  const std::string trace = argv[1];
  const std::string recording = std::string(argv[2]) + "/live.zst";
  const std::string journal = live_journal_beside(recording);
  try {
    double plain = 0, journaled = 0;
    std::uint64_t events = 0;
    for (int round = 0; round < 2; ++round) {
      {
        TraceStore built;
        TraceStore::Builder builder(built);
        const auto start = Clock::now();
        read_trace(trace, built.tables(), builder, quiet());
        const double s = seconds_since(start);
        plain += s;
        events = built.event_count();
        fmt::print("read into a store:                 {:.2f} s\n", s);
      }
      {
        TraceStore built;
        TraceStore::Builder builder(built);
        const auto start = Clock::now();
        LiveJournalWriter writer(recording, built.tables(), SourceInfo{}, builder, &builder.sums_so_far());
        read_trace(trace, built.tables(), writer, quiet());
        const double s = seconds_since(start);
        journaled += s;
        fmt::print("read into a store with a journal:  {:.2f} s ({} segments)\n", s, writer.segments());
      }
    }
    fmt::print("events {}; the journal's cost: {:.1f} ns an event ({:+.1f}%)\n", events,
               (journaled - plain) / 2 / double(events) * 1e9, (journaled / plain - 1) * 100);
    fmt::print("journal {} bytes, trace {} bytes: {:.2f}x\n", std::filesystem::file_size(journal),
               std::filesystem::file_size(trace),
               double(std::filesystem::file_size(journal)) / double(std::filesystem::file_size(trace)));

    // The recording still going: its writer holds the journal.
    TraceStore built;
    TraceStore::Builder builder(built);
    LiveJournalWriter writer(recording, built.tables(), SourceInfo{}, builder, &builder.sums_so_far());
    read_trace(trace, built.tables(), writer, quiet());
    writer.publish_now();
    for (int round = 0; round < 3; ++round) {
      auto start = Clock::now();
      store_file::LiveJournalRead read = store_file::read_live_journal(journal, true);
      const double read_s = seconds_since(start);
      start = Clock::now();
      const std::uint64_t blocks = by_stack_top10(*read.store);
      const double journal_s = seconds_since(start);
      start = Clock::now();
      const std::unique_ptr<TraceStore> rebuilt = store_file::rebuilt_through_builder(*read.store);
      const double build_s = seconds_since(start);
      start = Clock::now();
      by_stack_top10(*rebuilt);
      const double sums_s = seconds_since(start);
      fmt::print("journal read {:.3f} s; by stack from its store {:.3f} s (total {:.3f} s); fed through the "
                 "builder {:.3f} s + by stack {:.3f} s (total {:.3f} s); {} blocks\n",
                 read_s, journal_s, read_s + journal_s, build_s, sums_s, read_s + build_s + sums_s, blocks);
    }
    if (argc > 3) {
      const std::string command = fmt::format("'{}' query '{}' --by stack --top 10 > /dev/null", argv[3], recording);
      for (int round = 0; round < 3; ++round) {
        const auto start = Clock::now();
        const int status = std::system(command.c_str());
        fmt::print("heapql query --by stack --top 10 on the live journal: {:.3f} s (exit {})\n", seconds_since(start),
                   status);
      }
    }
    writer.remove_journal();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
