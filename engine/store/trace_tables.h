// The interned tables of a trace: strings, frames, the stack tree, processes,
// heaps and buckets. Everything per-block refers to these by strong ids, so
// work per unique stack or bucket is done once, not once per block.
// Knows nothing of file formats or queries.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/ids.h"
#include "engine/util/chunked_vector.h"
#include "engine/util/viewed_prefix_vector.h"
#include "engine/util/flat_index.h"
#include "engine/util/id_bits.h"
#include "engine/store/stack_node_index.h"

namespace heapql {

enum class BlockKind : std::uint8_t { kHeap, kVirtual };
std::string_view block_kind_name(BlockKind kind);

// A frame is module!symbol; where the symbol is unknown, module!0xADDRESS.
struct Frame {
  StringId module;  // always valid ("?" for an unknown module)
  StringId symbol;  // invalid when unknown
  std::uint64_t address = 0;  // offset from the module base, or absolute when no base is known
};

struct Process {
  std::uint64_t pid = 0;
  StringId name;
};

struct Heap {
  ProcessId process;
  std::uint64_t handle = 0;
  StringId name;  // how reports show it
};

// What every block of a bucket shares. Buckets make sizes and stacks cost
// 4 bytes per block instead of 16+. The process is the heap's (process_of):
// a one-shot query holds every bucket of the trace, so each byte counts.
struct Bucket {
  std::uint64_t size = 0;
  StackId stack;
  HeapId heap;
  std::uint32_t thread = 0;
  BlockKind kind = BlockKind::kHeap;
  bool is_realloc = false;

  friend bool operator==(const Bucket&, const Bucket&) = default;
};

class TraceTables {
 public:
  TraceTables();
  // Deep copies: the string index points into this object's own storage.
  TraceTables(const TraceTables& other);
  TraceTables& operator=(const TraceTables& other);
  TraceTables(TraceTables&&) noexcept = default;
  TraceTables& operator=(TraceTables&&) noexcept = default;

  StringId intern_string(std::string_view text);
  std::string_view string(StringId id) const { return strings_[id.index()]; }
  std::size_t string_count() const { return strings_.size(); }

  // Frames with a symbol are identified by (module, symbol): two return
  // addresses in one function are one frame. Frames without are identified
  // by (module, address).
  FrameId intern_frame(StringId module, StringId symbol, std::uint64_t address);
  const Frame& frame(FrameId id) const { return frames_[id.index()]; }
  std::size_t frame_count() const { return frames_.size(); }
  std::string frame_text(FrameId id) const;
  std::string_view frame_module(FrameId id) const { return string(frames_[id.index()].module); }

  StackId intern_stack(FrameId frame, StackId parent) {
    // Inline for a node surely new, a child of a node without any yet
    // (most of a stack tree): no lookup, and no call.
    if (stacks_indexed_ == stacks_.size() && stack_ids_.surely_absent(parent) &&
        stacks_.size() < StackId::kInvalidValue) [[likely]] {
      return append_stack(frame, parent);
    }
    return intern_stack_looked_up(frame, parent);
  }
  // Frees the interning indexes (strings, frames, stack nodes, buckets) once
  // a read is over: a query never interns, and the stack index alone is tens
  // of megabytes on a big trace. Interning later rebuilds them.
  void release_indexes();
  // For tables read back from a store, whose entries are distinct already:
  // all stack nodes or buckets at once, viewed in place (a store's mapping,
  // which must outlive the tables; copies of the tables copy them), without
  // indexing. The index is built on the next intern_stack (or
  // intern_bucket), if one ever comes: a query never interns. Only while
  // that table is empty.
  void view_stacks(std::span<const StackNode> nodes);
  void view_buckets(std::span<const Bucket> buckets);
  // The same a chunk at a time (a live journal's tables, whose rows lie in
  // many pieces), then the last rows copied (load_*): appended after what
  // is there, still without indexing.
  static constexpr std::size_t kStackChunkRows = ViewedPrefixVector<StackNode>::kChunkRows;
  static constexpr std::size_t kBucketChunkRows = ViewedPrefixVector<Bucket>::kChunkRows;
  void view_stack_chunk(std::span<const StackNode> nodes);
  void view_bucket_chunk(std::span<const Bucket> buckets);
  void load_stacks(std::span<const StackNode> nodes);
  void load_buckets(std::span<const Bucket> buckets);
  // The same for strings and frames. A loaded string is not copied: its
  // text must outlive the tables (a store's mapping, which its TraceStore
  // keeps; copies of the tables copy the text).
  StringId load_string(std::string_view text);
  FrameId load_frame(const Frame& frame);
  // Hints: intern_stack(frame, parent) / intern_bucket(bucket) comes soon.
  void prefetch_stack(FrameId frame, StackId parent) const { stack_ids_.prefetch(stacks_, frame, parent); }
  void prefetch_bucket(const Bucket& bucket) const {
    if (may_be_interned(bucket)) bucket_ids_.prefetch(bucket_hash(bucket));
  }
  const StackNode& stack(StackId id) const { return stacks_[id.index()]; }
  std::size_t stack_count() const { return stacks_.size(); }
  // Frames of a stack, top first, appended to `out` after clearing it.
  void stack_frames(StackId id, std::vector<FrameId>& out) const;

