#include "tests/support/scripted_trace.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <span>
#include <vector>

#include "engine/query/aggregator.h"
#include "engine/query/default_culled_stacks.h"
#include "engine/query/whole_trace_views.h"
#include "engine/report/reports.h"
#include "engine/store/packed_stack_view.h"
#include "engine/store/stack_view_sink.h"
#include "engine/store/trace_store.h"

namespace heapql::test {

ScriptedTrace::ScriptedTrace(BlockIdentity identity) : identity_(identity) {
  source_.path = "scripted";
  source_.source = "test";
  source_.block_identity = identity;
  source_.realloc_marked = true;
}

StackId ScriptedTrace::stack(std::initializer_list<std::string> frames_top_first) {
  std::vector<std::string> frames(frames_top_first);
  StackId node;
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    const auto bang = it->find('!');
    const StringId module = tables_.intern_string(it->substr(0, bang));
    const std::string symbol = it->substr(bang + 1);
    FrameId frame;
    if (symbol.rfind("0x", 0) == 0) {
      frame = tables_.intern_frame(module, StringId(), std::stoull(symbol.substr(2), nullptr, 16));
    } else {
      frame = tables_.intern_frame(module, tables_.intern_string(symbol), 0);
    }
    node = tables_.intern_stack(frame, node);
  }
  return node;
}

BucketId ScriptedTrace::bucket_of(const BlockSpec& spec) {
  const ProcessId process = tables_.intern_process(spec.pid, spec.process);
  const HeapId heap = tables_.intern_heap(process, spec.heap, spec.heap == 0 ? "default" : "0x" + std::to_string(spec.heap));
  return tables_.intern_bucket(Bucket{spec.size, spec.stack, heap, spec.thread, spec.kind, spec.is_realloc});
}

void ScriptedTrace::alloc(std::uint64_t address, const BlockSpec& spec) {
  ops_.push_back(Op{Op::kAlloc, static_cast<std::int64_t>(address), spec.thread, bucket_of(spec)});
}

void ScriptedTrace::alloc(std::uint64_t address, std::uint64_t size, StackId stack) {
  BlockSpec spec;
  spec.size = size;
  spec.stack = stack;
  alloc(address, spec);
}

void ScriptedTrace::free(std::uint64_t address, std::uint32_t thread) {
  ops_.push_back(Op{Op::kFree, static_cast<std::int64_t>(address), thread, {}});
}

void ScriptedTrace::free_bucket(std::uint64_t size, StackId stack) {
  BlockSpec spec;
  spec.size = size;
  spec.stack = stack;
  ops_.push_back(Op{Op::kFreeBucket, 0, 0, bucket_of(spec)});
}

void ScriptedTrace::play(EventConsumer& consumer, Delivery delivery) const {
  BlockMatcher matcher(identity_, consumer);
  // Runs: bucket events of one thread between clock ticks go to the matcher
  // together, as the heaptrack reader passes them.
  const bool runs = delivery == Delivery::kRuns && matcher.counting();
  std::vector<std::uint32_t> run;
  std::uint32_t run_thread = 0;
  const auto flush = [&] {
    std::span<const std::uint32_t> rest(run);
    while (!rest.empty()) {
      // A refused free is skipped, as one delivered alone would be.
      const std::size_t applied = matcher.bucket_run(rest, run_thread);
      rest = rest.subspan(std::min(applied + 1, rest.size()));
    }
    run.clear();
  };
  for (const Op& op : ops_) {
    const bool bucket_event = op.kind == Op::kAlloc || op.kind == Op::kFreeBucket;
    if (runs && bucket_event) {
      if (!run.empty() && op.thread != run_thread) flush();
      run_thread = op.thread;
      run.push_back(op.bucket.value << 1 | (op.kind == Op::kFreeBucket ? 1u : 0u));
      continue;
    }
    flush();
    switch (op.kind) {
      case Op::kTime: matcher.set_time(op.value); break;
      case Op::kAlloc: matcher.alloc(op.bucket, static_cast<std::uint64_t>(op.value), op.thread); break;
      case Op::kFree: matcher.free_address(static_cast<std::uint64_t>(op.value), op.thread); break;
      case Op::kFreeBucket: matcher.free_bucket(op.bucket, op.thread); break;
    }
  }
  flush();
  matcher.finish();
}


