// A trace written as code, for unit tests: stacks from frame strings, then a
// script of clock ticks, allocations and frees. run() answers a query three
// times - straight off the event stream, one event at a time and in runs (as
// the heaptrack reader delivers bucket events), and replayed from a
// TraceStore - and fails the test if they differ, so every semantics test
// also checks that all paths agree.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/result.h"
#include "engine/ingest/block_matcher.h"
#include "engine/store/source_info.h"
#include "engine/store/trace_store.h"
#include "engine/store/trace_tables.h"

namespace heapql::test {

struct BlockSpec {
  std::uint64_t size = 0;
  StackId stack;
  bool is_realloc = false;
  std::uint32_t thread = 0;
  BlockKind kind = BlockKind::kHeap;
  std::uint64_t pid = 1;
  std::string process = "app";
  std::uint64_t heap = 0;
};

class ScriptedTrace {
 public:
  explicit ScriptedTrace(BlockIdentity identity = BlockIdentity::kExact);

  // Frames top first, each "module!symbol" (or "module!0x1f" for an unknown symbol).
  StackId stack(std::initializer_list<std::string> frames_top_first);

  void at_ms(std::int64_t ms) { ops_.push_back(Op{Op::kTime, ms * 1'000'000, 0, {}}); }
  void at_ns(std::int64_t ns) { ops_.push_back(Op{Op::kTime, ns, 0, {}}); }
  // kExact: the block is known by `address`; kBucketLifo: address is ignored.
  void alloc(std::uint64_t address, const BlockSpec& spec);
  void alloc(std::uint64_t address, std::uint64_t size, StackId stack);
  void free(std::uint64_t address, std::uint32_t thread = 0);
  // kBucketLifo: frees a block of the bucket of (size, stack).
  void free_bucket(std::uint64_t size, StackId stack);

  Result run(const Query& query);
  // The trace as a store in memory (what run() replays), for what reads a
  // store itself (the drill-down).
  void fill_store(TraceStore& store, CheckpointRule checkpoints = {}) const;
  SourceInfo& source() { return source_; }
  TraceTables& tables() { return tables_; }

 private:
  struct Op {
    enum Kind { kTime, kAlloc, kFree, kFreeBucket } kind;
    std::int64_t value;  // ns for kTime; address for alloc/free
    std::uint32_t thread;
    BucketId bucket;
  };
  BucketId bucket_of(const BlockSpec& spec);
  enum class Delivery { kOneByOne, kRuns };
  void play(EventConsumer& consumer, Delivery delivery) const;

  BlockIdentity identity_;
  TraceTables tables_;
  SourceInfo source_;
  std::vector<Op> ops_;
};

// "module!symbol" strings of a stack key, for assertions.
std::vector<std::string> frames(const Row& row, std::size_t level = 0);
// The row whose key (all levels rendered as text, stacks as their top frame) equals `key`.
const Row* find_row(const Result& result, const std::vector<std::string>& key);

}  // namespace heapql::test
