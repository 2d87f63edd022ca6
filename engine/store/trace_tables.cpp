#include "engine/store/trace_tables.h"

#include <fmt/format.h>

#include <unordered_set>

#include "engine/error.h"

namespace heapql {

namespace {
std::size_t mix(std::size_t seed, std::uint64_t v) {
  return seed ^ (v * 0x9E3779B97F4A7C15ull + 0x7F4A7C15u + (seed << 6) + (seed >> 2));
}

// Throws unless a table of `count` entries has an id for each.
template <class IdT>
void check_ids_fit(std::size_t count, std::string_view what) {
  if (count >= IdT::kInvalidValue) throw Error(fmt::format("too many {} for 32-bit ids", what));
}

template <class IdT, class Vec>
IdT next_id(const Vec& table, std::string_view what) {
  check_ids_fit<IdT>(table.size(), what);
  return IdT(static_cast<std::uint32_t>(table.size()));
}

// Appends without looking for an equal entry (the load_ and add_ functions).
template <class IdT, class Vec, class T>
IdT append(Vec& table, const T& value, std::string_view what) {
  const IdT id = next_id<IdT>(table, what);
  table.push_back(value);
  return id;
}
}  // namespace

std::string_view block_kind_name(BlockKind kind) { return kind == BlockKind::kHeap ? "heap" : "virtual"; }

TraceTables::TraceTables() { unknown_module_ = intern_string("?"); }

TraceTables::TraceTables(const TraceTables& other)
    : frames_(other.frames_),
      frame_ids_(other.frame_ids_),
      frames_indexed_(other.frames_indexed_),
      stacks_(other.stacks_),
      stack_ids_(other.stack_ids_),
      stacks_indexed_(other.stacks_indexed_),
      buckets_indexed_(other.buckets_indexed_),
      processes_(other.processes_),
      heaps_(other.heaps_),
      buckets_(other.buckets_),
      bucket_ids_(other.bucket_ids_),
      stacks_with_buckets_(other.stacks_with_buckets_),
      unknown_module_(other.unknown_module_) {
  // Every string keeps its id (a crafted store may repeat one); the index is
  // built on the next intern_string.
  for (std::string_view text : other.strings_) strings_.push_back(store_string(text));
}

TraceTables& TraceTables::operator=(const TraceTables& other) {
  if (this != &other) *this = TraceTables(other);
  return *this;
}

StringId TraceTables::load_string(std::string_view text) { return append<StringId>(strings_, text, "strings"); }

FrameId TraceTables::load_frame(const Frame& frame) { return append<FrameId>(frames_, frame, "frames"); }

std::string_view TraceTables::store_string(std::string_view text) {
  const std::string& stored = string_storage_.emplace_back(text);
  string_storage_bytes_ += stored.capacity() + sizeof(std::string);
  return stored;
}

StringId TraceTables::intern_string(std::string_view text) {
  for (; strings_indexed_ < strings_.size(); ++strings_indexed_) {
    string_ids_.emplace(strings_[strings_indexed_], StringId(static_cast<std::uint32_t>(strings_indexed_)));
  }
  if (auto it = string_ids_.find(text); it != string_ids_.end()) return it->second;
  const StringId id = next_id<StringId>(strings_, "strings");
  std::string_view stored = store_string(text);
  strings_.push_back(stored);
  string_ids_.emplace(stored, id);
  ++strings_indexed_;
  return id;
}

std::size_t TraceTables::FrameKeyHash::operator()(const FrameKey& k) const noexcept {
  return mix(mix(k.module, k.symbol), k.address);
}

FrameId TraceTables::intern_frame(StringId module, StringId symbol, std::uint64_t address) {
  for (; frames_indexed_ < frames_.size(); ++frames_indexed_) {
    const Frame& f = frames_[frames_indexed_];
    frame_ids_.emplace(FrameKey{f.module.value, f.symbol.value, f.address}, FrameId(static_cast<std::uint32_t>(frames_indexed_)));
  }
  const FrameKey key{module.value, symbol.value, symbol.valid() ? 0 : address};
  if (auto it = frame_ids_.find(key); it != frame_ids_.end()) return it->second;
  const FrameId id = next_id<FrameId>(frames_, "frames");
  frames_.push_back(Frame{module, symbol, symbol.valid() ? 0 : address});
  frame_ids_.emplace(key, id);
  ++frames_indexed_;
  return id;
}

std::string TraceTables::frame_text(FrameId id) const {
  const Frame& f = frames_[id.index()];
  if (f.symbol.valid()) return fmt::format("{}!{}", string(f.module), string(f.symbol));
  return fmt::format("{}!0x{:x}", string(f.module), f.address);
}

void TraceTables::view_stacks(std::span<const StackNode> nodes) {
  check_ids_fit<StackId>(nodes.size(), "stack nodes");
  stacks_.view(nodes);
}

void TraceTables::view_buckets(std::span<const Bucket> buckets) {
  check_ids_fit<BucketId>(buckets.size(), "buckets");
  buckets_.view(buckets);
}

void TraceTables::view_stack_chunk(std::span<const StackNode> nodes) {
  check_ids_fit<StackId>(stacks_.size() + nodes.size(), "stack nodes");
  stacks_.view_chunk(nodes);
}

void TraceTables::view_bucket_chunk(std::span<const Bucket> buckets) {
  check_ids_fit<BucketId>(buckets_.size() + buckets.size(), "buckets");
  buckets_.view_chunk(buckets);
}

void TraceTables::load_stacks(std::span<const StackNode> nodes) {
  check_ids_fit<StackId>(stacks_.size() + nodes.size(), "stack nodes");
  for (const StackNode& node : nodes) stacks_.push_back(node);
}

void TraceTables::load_buckets(std::span<const Bucket> buckets) {
  check_ids_fit<BucketId>(buckets_.size() + buckets.size(), "buckets");
  for (const Bucket& bucket : buckets) buckets_.push_back(bucket);
}

StackId TraceTables::intern_stack_looked_up(FrameId frame, StackId parent) {
  for (; stacks_indexed_ < stacks_.size(); ++stacks_indexed_) {
    stack_ids_.add(stacks_, static_cast<std::uint32_t>(stacks_indexed_));
  }
  if (const StackId found = stack_ids_.find(stacks_, frame, parent); found.valid()) return found;
  next_id<StackId>(stacks_, "stack nodes");  // throws when the id would not fit
  return append_stack(frame, parent);
}

void TraceTables::release_indexes() {
  string_ids_ = {};
  strings_indexed_ = 0;
  frame_ids_ = {};
  frames_indexed_ = 0;
  stack_ids_ = StackNodeIndex();
  stacks_indexed_ = 0;
  bucket_ids_ = FlatIndex(kBucketIndexMostFull);
  stacks_with_buckets_ = IdBits();
  buckets_indexed_ = 0;
}

void TraceTables::stack_frames(StackId id, std::vector<FrameId>& out) const {
  out.clear();
  for (StackId at = id; at.valid(); at = stacks_[at.index()].parent) out.push_back(stacks_[at.index()].frame);
}

ProcessId TraceTables::intern_process(std::uint64_t pid, std::string_view name) {
  const StringId name_id = intern_string(name);
  for (std::size_t i = 0; i < processes_.size(); ++i) {
    if (processes_[i].pid == pid && processes_[i].name == name_id) return ProcessId(static_cast<std::uint32_t>(i));
  }
  const ProcessId id = next_id<ProcessId>(processes_, "processes");
  processes_.push_back(Process{pid, name_id});
  return id;
}

ProcessId TraceTables::add_process(const Process& process) { return append<ProcessId>(processes_, process, "processes"); }

HeapId TraceTables::add_heap(const Heap& heap) { return append<HeapId>(heaps_, heap, "heaps"); }

HeapId TraceTables::intern_heap(ProcessId process, std::uint64_t handle, std::string_view name) {
  for (std::size_t i = 0; i < heaps_.size(); ++i) {
    if (heaps_[i].process == process && heaps_[i].handle == handle) return HeapId(static_cast<std::uint32_t>(i));
  }
  const HeapId id = next_id<HeapId>(heaps_, "heaps");
  heaps_.push_back(Heap{process, handle, intern_string(name)});
  return id;
}

std::uint64_t TraceTables::bucket_hash(const Bucket& b) {
  std::size_t h = mix(b.size, b.stack.value);
  h = mix(h, b.heap.value);
  h = mix(h, (std::uint64_t{b.thread} << 16) | (std::uint64_t(b.kind) << 1) | (b.is_realloc ? 1u : 0u));
  return FlatIndex::mix(h);
}

void TraceTables::index_bucket(std::uint32_t id, std::uint64_t hash) {
  bucket_ids_.insert(hash, id, [&](std::uint32_t stored) { return bucket_hash(buckets_[stored]); });
  if (const StackId stack = buckets_[id].stack; stack.valid()) stacks_with_buckets_.set(stack.value);
}

BucketId TraceTables::intern_bucket(const Bucket& bucket) {
  for (; buckets_indexed_ < buckets_.size(); ++buckets_indexed_) {
    index_bucket(static_cast<std::uint32_t>(buckets_indexed_), bucket_hash(buckets_[buckets_indexed_]));
  }
  const std::uint64_t hash = bucket_hash(bucket);
  if (may_be_interned(bucket)) {
    const std::uint32_t found = bucket_ids_.find(hash, [&](std::uint32_t id) { return buckets_[id] == bucket; });
    if (found != FlatIndex::kAbsent) return BucketId(found);
  }
  const BucketId id = next_id<BucketId>(buckets_, "buckets");
  buckets_.push_back(bucket);
  index_bucket(id.value, hash);
  ++buckets_indexed_;
  return id;
}

std::size_t TraceTables::module_count() const {
  std::unordered_set<std::uint32_t> modules;
  for (const Frame& f : frames_) modules.insert(f.module.value);
  return modules.size();
}

std::size_t TraceTables::memory_bytes() const {
  // Vectors at capacity plus a rough per-entry cost of the hash indexes
  // (node + bucket pointer); good enough for a budget, not an allocator audit.
  constexpr std::size_t kHashEntry = 32;
  std::size_t bytes = 0;
  bytes += string_storage_bytes_;
  bytes += strings_.capacity() * sizeof(std::string_view) + string_ids_.size() * (kHashEntry + 16);
  bytes += frames_.capacity() * sizeof(Frame) + frame_ids_.size() * (kHashEntry + sizeof(FrameKey));
  bytes += stacks_.memory_bytes() + stack_ids_.memory_bytes();
  bytes += buckets_.memory_bytes() + bucket_ids_.memory_bytes() + stacks_with_buckets_.memory_bytes();
  bytes += processes_.capacity() * sizeof(Process) + heaps_.capacity() * sizeof(Heap);
  return bytes;
}

}  // namespace heapql
