// The reading thread's cost per line: a heaptrack file held in memory, as
// plain text, split and decoded by HeaptrackLinePipeline while this thread
// only takes the batches. Two shapes: mostly `+ k` / `- k` lines (a program
// with few allocating stacks, like the compile bench trace), and one with a
// `t` or `a` record for every few events (many stacks, like walk).
// Reported as items_per_second = lines per second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>

#include "engine/ingest/heaptrack_line_pipeline.h"

namespace heapql::bench {
namespace {

std::string make_text(unsigned records_per_100_lines, std::uint64_t& lines) {
  std::mt19937_64 rng(3);
  std::string text = "v 10000 3\nX prog\n";
  lines = 2;
  std::uint32_t traces = 1, infos = 0;
  char line[64];
  for (int i = 0; i < 2'000'000; ++i) {
    const unsigned pick = static_cast<unsigned>(rng() % 100);
    int n = 0;
    if (pick < records_per_100_lines || infos == 0) {
      if (pick % 4 == 0 || infos == 0) {
        n = std::snprintf(line, sizeof line, "a %llx %x\n", static_cast<unsigned long long>(rng() % 4096 + 1),
                          static_cast<unsigned>(rng() % traces));
        ++infos;
      } else {
        n = std::snprintf(line, sizeof line, "t %x %x\n", static_cast<unsigned>(rng() % 5000 + 1),
                          static_cast<unsigned>(rng() % traces));
        ++traces;
      }
    } else {
      n = std::snprintf(line, sizeof line, "%c %x\n", pick % 2 ? '+' : '-', static_cast<unsigned>(rng() % infos));
    }
    text.append(line, static_cast<std::size_t>(n));
    ++lines;
  }
  return text;
}

void split_lines(benchmark::State& state, unsigned records_per_100_lines) {
  std::uint64_t lines = 0;
  const std::string text = make_text(records_per_100_lines, lines);
  for (auto _ : state) {
    HeaptrackLinePipeline pipeline("bench.txt", text);
    std::uint64_t codes = 0;
    while (const HeaptrackLinePipeline::Batch* batch = pipeline.next()) codes += batch->codes.size();
    benchmark::DoNotOptimize(codes);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * lines));
}

void BM_LinePipelineMostlyEvents(benchmark::State& state) { split_lines(state, 2); }
BENCHMARK(BM_LinePipelineMostlyEvents)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LinePipelineManyRecords(benchmark::State& state) { split_lines(state, 25); }
BENCHMARK(BM_LinePipelineManyRecords)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace heapql::bench
