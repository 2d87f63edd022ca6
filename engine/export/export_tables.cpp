#include "engine/export/export_tables.h"

#include <array>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/query/aggregator.h"
#include "engine/query/summary.h"
#include "engine/units.h"

namespace heapql {

namespace {

using Cell = ExportCell;

std::int64_t as_int(std::uint64_t v) { return static_cast<std::int64_t>(v); }
Cell id_or_null(std::uint32_t value, bool valid) { return valid ? Cell(std::int64_t{value}) : Cell(); }

void export_trace(const TraceStore& store, TableSink& sink) {
  Aggregator aggregator(store.tables(), summary_query());
  aggregator.answer_from(store);
  store.check_tables();  // summarize() reads every bucket
  const TraceSummary s = summarize(store.tables(), store.source(), aggregator.result(store.source()));
  const SourceInfo& src = store.source();
  static constexpr std::array<ExportColumn, 21> kColumns = {{
      {"path", true}, {"source", true}, {"format", true}, {"block_identity", true}, {"blocks", false},
      {"frees", false}, {"duration_ns", false}, {"total_allocated_bytes", false}, {"leaked_bytes", false},
      {"leaked_blocks", false}, {"peak_bytes", false}, {"peak_blocks", false}, {"peak_ns", false},
      {"temporary_blocks", false}, {"unique_stacks", false}, {"stack_nodes", false}, {"frames", false},
      {"modules", false}, {"double_frees", false}, {"unmatched_frees", false}, {"cut", false}}};
  sink.begin_table("trace", kColumns);
  const std::string identity(block_identity_name(src.block_identity));
  const std::array<Cell, 21> row = {
      src.path, src.source, src.format, identity, as_int(s.blocks), as_int(s.frees), src.end_ns,
      as_int(s.total_allocated_bytes), as_int(s.leaked_bytes), as_int(s.leaked_blocks), as_int(s.peak.bytes),
      as_int(s.peak.blocks), s.peak.time_ns, as_int(s.temporary), as_int(s.unique_stacks), as_int(s.stack_nodes),
      as_int(s.unique_frames), as_int(s.unique_modules), as_int(src.anomalies.double_frees),
      as_int(src.anomalies.unmatched_frees), std::int64_t{src.cut ? 1 : 0}};
  sink.row(row);
  sink.end_table({});
}

// Modules are the strings frames name as their module, numbered by first use.
void export_frames(const TraceTables& t, TableSink& sink) {
  std::unordered_map<std::uint32_t, std::int64_t> module_ids;
  std::vector<std::uint32_t> modules;
  for (std::size_t i = 0; i < t.frame_count(); ++i) {
    const StringId module = t.frame(FrameId(static_cast<std::uint32_t>(i))).module;
    if (module_ids.emplace(module.value, static_cast<std::int64_t>(modules.size())).second) {
      modules.push_back(module.value);
    }
  }
  static constexpr std::array<ExportColumn, 2> kModules = {{{"module_id", false}, {"name", true}}};
  sink.begin_table("modules", kModules);
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const std::array<Cell, 2> row = {static_cast<std::int64_t>(i), t.string(StringId(modules[i]))};
    sink.row(row);
  }
  sink.end_table({});

