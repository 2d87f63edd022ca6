// A synthetic trace for the micro-benchmarks: interned tables shaped like a
// real heaptrack trace (a stack tree with shared prefixes, allocator frames on
// top of some stacks, a few sizes per stack) and a deterministic stream of
// allocation and free events over them, as a block matcher would emit it.
// Everything is generated from a fixed seed, so runs compare.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/store/events.h"
#include "engine/store/source_info.h"
#include "engine/store/trace_store.h"
#include "engine/store/trace_tables.h"

namespace heapql::bench {

struct Shape {
  std::size_t leaf_stacks = 4000;     // distinct allocating stacks
  std::size_t sizes_per_stack = 3;    // buckets per stack
  std::size_t events = 1u << 20;      // allocation + free events
  std::size_t target_live = 50'000;   // blocks alive in the steady state
  std::size_t events_per_ms = 1000;   // clock resolution of the stream
  bool skewed = true;                 // a few hot buckets (else uniform: every bucket used)
};

struct Event {
  bool alloc = false;
  LiveBlock block;
  std::uint64_t free_seq = 0;  // frees only
  std::int64_t free_ns = 0;
  bool temporary = false;
};

struct SyntheticTrace {
  // The tables live in the store, so the same tables serve direct feeding
  // and replay (TraceTables holds views into itself and must not be copied).
  std::unique_ptr<TraceStore> store = std::make_unique<TraceStore>();
  std::vector<BucketId> buckets;
  std::vector<Event> events;            // in seq order
  std::vector<LiveBlock> still_alive;   // in allocation order
  std::int64_t end_ns = 0;
  SourceInfo source;

  const TraceTables& tables() const { return store->tables(); }

