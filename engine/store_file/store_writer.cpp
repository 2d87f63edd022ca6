#include "engine/store_file/store_writer.h"

#ifdef _WIN32
#include <windows.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "engine/error.h"
#include "engine/store/packed_column_writer.h"
#include "engine/store/packed_stack_view.h"
#include "engine/store/packed_table.h"
#include "engine/store/stack_view_sink.h"
#include "engine/store/store_columns.h"
#include "engine/binary_file/checksum.h"
#include "engine/binary_file/output_file.h"
#include "engine/binary_file/scratch_column.h"
#include "engine/platform/positioned_io.h"
#include "engine/store/store_events.h"
#include "engine/store_file/store_format.h"

namespace heapql::store_file {

namespace {

// Test hook for the fault-injection tests: HEAPQL_STORE_KILL_AT=STEP kills the
// process just before that step: a section's name, "table of contents",
// "header" or "rename" (docs/store.md).
void maybe_killed_before(std::string_view step) {
  static const char* kill_at = std::getenv("HEAPQL_STORE_KILL_AT");
  if (kill_at == nullptr || step != kill_at) return;
#ifdef _WIN32
  ::TerminateProcess(::GetCurrentProcess(), 137);  // as Task Manager ends a process: no cleanup runs
#else
  std::raise(SIGKILL);
#endif
}

struct TocEntry {
  Section kind;
  std::uint32_t revision;  // 0 for facts
  std::uint64_t checksum;
  std::uint64_t offset, bytes, items;
};

// Test hook: HEAPQL_STORE_CHECKPOINT_EVENTS=N lists the live blocks every N
// events whatever their number, so that small traces have live checkpoints;
// and, for a store of events, makes their chunks the largest power of two
// at most N events, with live counts at every chunk.
CheckpointRule checkpoint_rule() {
  CheckpointRule rule;
  if (const char* every = std::getenv("HEAPQL_STORE_CHECKPOINT_EVENTS")) {
    rule.spacing = std::strtoull(every, nullptr, 10);
    rule.any_size = true;
  }
  return rule;
}

// Test hook: HEAPQL_STORE_BLOCK_COLUMNS=1 writes the block columns whatever
// the pairing, so that the tests of those sections can make them from any trace.
StoreBlockFacts block_facts(StoreBlockFacts asked) {
  const char* columns = std::getenv("HEAPQL_STORE_BLOCK_COLUMNS");
  return columns != nullptr && std::string_view(columns) == "1" ? StoreBlockFacts::kColumns : asked;
}

struct EventChunking {
  std::uint64_t chunk_events = kEventChunkEvents;
  std::uint64_t live_count_every = kLiveCountEveryChunks;
};
EventChunking event_chunking() {
  EventChunking chunking;
  if (const char* every = std::getenv("HEAPQL_STORE_CHECKPOINT_EVENTS")) {
    const std::uint64_t n = std::max<std::uint64_t>(1, std::strtoull(every, nullptr, 10));
    chunking.chunk_events = std::min<std::uint64_t>(std::bit_floor(n), kEventChunkEvents);
    chunking.live_count_every = 1;
  }
  return chunking;
}

// One section as it is written: its bytes go to the file, and into its
// checksum, as they come.
class SectionWriter {
 public:
  SectionWriter(OutputFile& out, TocEntry entry) : out_(out), entry_(entry) {}
  void put(const void* data, std::size_t n) {
    out_.write(std::string_view(static_cast<const char*>(data), n));
    checksum_.add(data, n);
  }
  TocEntry finish(std::uint64_t items) {
    entry_.checksum = checksum_.value();
    entry_.bytes = out_.size() - entry_.offset;
    entry_.items = items;
    return entry_;
  }