  ProcessId intern_process(std::uint64_t pid, std::string_view name);
  // Appends without looking for an equal entry: for tables read back from a
  // store, whose entries are distinct already (interning them is quadratic).
  ProcessId add_process(const Process& process);
  const Process& process(ProcessId id) const { return processes_[id.index()]; }
  std::size_t process_count() const { return processes_.size(); }

  HeapId intern_heap(ProcessId process, std::uint64_t handle, std::string_view name);
  HeapId add_heap(const Heap& heap);  // as add_process
  const Heap& heap(HeapId id) const { return heaps_[id.index()]; }
  std::size_t heap_count() const { return heaps_.size(); }

  BucketId intern_bucket(const Bucket& bucket);
  const Bucket& bucket(BucketId id) const { return buckets_[id.index()]; }
  ProcessId process_of(const Bucket& bucket) const {
    return bucket.heap.valid() ? heaps_[bucket.heap.index()].process : ProcessId();
  }
  std::size_t bucket_count() const { return buckets_.size(); }

  std::size_t module_count() const;  // distinct modules of all frames
  StringId unknown_module() const { return unknown_module_; }

  // Bytes held by the tables (for the memory budget in docs/).
  std::size_t memory_bytes() const;

 private:
  struct FrameKey {
    std::uint32_t module;
    std::uint32_t symbol;
    std::uint64_t address;
    friend bool operator==(const FrameKey&, const FrameKey&) = default;
  };
  struct FrameKeyHash {
    std::size_t operator()(const FrameKey& k) const noexcept;
  };
  static std::uint64_t bucket_hash(const Bucket& b);
  // False when `bucket` is new without a lookup: its stack has no bucket yet.
  bool may_be_interned(const Bucket& bucket) const {
    return !bucket.stack.valid() || stacks_with_buckets_.test(bucket.stack.value);
  }
  // Puts bucket `id` (whose hash is `hash`) in the index and its stack's bit.
  void index_bucket(std::uint32_t id, std::uint64_t hash);
  // intern_stack for a node that may be there already: through the index.
  StackId intern_stack_looked_up(FrameId frame, StackId parent);
  // Appends a new node and indexes it, with every node before it indexed
  // and its id known to fit.
  StackId append_stack(FrameId frame, StackId parent) {
    const StackId id(static_cast<std::uint32_t>(stacks_.size()));
    stacks_.push_back(StackNode{frame, parent});
    stack_ids_.add(stacks_, id.value);
    ++stacks_indexed_;
    return id;
  }

  // A copy of `text` the tables own; counted as it is added, since
  // memory_bytes() is asked often while a trace is read (summing millions of
  // strings each time was a twentieth of a read).
  std::string_view store_string(std::string_view text);
  std::deque<std::string> string_storage_;
  std::size_t string_storage_bytes_ = 0;
  std::vector<std::string_view> strings_;
  std::unordered_map<std::string_view, StringId> string_ids_;
  std::size_t strings_indexed_ = 0;  // strings_[0, this) are in string_ids_
  std::vector<Frame> frames_;
  std::unordered_map<FrameKey, FrameId, FrameKeyHash> frame_ids_;
  std::size_t frames_indexed_ = 0;
  ViewedPrefixVector<StackNode> stacks_;
  StackNodeIndex stack_ids_;
  std::size_t stacks_indexed_ = 0;   // stacks_[0, this) are in stack_ids_
  std::size_t buckets_indexed_ = 0;  // buckets_[0, this) are in bucket_ids_
  std::vector<Process> processes_;
  std::vector<Heap> heaps_;
  ViewedPrefixVector<Bucket> buckets_;
  // Buckets by content. Looked up only for a bucket whose stack has one
  // already (once per heaptrack allocation info; an ETW or CSV event's bucket
  // is mostly found, a short probe at any fill), so the index may fill up to
  // 3/4: compile's 723 K buckets take 4 MiB where half full took 8.
  static constexpr FlatIndex::MostFull kBucketIndexMostFull = FlatIndex::MostFull::kThreeQuarters;
  FlatIndex bucket_ids_{kBucketIndexMostFull};
  // The indexed buckets' stacks: a bucket of a stack that has none yet (the
  // usual case) is new without a lookup.
  IdBits stacks_with_buckets_;
  StringId unknown_module_;
};

}  // namespace heapql