Result ScriptedTrace::run(const Query& query) {
  Aggregator streaming(tables_, query);
  play(streaming, Delivery::kOneByOne);
  Result direct = streaming.result(source_);

  Aggregator streaming_runs(tables_, query);
  play(streaming_runs, Delivery::kRuns);
  const Result from_runs = streaming_runs.result(source_);

  TraceStore store;
  store.tables() = tables_;
  TraceStore::Builder builder(store);
  play(builder, Delivery::kOneByOne);
  Aggregator replayed(store.tables(), query);
  store.replay(replayed);
  const Result from_store = replayed.result(source_);
  // And as the store answers a query: from its stack view as a store file's
  // is made (its own query, or that query's rows split by impacting type),
  // from its sums, or from its events up to T2.
  PackedStackViewSink view_columns;  // as a store file's section holds it
  Aggregator::build_stack_view(
      store.tables(),
      [&](const std::function<void(std::span<const BucketSum>)>& chunk) { store.columns().bucket_sums.each_chunk(chunk); }, [] {},
      view_columns);
  store.attach_stack_view(view_columns.view(), [] {});
  Aggregator answered(store.tables(), query);
  answered.answer_from(store);
  const Result from_store_answer = answered.result(source_);
  // And from live checkpoints (one every other event, whatever their size),
  // which a windowed query starts from.
  TraceStore checkpointed;
  checkpointed.tables() = tables_;
  TraceStore::Builder checkpointing(checkpointed, CheckpointRule{2, true});
  play(checkpointing, Delivery::kOneByOne);
  Aggregator from_checkpoint(checkpointed.tables(), query);
  from_checkpoint.answer_from(checkpointed);
  const Result from_checkpoint_answer = from_checkpoint.result(source_);
  // And from what a session prepared for many queries keeps: the window
  // index and the whole-trace views (the queries they do not answer replay,
  // as above)
  // and each bucket's stack culled by default.
  const WindowIndex window_index(store.tables(), store.columns());
  const std::vector<StackId> default_culled = default_culled_stacks(store.tables());
  Aggregator indexed(store.tables(), query);
  indexed.use_default_culled(default_culled);
  const WholeTraceViews views(store, default_culled);
  indexed.answer_from(store, &window_index, &views);
  const Result from_window_index = indexed.result(source_);
  // All paths must agree to the byte in every report.
  const std::string direct_json = result_json(direct, source_);
  EXPECT_EQ(direct_json, result_json(from_runs, source_)) << "events one by one and in runs differ";
  EXPECT_EQ(direct_json, result_json(from_store, source_)) << "streaming and store replay differ";
  EXPECT_EQ(direct_json, result_json(from_store_answer, source_)) << "streaming and the store's answer differ";
  EXPECT_EQ(direct_json, result_json(from_checkpoint_answer, source_))
      << "streaming and the store's answer from live checkpoints differ";
  EXPECT_EQ(direct_json, result_json(from_window_index, source_))
      << "streaming and the store's answer from its window index differ";
  return direct;
}

void ScriptedTrace::fill_store(TraceStore& store, CheckpointRule checkpoints) const {
  store.tables() = tables_;
  TraceStore::Builder builder(store, checkpoints);
  play(builder, Delivery::kOneByOne);
}

std::vector<std::string> frames(const Row& row, std::size_t level) { return row.key.at(level).frames.to_vector(); }

const Row* find_row(const Result& result, const std::vector<std::string>& key) {
  for (const Row& row : result.rows) {
    std::vector<std::string> rendered;
    for (const KeyValue& k : row.key) {
      rendered.push_back(k.level == GroupBy::kStack ? (k.frames.empty() ? "" : k.frames.front()) : k.text);
    }
    if (rendered == key) return &row;
  }
  return nullptr;
}

}  // namespace heapql::test