 private:
  OutputFile& out_;
  TocEntry entry_;
  Checksum checksum_;
};

// The bucket sums as a packed table of five columns (BucketSumColumn's order).
// Counts of blocks fit 32 bits (StoreColumns::kMaxBlocks).
std::vector<std::uint64_t> packed_bucket_sums(const BucketSumChunks& sums) {
  std::vector<std::vector<std::uint64_t>> words(kBucketSumColumns);
  std::vector<PackedColumnWriter<std::vector<std::uint64_t>>> columns;
  columns.reserve(kBucketSumColumns);  // writers keep their words' address
  for (auto& column_words : words) columns.emplace_back(column_words, 0);
  const auto u32 = [](std::uint64_t count) {
    if (count > StoreColumns::kMaxBlocks) throw Error("internal error: a bucket sum beyond the store's blocks");
    return static_cast<std::uint32_t>(count);
  };
  sums([&](std::span<const BucketSum> chunk) {
    for (const BucketSum& s : chunk) {
      columns[0].push_back(s.bucket), columns[1].push_back(s.live_at_peak), columns[2].push_back(u32(s.allocs));
      columns[3].push_back(u32(s.frees)), columns[4].push_back(u32(s.temporary_frees));
    }
  });
  for (auto& column : columns) column.finish();
  return packed_table(words);
}

std::string_view words_as_bytes(std::span<const std::uint64_t> words) {
  return {reinterpret_cast<const char*>(words.data()), words.size_bytes()};
}

}  // namespace

// A block column packed (packed_column.h) into a scratch file as it grows.
struct PackedScratch {
  PackedScratch(const std::string& folder, unsigned rotation) : words(folder), packer(words, rotation) {}
  void push_back(std::uint32_t value) { packer.push_back(value); }
  ScratchColumn<std::uint64_t> words;
  PackedColumnWriter<ScratchColumn<std::uint64_t>> packer;
};

// The reader's events on to the column builder, and as bucket runs to the
// events' chunks, with the live counts listed every few chunks (from the
// builder's counts, before the event at the list's start).
class EventsTee final : public EventConsumer {
 public:
  EventsTee(EventConsumer& builder, const BucketSumsSoFar& sums, StoreEventsWriter& events,
            StoreLiveCountsWriter& live_counts, EventChunking chunking)
      : builder_(builder), sums_(sums), events_(events), live_counts_(live_counts), chunking_(chunking) {}
  void on_alloc(const LiveBlock& block) override {
    before_event();
    builder_.on_alloc(block);
    events_.push(word(block.bucket, 0));
  }
  void on_free(const LiveBlock& block, std::uint64_t free_seq, std::int64_t free_ns, bool temporary) override {
    before_event();
    builder_.on_free(block, free_seq, free_ns, temporary);
    events_.push(word(block.bucket, 1));
  }
  void on_still_alive(const LiveBlock& block) override { builder_.on_still_alive(block); }
  void on_finish(std::int64_t end_ns) override {
    builder_.on_finish(end_ns);
    events_.finish();
  }
  void on_clock(std::int64_t ns) override { builder_.on_clock(ns); }
  void prefetch_bucket(BucketId bucket) const override { builder_.prefetch_bucket(bucket); }