  static constexpr std::array<ExportColumn, 5> kFrames = {
      {{"frame_id", false}, {"module_id", false}, {"symbol", true}, {"address", false}, {"text", true}}};
  sink.begin_table("frames", kFrames);
  for (std::size_t i = 0; i < t.frame_count(); ++i) {
    const FrameId id(static_cast<std::uint32_t>(i));
    const Frame& f = t.frame(id);
    const std::string text = t.frame_text(id);
    const std::array<Cell, 5> row = {static_cast<std::int64_t>(i), module_ids.at(f.module.value),
                                     f.symbol.valid() ? Cell(t.string(f.symbol)) : Cell(),
                                     f.symbol.valid() ? Cell() : Cell(as_int(f.address)), std::string_view(text)};
    sink.row(row);
  }
  sink.end_table({});
}

void export_stacks(const TraceTables& t, TableSink& sink) {
  static constexpr std::array<ExportColumn, 3> kNodes = {{{"stack_id", false}, {"frame_id", false}, {"parent_id", false}}};
  sink.begin_table("stack_nodes", kNodes);
  for (std::size_t i = 0; i < t.stack_count(); ++i) {
    const StackNode& n = t.stack(StackId(static_cast<std::uint32_t>(i)));
    const std::array<Cell, 3> row = {static_cast<std::int64_t>(i), std::int64_t{n.frame.value},
                                     id_or_null(n.parent.value, n.parent.valid())};
    sink.row(row);
  }
  const std::array<std::string_view, 1> node_index = {"parent_id"};
  sink.end_table(node_index);

  // Every allocating stack with its frames as rows, top (depth 0) first.
  static constexpr std::array<ExportColumn, 3> kFrames = {{{"stack_id", false}, {"depth", false}, {"frame_id", false}}};
  sink.begin_table("stack_frames", kFrames);
  std::vector<bool> done(t.stack_count(), false);
  std::vector<FrameId> frames;
  for (std::size_t b = 0; b < t.bucket_count(); ++b) {
    const StackId stack = t.bucket(BucketId(static_cast<std::uint32_t>(b))).stack;
    if (!stack.valid() || done[stack.index()]) continue;
    done[stack.index()] = true;
    t.stack_frames(stack, frames);
    for (std::size_t depth = 0; depth < frames.size(); ++depth) {
      const std::array<Cell, 3> row = {std::int64_t{stack.value}, static_cast<std::int64_t>(depth),
                                       std::int64_t{frames[depth].value}};
      sink.row(row);
    }
  }
  const std::array<std::string_view, 2> frame_indexes = {"stack_id", "frame_id"};
  sink.end_table(frame_indexes);
}

// pid 0 is heapql's unknown process (a heaptrack file named without its
// pid, an event CSV's bare name or empty process): the source has no pid.
Cell pid_cell(std::uint64_t pid) { return pid == 0 ? Cell() : Cell(as_int(pid)); }

// Only a heap shown as its handle has one from the source. The others' are
// heapql's own: handle 0 for a heaptrack trace's one heap, an event CSV's
// default heap and ETW's VirtualAlloc pseudo heap, and the handles numbered
// down from 2^64-1 that an event CSV's named heaps get (docs/import.md).
bool handle_from_source(const TraceTables& tables, const Heap& heap) {
  return heap.handle != 0 && tables.string(heap.name) == format_hex_address(heap.handle);
}

// Blocks as the store replays them: a row when a block ends (freed, or alive
// at the end), with its bucket's facts beside it.
class BlockRows final : public EventConsumer {
 public:
  BlockRows(const TraceTables& tables, TableSink& sink) : tables_(tables), sink_(sink) {
    heap_handles_.reserve(tables.heap_count());
    for (std::size_t i = 0; i < tables.heap_count(); ++i) {
      const Heap& heap = tables.heap(HeapId(static_cast<std::uint32_t>(i)));
      heap_handles_.push_back(handle_from_source(tables, heap) ? Cell(as_int(heap.handle)) : Cell());
    }
  }
  void on_alloc(const LiveBlock&) override {}
  void on_free(const LiveBlock& block, std::uint64_t, std::int64_t free_ns, bool temporary) override {
    emit(block, free_ns, temporary);
  }
  void on_still_alive(const LiveBlock& block) override { emit(block, std::nullopt, false); }
  void on_finish(std::int64_t) override {}

 private:
  void emit(const LiveBlock& block, std::optional<std::int64_t> free_ns, bool temporary) {
    const Bucket& b = tables_.bucket(block.bucket);
    const ProcessId process = tables_.process_of(b);
    const std::array<Cell, 11> row = {
        std::int64_t{block.id.value},
        block.alloc_ns,
        free_ns ? Cell(*free_ns) : Cell(),
        as_int(b.size),
        id_or_null(b.stack.value, b.stack.valid()),
        process.valid() ? pid_cell(tables_.process(process).pid) : Cell(),
        b.heap.valid() ? heap_handles_[b.heap.index()] : Cell(),
        std::int64_t{b.thread},
        block_kind_name(b.kind),
        std::int64_t{b.is_realloc ? 1 : 0},
        std::int64_t{temporary ? 1 : 0}};
    sink_.row(row);
  }
  const TraceTables& tables_;
  TableSink& sink_;
  std::vector<Cell> heap_handles_;  // by heap index
};

void export_blocks(const TraceStore& store, TableSink& sink) {
  static constexpr std::array<ExportColumn, 11> kBlocks = {
      {{"block_id", false}, {"alloc_ns", false}, {"free_ns", false}, {"size", false}, {"stack_id", false},
       {"pid", false}, {"heap", false}, {"thread", false}, {"kind", true}, {"is_realloc", false},
       {"temporary", false}}};
  sink.begin_table("blocks", kBlocks);
  BlockRows rows(store.tables(), sink);
  store.replay(rows);
  const std::array<std::string_view, 2> indexes = {"stack_id", "alloc_ns"};
  sink.end_table(indexes);
}

}  // namespace

void export_tables(const TraceStore& store, TableSink& sink) {
  export_trace(store, sink);
  export_frames(store.tables(), sink);
  export_stacks(store.tables(), sink);
  export_blocks(store, sink);
  sink.commit();
}

}  // namespace heapql
