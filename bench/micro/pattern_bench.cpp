// Frame pattern matching: the built-in cull list and single patterns of each
// form against many frames shaped like real ones (C and C++ symbols,
// unsymbolized addresses, Linux and Windows modules). A query matches each
// unique frame once (StackPlan memoizes), so this bounds the per-frame cost;
// BM_StackPlanCulled measures the memoized walk over a whole stack tree.
// items_per_second = frames (or stack nodes) per second.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench/micro/synthetic_trace.h"
#include "engine/query/cull_list.h"
#include "engine/query/frame_pattern.h"
#include "engine/query/stack_plan.h"

namespace heapql::bench {
namespace {

struct FrameText {
  std::string module;
  std::string symbol;
};

const std::vector<FrameText>& frames() {
  static const std::vector<FrameText> all = [] {
    std::vector<FrameText> out;
    std::mt19937_64 rng(0xF4A3E5ull);
    const char* modules[] = {"python3.11", "libc.so.6", "libstdc++.so.6", "libapp.so", "ntdll.dll",
                             "ucrtbase.dll", "kernelbase.dll", "app.exe", "?"};
    const char* allocator_symbols[] = {"malloc", "operator new(unsigned long)", "realloc", "calloc",
                                       "RtlAllocateHeap", "RtlpAllocateHeapInternal", "_malloc_base"};
    for (std::size_t i = 0; i < 20'000; ++i) {
      FrameText f;
      f.module = modules[rng() % std::size(modules)];
      switch (rng() % 10) {
        case 0: f.symbol = allocator_symbols[rng() % std::size(allocator_symbols)]; break;
        case 1:
        case 2: f.symbol = fmt::format("0x{:x}", 0x400000 + rng() % 0x1000000); break;
        case 3:
        case 4:
        case 5:
          f.symbol = fmt::format(
              "std::vector<app::Item{}, std::allocator<app::Item{}> >::_M_realloc_insert<app::Item{} const&>"
              "(__gnu_cxx::__normal_iterator<app::Item{}*, std::vector<app::Item{}> >, app::Item{} const&)",
              i, i, i, i, i, i);
          break;
        default: f.symbol = fmt::format("_PyEval_EvalFrame_{}", i); break;
      }
      out.push_back(std::move(f));
    }
    return out;
  }();
  return all;
}

void match_all(benchmark::State& state, const FramePatternSet& set) {
  const std::vector<FrameText>& all = frames();
  std::size_t hits = 0;
  for (auto _ : state) {
    for (const FrameText& f : all) hits += set.matches(f.module, f.symbol) ? 1 : 0;
    benchmark::DoNotOptimize(hits);
  }
  state.counters["match_share"] =
      static_cast<double>(hits) / static_cast<double>(state.iterations() * all.size());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(all.size()));
}

FramePatternSet one(std::string_view text) {
  FramePatternSet set;
  set.add(FramePattern::parse(text));
  return set;
}

void BM_DefaultCullList(benchmark::State& state) { match_all(state, default_cull_patterns()); }
BENCHMARK(BM_DefaultCullList);

void BM_PatternExactSymbol(benchmark::State& state) { match_all(state, one("malloc")); }
BENCHMARK(BM_PatternExactSymbol);

void BM_PatternModuleOnly(benchmark::State& state) { match_all(state, one("libc.so.6!")); }
BENCHMARK(BM_PatternModuleOnly);

void BM_PatternModuleAndSymbol(benchmark::State& state) { match_all(state, one("python3.11!_PyEval_*")); }
BENCHMARK(BM_PatternModuleAndSymbol);

void BM_PatternGlobMiddle(benchmark::State& state) { match_all(state, one("*vector*_M_realloc_insert*Item1?*")); }
BENCHMARK(BM_PatternGlobMiddle);

// Compiling the built-in list, as every query does once.
void BM_ParseDefaultCullList(benchmark::State& state) {
  const std::vector<std::string>& texts = default_cull_pattern_texts();
  for (auto _ : state) {
    FramePatternSet set;
    for (const std::string& text : texts) set.add(FramePattern::parse(text));
    benchmark::DoNotOptimize(set.size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(texts.size()));
}
BENCHMARK(BM_ParseDefaultCullList);

// The culled form of every node of a stack tree with the default cull list:
// one pattern match per unique frame, one step per node.
void BM_StackPlanCulled(benchmark::State& state) {
  Shape shape;
  shape.leaf_stacks = static_cast<std::size_t>(state.range(0));
  shape.sizes_per_stack = 1;
  shape.events = 0;
  TraceStore store;
  std::mt19937_64 rng(7);
  make_tables(store.tables(), shape, rng);
  const TraceTables& tables = store.tables();
  for (auto _ : state) {
    StackPlan plan(tables, StackFilters{default_cull_patterns(), {}, {}, {}});
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < tables.stack_count(); ++i) {
      sum += plan.culled(StackId(static_cast<std::uint32_t>(i))).value;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.counters["nodes"] = static_cast<double>(tables.stack_count());
  state.counters["frames"] = static_cast<double>(tables.frame_count());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(tables.stack_count()));
}
BENCHMARK(BM_StackPlanCulled)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace heapql::bench