 private:
  static std::uint32_t word(BucketId bucket, std::uint32_t free) {
    if (bucket.value >= 0x80000000u) throw Error("trace has more than 2^31 buckets, the store's events' limit");
    return bucket.value << 1 | free;
  }
  void before_event() {
    if (!events_.at_chunk_start() || events_.event_count() == 0 ||
        (events_.event_count() / chunking_.chunk_events) % chunking_.live_count_every != 0) {
      return;
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> live;
    for (std::size_t i = 0; i < sums_.buckets_allocated(); ++i) {
      const std::uint32_t bucket = sums_.bucket_allocated(i);
      const BucketSum sum = sums_.sum_now(bucket);
      if (sum.allocs > sum.frees) live.emplace_back(bucket, static_cast<std::uint32_t>(sum.allocs - sum.frees));
    }
    live_counts_.list(events_.event_count(), std::move(live));
  }
  EventConsumer& builder_;
  const BucketSumsSoFar& sums_;
  StoreEventsWriter& events_;
  StoreLiveCountsWriter& live_counts_;
  EventChunking chunking_;
};

struct StoreWriter::Columns {
  Columns(const std::string& folder, const TraceTables& tables, StoreBlockFacts facts)
      : bucket(folder, 0), alloc_seq(folder, 0), free_order(folder, StoreColumns::kFreeRotation), time_changes(folder),
        builder(tables, bucket, alloc_seq, free_order, time_changes, checkpoint_rule()), event_frames(folder),
        chunking(event_chunking()),
        events([this](std::span<const std::uint8_t> frame) { event_frames.append(frame); }, chunking.chunk_events),
        tee(builder, builder, events, live_counts, chunking), consumer(facts == StoreBlockFacts::kColumns
                                                                 ? static_cast<EventConsumer&>(builder)
                                                                 : static_cast<EventConsumer&>(tee)) {}
  PackedScratch bucket, alloc_seq, free_order;
  ScratchColumn<TimeChange> time_changes;
  ColumnBuilder<PackedScratch, ScratchColumn<TimeChange>> builder;
  ScratchColumn<std::uint8_t> event_frames;
  EventChunking chunking;
  StoreEventsWriter events;
  StoreLiveCountsWriter live_counts;
  EventsTee tee;
  EventConsumer& consumer;
};

StoreWriter::StoreWriter(std::string path, const TraceTables& tables, std::span<const Accelerator> accelerators,
                         StoreBlockFacts facts)
    : path_(std::move(path)), tables_(tables), facts_(block_facts(facts)) {
  for (const Accelerator& a : accelerators) {
    // It writes each at its one revision, this build's.
    if (std::find(kAccelerators.begin(), kAccelerators.end(), a) == kAccelerators.end()) {
      throw Error(fmt::format("internal error: the store writer has no '{}' of revision {}", section_name(a.kind),
                              a.revision));
    }
    accelerators_.push_back(a.kind);
  }
  try {
    columns_ = std::make_unique<Columns>(folder_of(path_), tables, facts_);
  } catch (const Error& e) {
    throw Error(SourceLocation::of_file(path_), "cannot write the store: " + e.message());
  }
}

StoreWriter::~StoreWriter() = default;

bool StoreWriter::writes(Section accelerator) const {
  return std::find(accelerators_.begin(), accelerators_.end(), accelerator) != accelerators_.end();
}

EventConsumer& StoreWriter::consumer() { return columns_->consumer; }
const BucketSumsSoFar& StoreWriter::sums_so_far() const { return columns_->builder; }

std::uint64_t StoreWriter::block_count() const { return columns_->builder.block_count(); }
std::uint64_t StoreWriter::free_count() const { return columns_->builder.event_count() - block_count(); }
std::uint64_t StoreWriter::column_bytes() const {
  if (wrote_events_) return columns_->events.head().size() + columns_->events.frame_bytes();
  return columns_->bucket.packer.bytes() + columns_->alloc_seq.packer.bytes() + columns_->free_order.packer.bytes();
}

std::uint64_t StoreWriter::commit(SourceRecord record, const StackViewMaker& make_view) {
  return commit([&record] { return std::move(record); }, make_view);
}

std::uint64_t StoreWriter::commit(const SourceRecordMaker& make_record, const StackViewMaker& make_view) {
  const TraceTables& tables = tables_;
  Columns& c = *columns_;
  // The events stand for the block columns when the reading paired each
  // free with its bucket's youngest live block (its record says so; asked
  // for first, then, as it is ready by now in such a reading).
  std::optional<SourceRecord> early_record;
  if (facts_ == StoreBlockFacts::kEventsWhenPaired) {
    early_record = make_record();
    wrote_events_ = early_record->info.block_identity == BlockIdentity::kBucketLifo;
  }
  c.events.finish();
  c.event_frames.flush();
  for (PackedScratch* packed : {&c.bucket, &c.alloc_seq, &c.free_order}) {
    packed->packer.finish();
    packed->words.flush();
  }
  c.time_changes.flush();

  OutputFile out(path_);
  std::vector<TocEntry> toc;
  out.write_zeros(kHeaderBytes);  // the header comes last
  auto align = [&] { out.write_zeros((kSectionAlignment - out.size() % kSectionAlignment) % kSectionAlignment); };
  auto begin_entry = [&](Section kind) {
    maybe_killed_before(section_name(kind));
    align();
    const auto accelerator = std::find_if(kAccelerators.begin(), kAccelerators.end(),
                                          [&](const Accelerator& a) { return a.kind == kind; });
    return TocEntry{kind, accelerator == kAccelerators.end() ? 0 : accelerator->revision, 0, out.size(), 0, 0};
  };
  auto begin_section = [&](Section kind) { return SectionWriter(out, begin_entry(kind)); };
  // A section written from pieces, checksummed as one.
  auto put_pieces = [&](Section kind, std::initializer_list<std::string_view> pieces, std::uint64_t items) {
    SectionWriter section = begin_section(kind);
    for (std::string_view piece : pieces) section.put(piece.data(), piece.size());
    toc.push_back(section.finish(items));
  };
  auto put_bytes = [&](Section kind, const std::string& bytes, std::uint64_t items) {
    put_pieces(kind, {bytes}, items);
  };
  // A table's section, encoded a row at a time and written a MiB at a time:
  // its bytes never sit in memory beside the table (tens of MB for the
  // stacks and buckets of a large trace, when ingest is near its peak).
  auto put_rows = [&](Section kind, std::size_t rows, const auto& encode_row) {
    constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
    SectionWriter section = begin_section(kind);
    ByteWriter w;
    const auto flush = [&] {
      section.put(w.bytes().data(), w.bytes().size());
      w.bytes().clear();
    };
    for (std::size_t i = 0; i < rows; ++i) {
      encode_row(w, i);
      if (w.bytes().size() >= kFlushBytes) flush();
    }
    flush();
    toc.push_back(section.finish(rows));
  };
  auto put_column = [&](Section kind, const auto& column, std::uint64_t item_bytes, std::uint64_t items) {
    // Copied from its scratch file, whose checksum was computed as it grew.
    TocEntry entry = begin_entry(kind);
    out.append_from(column.fd(), column.count() * item_bytes);
    entry.checksum = column.checksum();
    entry.bytes = column.count() * item_bytes;
    entry.items = items;
    toc.push_back(entry);
  };
  auto put_packed = [&](Section kind, const PackedScratch& packed) {
    put_column(kind, packed.words, 8, packed.packer.count());
  };

  {
    ByteWriter w;
    w.u64(tables.string_count());
    for (std::size_t i = 0; i < tables.string_count(); ++i) w.text(tables.string(StringId(static_cast<std::uint32_t>(i))));
    put_bytes(Section::kStrings, w.bytes(), tables.string_count());
  }
  put_rows(Section::kFrames, tables.frame_count(), [&](ByteWriter& w, std::size_t i) {
    const Frame& f = tables.frame(FrameId(static_cast<std::uint32_t>(i)));
    w.u32(f.module.value), w.u32(f.symbol.value), w.u64(f.address);
  });
  put_rows(Section::kStacks, tables.stack_count(), [&](ByteWriter& w, std::size_t i) {
    const StackNode& s = tables.stack(StackId(static_cast<std::uint32_t>(i)));
    w.u32(s.frame.value), w.u32(s.parent.value);
  });
  put_rows(Section::kProcesses, tables.process_count(), [&](ByteWriter& w, std::size_t i) {
    const Process& p = tables.process(ProcessId(static_cast<std::uint32_t>(i)));
    w.u64(p.pid), w.u32(p.name.value), w.u32(0);
  });
  put_rows(Section::kHeaps, tables.heap_count(), [&](ByteWriter& w, std::size_t i) {
    const Heap& h = tables.heap(HeapId(static_cast<std::uint32_t>(i)));
    w.u32(h.process.value), w.u32(h.name.value), w.u64(h.handle);
  });
  put_rows(Section::kBuckets, tables.bucket_count(), [&](ByteWriter& w, std::size_t i) {
    const Bucket& b = tables.bucket(BucketId(static_cast<std::uint32_t>(i)));
    w.u64(b.size), w.u32(b.stack.value), w.u32(b.heap.value), w.u32(b.thread);
    w.u8(static_cast<std::uint8_t>(b.kind)), w.u8(b.is_realloc ? 1 : 0), w.u16(0);
  });
  if (wrote_events_) {
    // Their head, then their frames, read back from the scratch file.
    SectionWriter section = begin_section(Section::kEvents);
    const std::vector<std::uint8_t> head = c.events.head();
    section.put(head.data(), head.size());
    std::vector<char> buffer(std::size_t{1} << 20);
    for (std::uint64_t at = 0; at < c.event_frames.count(); at += buffer.size()) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), c.event_frames.count() - at));
      if (!read_all_at(c.event_frames.fd(), buffer.data(), want, at)) {
        throw Error(SourceLocation::of_file(path_), "cannot read the store's events back from their scratch file");
      }
      section.put(buffer.data(), want);
    }
    toc.push_back(section.finish(c.events.event_count()));
  } else {
    put_packed(Section::kBlockBucket, c.bucket);
    put_packed(Section::kBlockAllocSeq, c.alloc_seq);
    put_packed(Section::kFreeOrder, c.free_order);
  }
  put_column(Section::kTimeChanges, c.time_changes, sizeof(TimeChange), c.time_changes.count());
  if (wrote_events_ && writes(Section::kLiveCounts)) {
    const std::vector<std::uint8_t> lists = c.live_counts.bytes();
    put_pieces(Section::kLiveCounts, {std::string_view(reinterpret_cast<const char*>(lists.data()), lists.size())},
               c.live_counts.count());
  }
  if (!wrote_events_ && writes(Section::kLiveCheckpoints)) {
    // Written from where the builder keeps them (a quarter of the blocks'
    // ids at most), not copied into one string first.
    const std::vector<LiveCheckpoint>& checkpoints = c.builder.checkpoints();
    // Their ids' count, then the ids as a packed column.
    std::vector<std::uint64_t> ids;
    pack_values(c.builder.checkpoint_ids(), 0, ids);
    const std::uint64_t id_count = c.builder.checkpoint_ids().size();
    put_pieces(Section::kLiveCheckpoints,
               {std::string_view(reinterpret_cast<const char*>(checkpoints.data()),
                                 checkpoints.size() * sizeof(LiveCheckpoint)),
                std::string_view(reinterpret_cast<const char*>(&id_count), sizeof id_count), words_as_bytes(ids)},
               checkpoints.size());
  }
  {
    // Made a chunk at a time from the builder's counts, here and for the view.
    const BucketSumChunks sums = [&](const std::function<void(std::span<const BucketSum>)>& chunk) {
      c.builder.each_bucket_sum_chunk(chunk);
    };
    if (writes(Section::kBucketSums)) {
      const std::vector<std::uint64_t> table = packed_bucket_sums(sums);
      put_pieces(Section::kBucketSums, {words_as_bytes(table)}, c.builder.bucket_sum_count());
    }
    const auto release_sums = [&] { c.builder.release_bucket_state(); };
    if (make_view && writes(Section::kStackView)) {
      // Its head, then its columns as a packed table.
      PackedStackViewSink view;
      make_view(tables, sums, release_sums, view);
      if (!view.complete()) throw Error("internal error: the stack view's columns differ in length");
      const StackViewHead& head = view.view_head();
      ByteWriter w;
      w.u64(head.cull_fingerprint), w.u64(head.rows), w.u64(head.temporary_blocks);
      for (std::uint64_t total : head.totals) w.u64(total);
      const std::vector<std::uint64_t> table = packed_table(view.words());
      put_pieces(Section::kStackView, {w.bytes(), words_as_bytes(table)}, head.rows);
    }
    release_sums();  // (again, when the maker has: it is idempotent)
  }
  {
    SourceRecord record = early_record ? std::move(*early_record) : make_record();
    record.event_count = c.builder.event_count();
    record.end_ns = c.builder.end_ns();
    record.peak = c.builder.peak();
    put_bytes(Section::kSource, encode_source_record(record), 1);
  }

  ByteWriter toc_bytes;
  for (const TocEntry& e : toc) {
    toc_bytes.u32(static_cast<std::uint32_t>(e.kind)), toc_bytes.u32(e.revision), toc_bytes.u64(e.checksum);
    toc_bytes.u64(e.offset), toc_bytes.u64(e.bytes), toc_bytes.u64(e.items);
  }
  maybe_killed_before("table of contents");
  align();
  const std::uint64_t toc_offset = out.size();
  out.write(toc_bytes.bytes());
  const std::uint64_t file_bytes = out.size();

  ByteWriter header;
  header.bytes().append(kMagic.data(), kMagic.size());
  header.u32(kFormatVersion);
  header.u32(static_cast<std::uint32_t>(toc.size()));
  header.u64(file_bytes);
  header.u64(toc_offset);
  header.u64(checksum_of(toc_bytes.bytes().data(), toc_bytes.bytes().size()));
  header.u64(checksum_of(header.bytes().data(), header.bytes().size()));
  header.bytes().resize(kHeaderBytes, '\0');
  maybe_killed_before("header");
  out.pwrite_at(0, header.bytes());
  maybe_killed_before("rename");
  out.commit();
  return file_bytes;
}

}  // namespace heapql::store_file
