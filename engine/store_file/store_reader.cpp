#include "engine/store_file/store_reader.h"

#include <array>
#include <cstddef>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "engine/error.h"
#include "engine/file_begins_with.h"
#include "engine/store/columns_from_events.h"
#include "engine/store/packed_table.h"
#include "engine/util/on_both_cores.h"
#include "engine/binary_file/byte_codec.h"
#include "engine/binary_file/checksum.h"
#include "engine/binary_file/mapped_file.h"
#include "engine/store_file/source_record.h"
#include "engine/store_file/store_sections.h"
#include "engine/store_file/table_records.h"

namespace heapql::store_file {

namespace {

// The big tables are used in place: their records are StackNode and Bucket
// as they lie in memory (store_format.h refuses a big-endian machine).
static_assert(sizeof(StackNode) == kStackBytes && offsetof(StackNode, frame) == 0 && offsetof(StackNode, parent) == 4);
static_assert(sizeof(Bucket) == kBucketBytes && offsetof(Bucket, size) == 0 && offsetof(Bucket, stack) == 8 &&
              offsetof(Bucket, heap) == 12 && offsetof(Bucket, thread) == 16 && offsetof(Bucket, kind) == 20 &&
              offsetof(Bucket, is_realloc) == 21 && sizeof(bool) == 1);

// A section's records as the entries themselves: the section is 64-byte
// aligned in a page-aligned mapping, and its size was checked.
template <class T>
std::span<const T> view_as(std::string_view records) {
  return {reinterpret_cast<const T*>(records.data()), records.size() / sizeof(T)};
}

// A packed part of a section (packed_column.h, packed_table.h) as its
// 64-bit words, or nothing where its length is not whole words (what the
// caller then reports, each as its query reads it).
std::optional<std::span<const std::uint64_t>> whole_words(std::string_view bytes) {
  if (bytes.size() % 8 != 0) return std::nullopt;
  return view_as<std::uint64_t>(bytes);
}

// A fixed-width table's checksum and its records' validator in one pass,
// piece by piece, each validated while the checksum has just brought it
// into the cache: `first_bad(piece, index of its first record)`. Damage is
// reported before the records' faults, which it would explain.
template <class FirstBad>
void check_table(const StoreSections& file, Section kind, std::uint64_t record_bytes, FirstBad&& first_bad) {
  constexpr std::uint64_t kPieceRecords = 4096;
  Checksum checksum;
  std::optional<BadRecord> bad;
  std::uint64_t first = 0;
  file.for_each_piece(file.bytes(kind), kPieceRecords * record_bytes, [&](std::string_view piece) {
    checksum.add(piece.data(), piece.size());
    if (!bad) bad = first_bad(piece, first);
    first += piece.size() / record_bytes;
  });
  if (checksum.value() != file.entry(kind).checksum) file.damaged(kind);
  if (bad) {
    file.fail(fmt::format("store section '{}': {}", section_name(kind), bad->what),
              file.entry(kind).offset + bad->index * record_bytes);
  }
}

// The stack view's head and its columns viewed in place; its rows are
// checked when a query reads them (check_stack_view). Columns that do not
// fit the section leave the view without rows, and their check reports it.
StackView read_stack_view(const StoreSections& file) {
  const SectionEntry& e = file.entry(Section::kStackView);
  ByteReader in = file.reader(Section::kStackView);
  StackView view;
  if (e.bytes < kStackViewHeadBytes) {
    view.unreadable = "shorter than its head";
    return view;
  }
  view.cull_fingerprint = in.u64();
  const std::uint64_t rows = in.u64();
  view.temporary_blocks = in.u64();
  for (std::uint64_t& total : view.totals) total = in.u64();
  const auto table = whole_words(file.bytes(Section::kStackView).substr(kStackViewHeadBytes));
  if (rows != e.items) {
    view.unreadable = "its row count differs from the table of contents'";
  } else if (!table) {
    view.unreadable = fmt::format("{} bytes are not whole words", e.bytes);
  } else {
    view.unreadable = view_packed_table(*table, rows, view.columns);
  }
  if (!view.unreadable.empty()) view.columns = {};
  return view;
}

// The view's checksum, and that its rows fit the tables and add up: every
// stack exists, every row has blocks, and the columns sum to the totals
// and to the trace's blocks and frees.
void check_stack_view(const StoreSections& file, const StackView& view, std::size_t stacks, std::size_t blocks,
                      std::size_t frees) {
  const SectionEntry& e = file.entry(Section::kStackView);
  file.verify(Section::kStackView);
  const auto refuse = [&](const std::string& what) {
    file.fail(fmt::format("store section '{}': {}", section_name(Section::kStackView), what), e.offset);
  };
  if (!view.unreadable.empty()) refuse(view.unreadable);
  // A column at a time, a block at a time: each column's sum, each stack
  // within the tables, and every row's stc (its blocks) not 0.
  bool rows_ok = true;
  std::array<std::uint64_t, kViewColumns> column_sums{};
  try {
    std::array<std::uint32_t, PackedColumn::kBlockValues> values, high;
    for (std::size_t first = 0; first < view.rows(); first += PackedColumn::kBlockValues) {
      const std::size_t block = first / PackedColumn::kBlockValues;
      const std::size_t n = std::min(PackedColumn::kBlockValues, view.rows() - first);
      for (std::size_t c = 0; c < kViewColumns; ++c) {
        const std::optional<std::uint32_t> all = view.columns[c].block_value(block);
        if (all && c != 0) {  // a block of one value: most high halves, and src on a heaptrack trace
          column_sums[c] += std::uint64_t{*all} * n;
          if (c == 1 + 2 * 3 && *all == 0) {  // stc
            view.columns[c + 1].decode_block(block, high.data());
            for (std::size_t j = 0; j < n; ++j) rows_ok &= high[j] != 0;
          }
          continue;
        }
        view.columns[c].decode_block(block, values.data());
        std::uint64_t sum = 0;
        for (std::size_t j = 0; j < n; ++j) sum += values[j];
        column_sums[c] += sum;
        if (c == 0) {
          for (std::size_t j = 0; j < n; ++j) rows_ok &= values[j] == StackId().value || values[j] < stacks;
        } else if (c == 1 + 2 * 3) {  // stc's low halves, then its high halves
          view.columns[c + 1].decode_block(block, high.data());
          for (std::size_t j = 0; j < n; ++j) rows_ok &= (values[j] | high[j]) != 0;
        }
      }
    }
  } catch (const Error& error) {
    refuse(error.message());  // a packed block that does not fit
  }
  std::array<std::uint64_t, kViewMeasures> sums{};
  for (std::size_t k = 0; k < kViewMeasures; ++k) sums[k] = column_sums[1 + 2 * k] + (column_sums[2 + 2 * k] << 32);
  if (!rows_ok) file.fail("the stack view has a row that does not fit the tables", e.offset);
  enum { kSo, kSoc, kSt, kStc, kSrc };
  if (sums != view.totals || sums[kStc] != blocks || sums[kStc] - sums[kSoc] != frees || sums[kSo] > sums[kSt] ||
      sums[kSrc] > sums[kStc] || view.temporary_blocks > frees) {
    file.fail("the stack view does not add up to its totals and the trace's blocks", e.offset);
  }
}

// The live checkpoints (their checksum is checked with the block columns',
// which they stand for): in order, each listing its ids where the
// previous one's end, within the events. The replay checks the ids.
void read_checkpoints(const StoreSections& file, StoreColumns& c) {
  const SectionEntry& e = file.entry(Section::kLiveCheckpoints);
  const auto refuse = [&](const std::string& what, std::uint64_t at) {
    file.verify(Section::kLiveCheckpoints);  // checked by checksum only when used, as above
    file.fail(what, at);
  };
  if (e.items > e.bytes / sizeof(LiveCheckpoint)) refuse("more live checkpoints than their section holds", e.offset);
  // The checkpoints, their ids' count, then the ids: one packed column.
  const std::uint64_t head = e.items * sizeof(LiveCheckpoint) + 8;
  if (e.bytes < head) refuse("more live checkpoints than their section holds", e.offset);
  const char* at = file.bytes(Section::kLiveCheckpoints).data();
  const auto id_words = whole_words(file.bytes(Section::kLiveCheckpoints).substr(head));
  if (!id_words) refuse("live checkpoint ids that are not whole words", e.offset);
  c.checkpoints = {reinterpret_cast<const LiveCheckpoint*>(at), static_cast<std::size_t>(e.items)};
  std::uint64_t id_count = 0;
  std::memcpy(&id_count, at + head - 8, 8);
  // Each lists its ids where the previous one's end.
  std::uint64_t next_first = 0, previous_seq = 0;
  for (std::size_t k = 0; k < c.checkpoints.size(); ++k) {
    const LiveCheckpoint& checkpoint = c.checkpoints[k];
    if (checkpoint.first != next_first || checkpoint.count > id_count - next_first || checkpoint.seq == 0 ||
        checkpoint.seq <= previous_seq || checkpoint.seq > c.event_count) {
      refuse("a live checkpoint that does not fit its section or the events", e.offset + k * sizeof(LiveCheckpoint));
    }
    next_first += checkpoint.count;
    previous_seq = checkpoint.seq;
  }
  if (next_first != id_count) refuse("live checkpoint ids that no checkpoint lists", e.offset + head - 8);
  const std::string wrong = PackedColumn::view(*id_words, id_count, 0, c.checkpoint_ids);
  if (!wrong.empty()) refuse("live checkpoint ids: " + wrong, e.offset + head);
}

// A packed table (packed_table.h) viewed in place: `columns.size()`
// columns of the section's item count each. Empty text when it fits its
// section; else what is wrong, which the query that reads it reports.
std::string packed_table_section(const StoreSections& file, Section kind, std::span<PackedColumn> columns) {
  const SectionEntry& e = file.entry(kind);
  const auto words = whole_words(file.bytes(kind));
  if (!words) return fmt::format("{} bytes are not whole words", e.bytes);
  return view_packed_table(*words, e.items, columns);
}

BucketSumList read_bucket_sums(const StoreSections& file) {
  std::array<PackedColumn, kBucketSumColumns> columns;
  const std::string wrong = packed_table_section(file, Section::kBucketSums, columns);
  return wrong.empty() ? BucketSumList(columns) : BucketSumList::unreadable(wrong);
}

// The bucket sums must add up to the columns, each bucket once, so that
// an answer from them is the replay's.
void check_bucket_sums(const StoreSections& file, const StoreColumns& c, std::size_t buckets) {
  file.verify(Section::kBucketSums);
  std::vector<bool> seen(buckets, false);
  std::uint64_t allocs = 0, frees = 0;
  const std::uint64_t sums_at = file.entry(Section::kBucketSums).offset;
  std::size_t i = 0;
  try {
    c.bucket_sums.each_chunk([&](std::span<const BucketSum> sums) {
      for (const BucketSum& s : sums) {
        if (s.bucket >= buckets || seen[s.bucket] || s.allocs == 0 || s.allocs > c.block_count() ||
            s.frees > s.allocs || s.temporary_frees > s.frees || s.live_at_peak > s.allocs) {
          file.fail(fmt::format("bucket sum {} does not fit the tables", i), sums_at);
        }
        seen[s.bucket] = true;
        allocs += s.allocs;
        frees += s.frees;
        ++i;
      }
    });
  } catch (const Error& e) {
    if (!e.where().file.empty()) throw;  // fail()'s own
    file.fail(fmt::format("store section '{}': {}", section_name(Section::kBucketSums), e.message()), sums_at);
  }
  if (allocs != c.block_count() || frees != c.free_count()) {
    file.fail("the bucket sums do not add up to the blocks and frees", sums_at);
  }
}

// The block columns' checksums, and what the replay cannot check cheaply as
// it goes: that the time changes are in order. The live checkpoints, which
// stand for the columns, with them.
void check_blocks(const StoreSections& file, const StoreColumns& c) {
  if (c.has_events) {
    file.verify(Section::kEvents);
    if (file.has(Section::kLiveCounts)) file.verify(Section::kLiveCounts);
  } else {
    for (const Section kind : {Section::kBlockBucket, Section::kBlockAllocSeq, Section::kFreeOrder}) file.verify(kind);
  }
  file.verify(Section::kTimeChanges);
  for (std::size_t i = 1; i < c.time_changes.size(); ++i) {
    if (c.time_changes[i].first_seq <= c.time_changes[i - 1].first_seq) {
      file.fail("time changes are out of order",
                file.entry(Section::kTimeChanges).offset + i * sizeof(TimeChange));
    }
  }
  if (file.has(Section::kLiveCheckpoints)) file.verify(Section::kLiveCheckpoints);
}

// The small tables decoded (strings viewed in place), the big ones viewed.
TraceTables read_tables(const StoreSections& file) {
  TraceTables t;
  {
    ByteReader in = file.reader(Section::kStrings);
    const std::uint64_t n = in.count(8);
    if (n != file.entry(Section::kStrings).items) in.fail("the string count differs from the table of contents'");
    // String 0 is "?", which every table starts with; the rest are viewed in place.
    if (n == 0 || in.text() != "?") in.fail("the first string is not '?'");
    for (std::uint64_t i = 1; i < n; ++i) t.load_string(in.text());
    if (!in.done()) in.fail("bytes after the last string");
  }
  const auto strings = t.string_count();
  auto string_id = [&](ByteReader& in, bool optional) {
    const StringId id(in.u32());
    if (!(optional && !id.valid()) && id.value >= strings) in.fail("a string id out of range");
    return id;
  };
  {
    ByteReader in = file.table(Section::kFrames, kFrameBytes);
    for (std::uint64_t i = 0; i < file.entry(Section::kFrames).items; ++i) {
      const StringId module = string_id(in, false);
      const StringId symbol = string_id(in, true);
      const std::uint64_t address = in.u64();
      if (symbol.valid() && address != 0) in.fail("a frame with a symbol and an address");
      t.load_frame(Frame{module, symbol, address});
    }
  }
  t.view_stacks(view_as<StackNode>(file.table(Section::kStacks, kStackBytes).rest_view()));
  {
    ByteReader in = file.table(Section::kProcesses, kProcessBytes);
    for (std::uint64_t i = 0; i < file.entry(Section::kProcesses).items; ++i) {
      Process p;
      p.pid = in.u64();
      p.name = string_id(in, false);
      if (in.u32() != 0) in.fail("a process entry's padding is not zero");
      t.add_process(p);
    }
  }
  {
    ByteReader in = file.table(Section::kHeaps, kHeapBytes);
    for (std::uint64_t i = 0; i < file.entry(Section::kHeaps).items; ++i) {
      Heap h;
      h.process = ProcessId(in.u32());
      if (h.process.valid() && h.process.value >= t.process_count()) in.fail("a heap's process out of range");
      h.name = string_id(in, false);
      h.handle = in.u64();
      t.add_heap(h);
    }
  }
  t.view_buckets(view_as<Bucket>(file.table(Section::kBuckets, kBucketBytes).rest_view()));
  return t;
}

template <class T>
std::span<const T> column(const StoreSections& file, Section kind) {
  return view_as<T>(file.table(kind, sizeof(T)).rest_view());
}

// A packed block column viewed in place (packed_column.h): its words and
// directory, whose sizes must agree with its values' count.
PackedColumn packed_column(const StoreSections& file, Section kind, unsigned rotation) {
  const SectionEntry& e = file.entry(kind);
  const auto words = whole_words(file.bytes(kind));
  if (!words) {
    file.verify(kind);  // checked by checksum only when used: damage explains it
    file.fail(fmt::format("store section '{}': {} bytes are not whole words", section_name(kind), e.bytes), e.offset);
  }
  PackedColumn c;
  const std::string wrong = PackedColumn::view(*words, e.items, rotation, c);
  if (!wrong.empty()) {
    file.verify(kind);
    file.fail(fmt::format("store section '{}': {}", section_name(kind), wrong), e.offset);
  }
  return c;
}

// The events (store_events.h) viewed in place, their sizes checked; each
// chunk is checked when read.
void read_events(const StoreSections& file, StoreColumns& c) {
  const SectionEntry& e = file.entry(Section::kEvents);
  if (e.items != c.event_count) {
    file.fail("the events section holds another count of events than the source says", e.offset);
  }
  const std::string wrong = c.events.view(file.bytes(Section::kEvents), c.event_count);
  if (!wrong.empty()) {
    file.verify(Section::kEvents);  // checked by checksum only when used: damage explains it
    file.fail(fmt::format("store section '{}': {}", section_name(Section::kEvents), wrong), e.offset);
  }
  c.has_events = true;
}

// The live counts, checked to fit the events; when they do not, the
// windowed replay that would start from them reports it, after the
// section's checksum (damage explains it).
void read_live_counts(const StoreSections& file, StoreColumns& c) {
  if (!c.has_events) return;
  c.live_counts_unreadable = c.live_counts.view(file.bytes(Section::kLiveCounts), c.events);
  c.has_live_counts = c.live_counts_unreadable.empty();
}

// The block columns (or the events) and the time changes viewed, and what
// their lengths must be.
StoreColumns read_columns(const StoreSections& file, const SourceRecord& record) {
  StoreColumns c;
  c.time_changes = column<TimeChange>(file, Section::kTimeChanges);
  c.peak = record.peak;
  c.event_count = record.event_count;
  c.end_ns = record.end_ns;
  if (file.has(Section::kEvents)) {
    read_events(file, c);
    return c;
  }
  c.bucket = packed_column(file, Section::kBlockBucket, 0);
  c.alloc_seq = packed_column(file, Section::kBlockAllocSeq, 0);
  c.free_order = packed_column(file, Section::kFreeOrder, StoreColumns::kFreeRotation);
  if (c.alloc_seq.size() != c.bucket.size()) {
    file.fail("the block columns differ in length", file.entry(Section::kBlockAllocSeq).offset);
  }
  if (c.event_count != c.bucket.size() + c.free_order.size()) {
    file.fail("the event count is not the allocations plus the frees", file.entry(Section::kSource).offset);
  }
  return c;
}

SourceRecord read_source(const StoreSections& file) {
  ByteReader in = file.reader(Section::kSource);
  return decode_source_record(in);
}

StoreFileInfo describe(const StoreSections& file, const std::string& name, const SourceRecord& record) {
  StoreFileInfo info;
  info.path = name;
  info.format_version = file.format_version();
  info.file_bytes = file.file_bytes();
  info.files = record.files;
  info.reading = record.reading;
  info.sections = file.describe();
  return info;
}

OpenedStore open_bytes(std::shared_ptr<const void> owner, std::string_view bytes, const std::string& name,
                       const ReadOptions& options, ReadFileAt read_at) {
  const StoreSections file(bytes, name, options.accelerators);
  // The same file, its checked sections read by copies: for the checks of
  // the sections a query then reads only in part (the stack view; the stack
  // tree under it), whose pages it need not fault in whole. The sections a
  // query reads whole are checked in place: faulting them in serves it too.
  StoreSections copying = file;
  copying.read_by_copy(std::move(read_at));
  // The small sections' checksums are computed on the other core while they
  // are decoded; a damaged section is reported as damaged even when its
  // decoding failed first.
  SourceRecord record;
  TraceTables tables;
  StoreColumns columns;
  std::optional<StackView> view;
  on_both_cores(
      [&] {
        for (const Section kind :
             {Section::kSource, Section::kStrings, Section::kFrames, Section::kProcesses, Section::kHeaps}) {
          file.verify(kind);
        }
      },
      [&] {
        record = read_source(file);
        tables = read_tables(file);
        columns = read_columns(file, record);
        if (file.has(Section::kBucketSums)) columns.bucket_sums = read_bucket_sums(file);
        if (file.has(Section::kLiveCheckpoints) && !columns.has_events) read_checkpoints(file, columns);
        if (file.has(Section::kLiveCounts)) read_live_counts(file, columns);
        if (file.has(Section::kStackView)) view = read_stack_view(file);
      });
  OpenedStore opened;
  opened.info = describe(file, name, record);
  // The rest is checked when a query first reads it (TraceStore), each
  // check with a copy of `file` (the mapping's bytes and the table of
  // contents), which the store outlives with its mapping: the big tables
  // and the block columns are most of a big store, and a query reads only
  // some of them.
  StoreFileChecks checks;
  const auto stack_tree_check = [frames = tables.frame_count()](const StoreSections& sections) {
    return [sections, frames] {
      check_table(sections, Section::kStacks, kStackBytes, [&](std::string_view piece, std::uint64_t first) {
        return first_bad_stack_node(view_as<StackNode>(piece), first, frames);
      });
    };
  };
  checks.stack_tree = stack_tree_check(file);
  checks.stack_tree_by_copy = stack_tree_check(copying);
  checks.buckets = [file, stacks = tables.stack_count(), heaps = tables.heap_count()] {
    check_table(file, Section::kBuckets, kBucketBytes, [&](std::string_view piece, std::uint64_t first) {
      return first_bad_bucket(piece, first, stacks, heaps);
    });
  };
  checks.blocks = [file, columns] { check_blocks(file, columns); };
  if (file.has(Section::kBucketSums)) {
    checks.bucket_sums = [file, columns, buckets = tables.bucket_count()] {
      check_bucket_sums(file, columns, buckets);
    };
  }
  const std::size_t stacks = tables.stack_count();
  const std::size_t buckets = tables.bucket_count();
  opened.store = std::make_unique<TraceStore>(std::move(tables), std::move(record.info), columns, std::move(owner),
                                              std::move(checks));
  if (columns.has_events) {
    // The block columns, made from the events when a query first needs each block.
    opened.store->gather_blocks_when_read(
        [buckets, words = std::make_shared<PackedBlockColumns>()](StoreColumns& c) {
          columns_from_events(buckets, *words, c);
        });
  }
  if (view) {
    opened.store->attach_stack_view(*view, [copying, view = *view, stacks, blocks = columns.block_count(),
                                            frees = columns.free_count()] {
      check_stack_view(copying, view, stacks, blocks, frees);
    });
  }
  return opened;
}

}  // namespace

bool is_store_file(const std::string& path) {
  return file_begins_with(path, std::string_view(kMagic.data(), kMagic.size()));
}

OpenedStore read_store_bytes(std::shared_ptr<const void> owner, std::string_view bytes, const std::string& name,
                             const ReadOptions& options) {
  return open_bytes(std::move(owner), bytes, name, options, {});
}

OpenedStore read_store_file(const std::string& path, const ReadOptions& options) {
  MappedFile mapped = map_file(path, "a heapql store");
  return open_bytes(std::move(mapped.owner), mapped.bytes, path, options, std::move(mapped.read_at));
}

StoreFileInfo peek_store_file(const std::string& path) {
  const MappedFile mapped = map_file(path, "a heapql store");
  const StoreSections file(mapped.bytes, path, kAccelerators);
  file.verify(Section::kSource);
  return describe(file, path, read_source(file));
}

}  // namespace heapql::store_file