  // Feeds the whole stream, as a reader would, ending with on_finish.
  void feed(EventConsumer& consumer) const {
    for (const Event& e : events) {
      if (e.alloc) {
        consumer.on_alloc(e.block);
      } else {
        consumer.on_free(e.block, e.free_seq, e.free_ns, e.temporary);
      }
    }
    for (const LiveBlock& b : still_alive) consumer.on_still_alive(b);
    consumer.on_finish(end_ns);
  }
};

// Fills `tables` with a stack tree of `shape.leaf_stacks` allocating stacks
// and returns their buckets.
inline std::vector<BucketId> make_tables(TraceTables& tables, const Shape& shape, std::mt19937_64& rng) {
  const StringId python = tables.intern_string("python3.11");
  const StringId libc = tables.intern_string("libc.so.6");
  const StringId libstdcxx = tables.intern_string("libstdc++.so.6");
  const StringId app = tables.intern_string("libapp.so");
  const StringId modules[] = {python, python, python, app, app, libstdcxx, libc};

  // A pool of application functions, some unsymbolized.
  std::vector<FrameId> pool;
  for (std::size_t i = 0; i < 3000; ++i) {
    const StringId module = modules[i % std::size(modules)];
    if (i % 11 == 0) {
      pool.push_back(tables.intern_frame(module, StringId(), 0x400000 + i * 0x40));
    } else if (i % 3 == 0) {
      pool.push_back(tables.intern_frame(
          module, tables.intern_string(fmt::format("app::detail::Component{}::process<std::vector<int>>(int, char const*)", i)),
          0));
    } else {
      pool.push_back(tables.intern_frame(module, tables.intern_string(fmt::format("_PyEval_Function_{}", i)), 0));
    }
  }
  const FrameId operator_new = tables.intern_frame(libstdcxx, tables.intern_string("operator new(unsigned long)"), 0);
  const FrameId malloc_frame = tables.intern_frame(libc, tables.intern_string("malloc"), 0);

  // The trunk every stack shares, then a tree: each new path forks off a
  // random node already made and grows a few frames.
  StackId trunk = tables.intern_stack(tables.intern_frame(python, tables.intern_string("_start"), 0), StackId());
  trunk = tables.intern_stack(tables.intern_frame(libc, tables.intern_string("__libc_start_main"), 0), trunk);
  trunk = tables.intern_stack(tables.intern_frame(python, tables.intern_string("Py_BytesMain"), 0), trunk);
  // Nodes a new path may fork off, with their depth (kept here, so that the
  // generator needs nothing of StackNode but the interning).
  std::vector<std::pair<StackId, int>> inner{{trunk, 3}};
  std::vector<StackId> leaves;
  std::uniform_int_distribution<std::size_t> pick_frame(0, pool.size() - 1);
  std::uniform_int_distribution<int> grow(1, 6);
  while (leaves.size() < shape.leaf_stacks) {
    auto [at, depth] = inner[std::uniform_int_distribution<std::size_t>(0, inner.size() - 1)(rng)];
    for (int n = grow(rng); n > 0; --n) {
      at = tables.intern_stack(pool[pick_frame(rng)], at);
      if (++depth < 40) inner.emplace_back(at, depth);
    }
    // Allocator frames on top of about half the stacks, for the cull list.
    switch (rng() % 4) {
      case 0: at = tables.intern_stack(operator_new, at); break;
      case 1: at = tables.intern_stack(malloc_frame, tables.intern_stack(operator_new, at)); break;
      default: break;
    }
    leaves.push_back(at);
  }

  const ProcessId process = tables.intern_process(4242, "python3.11");
  const HeapId heap = tables.intern_heap(process, 0, "default");
  static constexpr std::uint64_t kSizes[] = {8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 4096, 65536};
  std::vector<BucketId> buckets;
  for (StackId leaf : leaves) {
    for (std::size_t s = 0; s < shape.sizes_per_stack; ++s) {
      const std::uint64_t size = kSizes[rng() % std::size(kSizes)] + s;
      buckets.push_back(tables.intern_bucket(Bucket{size, leaf, heap, 0, BlockKind::kHeap, false}));
    }
  }
  return buckets;
}

// A stream whose live set hovers around target_live: allocations from a
// skewed choice of buckets (a few hot ones, like real programs), frees of a
// random live block, and a share of frees that immediately follow their
// allocation (temporary blocks).
inline SyntheticTrace make_trace(const Shape& shape = {}) {
  SyntheticTrace t;
  std::mt19937_64 rng(0x4865617051ull);
  t.buckets = make_tables(t.store->tables(), shape, rng);

  std::vector<LiveBlock> live;
  live.reserve(shape.target_live * 2);
  std::uint32_t next_block = 0;
  const auto ns_of = [&](std::uint64_t seq) {
    return static_cast<std::int64_t>(seq / shape.events_per_ms) * 1'000'000;
  };
  // Hot buckets: a geometric-ish choice over the bucket list.
  std::geometric_distribution<std::size_t> hot(8.0 / static_cast<double>(t.buckets.size()));
  t.events.reserve(shape.events);
  for (std::uint64_t seq = 0; seq < shape.events; ++seq) {
    const bool want_free = !live.empty() && (live.size() >= shape.target_live * 2 ||
                                             rng() % (2 * shape.target_live) < live.size());
    const bool temporary_free = !t.events.empty() && t.events.back().alloc && rng() % 3 == 0;
    if (temporary_free || want_free) {
      std::size_t index = live.size() - 1;  // temporary: the block just allocated
      if (!temporary_free) {
        index = std::uniform_int_distribution<std::size_t>(0, live.size() - 1)(rng);
        std::swap(live[index], live.back());
      }
      const LiveBlock block = live.back();
      live.pop_back();
      t.events.push_back(Event{false, block, seq, ns_of(seq), block.alloc_seq + 1 == seq});
    } else {
      const std::size_t pick = shape.skewed ? hot(rng) : static_cast<std::size_t>(rng() % t.buckets.size());
      const BucketId bucket = t.buckets[std::min(pick, t.buckets.size() - 1)];
      const LiveBlock block{BlockId(next_block++), bucket, seq, ns_of(seq)};
      live.push_back(block);
      t.events.push_back(Event{true, block, 0, 0, false});
    }
  }
  std::sort(live.begin(), live.end(), [](const LiveBlock& a, const LiveBlock& b) { return a.id < b.id; });
  t.still_alive = std::move(live);
  t.end_ns = ns_of(shape.events);

  TraceStore::Builder builder(*t.store);
  t.feed(builder);
  return t;
}

// A consumer that only counts, to measure a producer alone.
class CountingConsumer final : public EventConsumer {
 public:
  void on_alloc(const LiveBlock& b) override { sum_ += b.bucket.value; }
  void on_free(const LiveBlock& b, std::uint64_t seq, std::int64_t, bool temporary) override {
    sum_ += b.id.value + seq + (temporary ? 1 : 0);
  }
  void on_still_alive(const LiveBlock& b) override { sum_ += b.id.value; }
  void on_finish(std::int64_t end_ns) override { sum_ += static_cast<std::uint64_t>(end_ns); }
  std::uint64_t sum() const { return sum_; }

 private:
  std::uint64_t sum_ = 0;
};

}  // namespace heapql::bench
