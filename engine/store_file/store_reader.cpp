#include "engine/store_file/store_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cerrno>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "engine/error.h"
#include "engine/file_begins_with.h"
#include "engine/util/on_both_cores.h"
#include "engine/binary_file/byte_codec.h"
#include "engine/binary_file/checksum.h"
#include "engine/binary_file/mapped_file.h"
#include "engine/store_file/source_record.h"
#include "engine/store_file/store_format.h"

namespace heapql::store_file {

namespace {

std::uint64_t checksum_of(std::string_view bytes) { return store_file::checksum_of(bytes.data(), bytes.size()); }

template <class T>
T load(std::string_view bytes, std::size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof(T));
  return v;
}

// A table's records as the entries themselves: the section is 64-byte
// aligned in a page-aligned mapping, and its size was checked.
template <class T>
std::span<const T> view_as(std::string_view records, std::uint64_t n) {
  return {reinterpret_cast<const T*>(records.data()), static_cast<std::size_t>(n)};
}

// Whether the stack and bucket records (store_format.h) are laid out as
// StackNode and Bucket are in memory here.
constexpr bool kStacksViewable = std::endian::native == std::endian::little && sizeof(StackNode) == kStackBytes &&
                                 offsetof(StackNode, frame) == 0 && offsetof(StackNode, parent) == 4;
constexpr bool kBucketsViewable = std::endian::native == std::endian::little && sizeof(Bucket) == kBucketBytes &&
                                  offsetof(Bucket, size) == 0 && offsetof(Bucket, stack) == 8 &&
                                  offsetof(Bucket, heap) == 12 && offsetof(Bucket, thread) == 16 &&
                                  offsetof(Bucket, kind) == 20 && offsetof(Bucket, is_realloc) == 21 &&
                                  sizeof(bool) == 1;

// Tight scans of the two big tables (millions of records), the checks of
// read_tables' loops without a bounds check per field: whether every record
// is valid. The loops still name the first bad one.
// `first`: the index of nodes[0] in the whole table.
bool stacks_valid(std::span<const StackNode> nodes, std::size_t frames, std::size_t first) {
  bool ok = true;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const StackNode& node = nodes[i];
    ok &= node.frame.value < frames;
    ok &= !node.parent.valid() || node.parent.value < first + i;
  }
  return ok;
}

bool buckets_valid(std::string_view records, std::size_t n, std::size_t stacks, std::size_t heaps) {
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    const char* r = records.data() + i * kBucketBytes;
    const auto stack = load<std::uint32_t>(std::string_view(r, kBucketBytes), 8);
    const auto heap = load<std::uint32_t>(std::string_view(r, kBucketBytes), 12);
    const auto flags = load<std::uint32_t>(std::string_view(r, kBucketBytes), 20);  // kind, realloc, zero padding
    ok &= stack == StackId().value || stack < stacks;
    ok &= heap == HeapId().value || heap < heaps;
    ok &= (flags & ~0x0101u) == 0;
  }
  return ok;
}

class Opener {
 public:
  Opener(std::string_view bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}

  // The header and the source section only: what was read, and how.
  StoreFileInfo peek() {
    check_header();
    read_toc();
    verify(Section::kSource);
    SourceRecord record = read_source();
    return describe(record);
  }

  OpenedStore open(std::shared_ptr<const void> owner) {
    check_header();
    read_toc();
    // The other sections' checksums are computed on the other core while
    // they are decoded; a damaged section is reported as damaged even when
    // its decoding failed first.
    SourceRecord record;
    TraceTables tables;
    StoreColumns columns;
    StackView view;
    on_both_cores(
        [&] {
          for (std::uint32_t kind = 1; kind <= kSectionKinds; ++kind) {
            const auto section = Section(kind);
            // Stack nodes: checked with their scan on the other side; buckets: just below.
            if (is_checked_when_used(section) || section == Section::kStacks || section == Section::kBuckets) continue;
            verify(section);
          }
          check_buckets();
        },
        [&] {
          record = read_source();
          tables = read_tables();
          bucket_count_ = tables.bucket_count();
          columns.bucket = column<std::uint32_t>(Section::kBlockBucket);
          columns.alloc_seq = column<std::uint32_t>(Section::kBlockAllocSeq);
          columns.free_order = column<std::uint32_t>(Section::kFreeOrder);
          columns.time_changes = column<TimeChange>(Section::kTimeChanges);
          columns.bucket_sums = column<BucketSum>(Section::kBucketSums);
          columns.peak = record.peak;
          columns.event_count = record.event_count;
          columns.end_ns = record.end_ns;
          check_column_lengths(columns);
          read_checkpoints(columns);
          view = read_stack_view();
        });
    OpenedStore opened;
    opened.info = describe(record);
    // The block columns (12 bytes a block, most of a big store) are checked
    // only when a query replays them, beside the replay (TraceStore::replay);
    // a query answered from the bucket sums never reads them.
    // Each check keeps a copy of this opener (the mapping's bytes and the
    // table of contents), which the store outlives with its mapping.
    auto check_sums = [self = *this, columns] {
      self.verify(Section::kBucketSums);
      self.check_bucket_sums(columns);
    };
    auto check_blocks = [self = *this] {
      self.verify(Section::kBlockBucket);
      self.verify(Section::kBlockAllocSeq);
      self.verify(Section::kFreeOrder);
      self.verify(Section::kLiveCheckpoints);
    };
    opened.store = std::make_unique<TraceStore>(std::move(tables), std::move(record.info), columns, std::move(owner),
                                                std::move(check_blocks), std::move(check_sums));
    if (view.cull_fingerprint != 0) {
      // Checked only when a query answers from it, beside that query's scan.
      auto check_view = [self = *this, view, stacks = opened.store->tables().stack_count(),
                         blocks = columns.bucket.size(), frees = columns.free_order.size()] {
        self.check_stack_view(view, stacks, blocks, frees);
      };
      opened.store->attach_stack_view(view, std::move(check_view));
    }
    return opened;
  }

 private:
  StoreFileInfo describe(const SourceRecord& record) const {
    StoreFileInfo info;
    info.path = name_;
    info.format_version = version_;
    info.file_bytes = bytes_.size();
    info.files = record.files;
    info.reading = record.reading;
    for (const Entry& e : entries_) {
      if (e.present) info.sections.push_back({std::string(section_name(e.kind)), e.offset, e.bytes, e.items});
    }
    return info;
  }

  struct Entry {
    Section kind{};
    bool present = false;
    std::uint64_t checksum = 0, offset = 0, bytes = 0, items = 0;
  };

  [[noreturn]] void fail(const std::string& what, std::optional<std::uint64_t> at = std::nullopt) const {
    SourceLocation where = SourceLocation::of_file(name_);
    where.byte_offset = at;
    throw Error(where, what);
  }

  void check_header() {
    if (bytes_.empty()) fail("an empty file, not a heapql store");
    if (bytes_.size() < kMagic.size() || std::memcmp(bytes_.data(), kMagic.data(), kMagic.size()) != 0) {
      fail("not a heapql store (wrong magic number)", 0);
    }
    if (bytes_.size() < kHeaderBytes) fail(fmt::format("truncated: {} bytes, shorter than the store's header", bytes_.size()));
    version_ = load<std::uint32_t>(bytes_, header_at::kVersion);
    if (version_ > kFormatVersion) {
      fail(fmt::format("store format version {} is newer than this heapql reads (up to {}); use a newer heapql or "
                       "ingest the trace again",
                       version_, kFormatVersion),
           header_at::kVersion);
    }
    if (version_ == 0) fail("store format version 0 does not exist", header_at::kVersion);
    if (version_ < kFormatVersion) {
      fail(fmt::format("store format version {} is older than this heapql reads ({}); ingest the trace again",
                       version_, kFormatVersion),
           header_at::kVersion);
    }
    if (checksum_of(bytes_.substr(0, header_at::kHeaderChecksum)) !=
        load<std::uint64_t>(bytes_, header_at::kHeaderChecksum)) {
      fail("the header is damaged (its checksum does not match)", 0);
    }
    const std::uint64_t file_bytes = load<std::uint64_t>(bytes_, header_at::kFileBytes);
    if (file_bytes > bytes_.size()) {
      fail(fmt::format("truncated: the store is {} bytes, the file {}", file_bytes, bytes_.size()));
    }
    if (file_bytes < bytes_.size()) {
      fail(fmt::format("{} bytes after the store's end ({} bytes): not a file heapql wrote", bytes_.size() - file_bytes,
                       file_bytes));
    }
  }

  void read_toc() {
    const std::uint32_t count = load<std::uint32_t>(bytes_, header_at::kSectionCount);
    const std::uint64_t toc_offset = load<std::uint64_t>(bytes_, header_at::kTocOffset);
    if (toc_offset < kHeaderBytes || toc_offset > bytes_.size() ||
        std::uint64_t{count} * kTocEntryBytes != bytes_.size() - toc_offset) {
      fail("the table of contents is not where the header says", header_at::kTocOffset);
    }
    const std::string_view toc = bytes_.substr(toc_offset);
    if (checksum_of(toc) != load<std::uint64_t>(bytes_, header_at::kTocChecksum)) {
      fail("the table of contents is damaged (its checksum does not match)", toc_offset);
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::size_t at = i * kTocEntryBytes;
      const std::uint32_t kind = load<std::uint32_t>(toc, at);
      const std::uint64_t entry_at = toc_offset + at;
      if (kind == 0 || kind > kSectionKinds) fail(fmt::format("an unknown section kind {}", kind), entry_at);
      Entry& e = entries_[kind - 1];
      if (e.present) fail(fmt::format("section '{}' appears twice", section_name(Section(kind))), entry_at);
      e.kind = Section(kind);
      e.present = true;
      if (load<std::uint32_t>(toc, at + 4) != 0) fail("a table of contents entry's padding is not zero", entry_at);
      e.checksum = load<std::uint64_t>(toc, at + 8);
      e.offset = load<std::uint64_t>(toc, at + 16);
      e.bytes = load<std::uint64_t>(toc, at + 24);
      e.items = load<std::uint64_t>(toc, at + 32);
      if (e.offset < kHeaderBytes || e.offset % kSectionAlignment != 0 || e.offset > toc_offset ||
          e.bytes > toc_offset - e.offset) {
        fail(fmt::format("section '{}' lies outside the file's sections", section_name(e.kind)), entry_at);
      }
    }
    for (std::uint32_t kind = 1; kind <= kSectionKinds; ++kind) {
      if (!entries_[kind - 1].present) fail(fmt::format("section '{}' is missing", section_name(Section(kind))));
    }
  }

  const Entry& entry(Section kind) const { return entries_[static_cast<std::uint32_t>(kind) - 1]; }

  // The block columns, the bucket sums and the stack view: most of a big
  // store, and a query reads one of them.
  static bool is_checked_when_used(Section kind) {
    return kind == Section::kBlockBucket || kind == Section::kBlockAllocSeq || kind == Section::kFreeOrder ||
           kind == Section::kBucketSums || kind == Section::kStackView || kind == Section::kLiveCheckpoints;
  }

  // The live checkpoints (their checksum is checked with the block columns',
  // which they stand for): in order, each listing its ids where the
  // previous one's end, within the events. The replay checks the ids.
  void read_checkpoints(StoreColumns& c) const {
    const Entry& e = entry(Section::kLiveCheckpoints);
    // Checked by checksum only when used: a section that does not decode is
    // reported as damaged when it is.
    const auto refuse = [&](const std::string& what, std::uint64_t at) {
      verify(Section::kLiveCheckpoints);
      fail(what, at);
    };
    if (e.items > e.bytes / sizeof(LiveCheckpoint)) refuse("more live checkpoints than their section holds", e.offset);
    const std::uint64_t head = e.items * sizeof(LiveCheckpoint);
    const std::uint64_t id_bytes = e.bytes - head;
    if (id_bytes % 4 != 0) refuse("live checkpoint ids that are not whole", e.offset);
    c.checkpoints = {reinterpret_cast<const LiveCheckpoint*>(bytes_.data() + e.offset), static_cast<std::size_t>(e.items)};
    c.checkpoint_ids = {reinterpret_cast<const std::uint32_t*>(bytes_.data() + e.offset + head),
                        static_cast<std::size_t>(id_bytes / 4)};
    std::uint64_t next_first = 0, previous_seq = 0;
    for (std::size_t k = 0; k < c.checkpoints.size(); ++k) {
      const LiveCheckpoint& checkpoint = c.checkpoints[k];
      if (checkpoint.first != next_first || checkpoint.count > c.checkpoint_ids.size() - next_first ||
          checkpoint.seq == 0 || checkpoint.seq <= previous_seq || checkpoint.seq > c.event_count) {
        refuse("a live checkpoint that does not fit its section or the events", e.offset + k * sizeof(LiveCheckpoint));
      }
      next_first += checkpoint.count;
      previous_seq = checkpoint.seq;
    }
    if (next_first != c.checkpoint_ids.size()) refuse("live checkpoint ids that no checkpoint lists", e.offset + head);
  }

  // The view's head and where its columns lie; the rows are checked later
  // (check_stack_view).
  StackView read_stack_view() const {
    const Entry& e = entry(Section::kStackView);
    ByteReader in = section_reader(Section::kStackView);
    const auto refuse = [&](const std::string& what) {
      verify(Section::kStackView);  // checked by checksum only when used, as above
      in.fail(what);
    };
    if (e.bytes < kStackViewHeadBytes) refuse("shorter than its head");
    StackView view;
    view.cull_fingerprint = in.u64();
    const std::uint64_t rows = in.u64();
    view.temporary_blocks = in.u64();
    for (std::uint64_t& total : view.totals) total = in.u64();
    if (rows != e.items) refuse("its row count differs from the table of contents'");
    if (rows > e.bytes / kStackViewRowBytes || stack_view_bytes(rows) != e.bytes) {
      refuse(fmt::format("{} bytes do not hold {} rows", e.bytes, rows));
    }
    if (view.cull_fingerprint == 0 && rows != 0) refuse("rows without a cull list");
    const char* at = bytes_.data() + e.offset + kStackViewHeadBytes;
    view.stacks = {reinterpret_cast<const std::uint32_t*>(at), static_cast<std::size_t>(rows)};
    at += (rows * 4 + 7) / 8 * 8;
    for (auto& column : view.measures) {
      column = {reinterpret_cast<const std::uint64_t*>(at), static_cast<std::size_t>(rows)};
      at += rows * 8;
    }
    return view;
  }

  // The view's checksum, and that its rows fit the tables and add up: every
  // stack exists, every row has blocks, and the columns sum to the totals
  // and to the trace's blocks and frees. One pass: each piece is summed
  // while the checksum has just brought it into the cache.
  void check_stack_view(const StackView& view, std::size_t stacks, std::size_t blocks, std::size_t frees) const {
    const Entry& e = entry(Section::kStackView);
    Checksum checksum;
    checksum.add(bytes_.data() + e.offset, kStackViewHeadBytes);
    constexpr std::size_t kPiece = 8192;
    bool rows_ok = true;
    for (std::size_t at = 0; at < view.rows(); at += kPiece) {
      const std::span<const std::uint32_t> piece = view.stacks.subspan(at, std::min(kPiece, view.rows() - at));
      checksum.add(piece.data(), piece.size_bytes());
      for (const std::uint32_t stack : piece) rows_ok &= stack == StackId().value || stack < stacks;
    }
    const std::array<char, 4> zeros{};
    checksum.add(zeros.data(), view.rows() % 2 * 4);
    std::array<std::uint64_t, kViewMeasures> sums{};
    for (std::size_t k = 0; k < kViewMeasures; ++k) {
      for (std::size_t at = 0; at < view.rows(); at += kPiece) {
        const std::span<const std::uint64_t> piece = view.measures[k].subspan(at, std::min(kPiece, view.rows() - at));
        checksum.add(piece.data(), piece.size_bytes());
        std::uint64_t sum = 0;
        for (const std::uint64_t v : piece) sum += v;
        sums[k] += sum;
        if (k == 3) {  // stc: every row has blocks
          for (const std::uint64_t v : piece) rows_ok &= v != 0;
        }
      }
    }
    if (checksum.value() != e.checksum) damaged(Section::kStackView);
    if (!rows_ok) fail("the stack view has a row that does not fit the tables", e.offset);
    enum { kSo, kSoc, kSt, kStc, kSrc };
    if (sums != view.totals || sums[kStc] != blocks || sums[kStc] - sums[kSoc] != frees ||
        sums[kSo] > sums[kSt] || sums[kSrc] > sums[kStc] || view.temporary_blocks > frees) {
      fail("the stack view does not add up to its totals and the trace's blocks", e.offset);
    }
  }

  void verify(Section kind) const {
    const Entry& e = entry(kind);
    if (checksum_of(bytes_.substr(e.offset, e.bytes)) != e.checksum) damaged(kind);
  }

  [[noreturn]] void damaged(Section kind) const {
    fail(fmt::format("section '{}' is damaged (its checksum does not match)", section_name(kind)), entry(kind).offset);
  }

  ByteReader section_reader(Section kind) const {
    const Entry& e = entry(kind);
    return ByteReader(bytes_.substr(e.offset, e.bytes), name_, section_name(kind), e.offset);
  }

  // A fixed-width table: its item count must match its size.
  ByteReader table(Section kind, std::uint64_t item_bytes) const {
    const Entry& e = entry(kind);
    if (e.items > e.bytes / item_bytes || e.items * item_bytes != e.bytes) {
      fail(fmt::format("section '{}' holds {} bytes, not {} items of {}", section_name(kind), e.bytes, e.items,
                       item_bytes),
           e.offset);
    }
    return section_reader(kind);
  }

  SourceRecord read_source() const {
    ByteReader in = section_reader(Section::kSource);
    return decode_source_record(in);
  }

  TraceTables read_tables() const {
    TraceTables t;
    {
      ByteReader in = section_reader(Section::kStrings);
      const std::uint64_t n = in.count(8);
      if (n != entry(Section::kStrings).items) in.fail("the string count differs from the table of contents'");
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
      ByteReader in = table(Section::kFrames, kFrameBytes);
      for (std::uint64_t i = 0; i < entry(Section::kFrames).items; ++i) {
        const StringId module = string_id(in, false);
        const StringId symbol = string_id(in, true);
        const std::uint64_t address = in.u64();
        if (symbol.valid() && address != 0) in.fail("a frame with a symbol and an address");
        t.load_frame(Frame{module, symbol, address});
      }
    }
    // Stack nodes and buckets, the big tables, are checked here and then
    // viewed in place where their records are the tables' own layout.
    {
      ByteReader in = table(Section::kStacks, kStackBytes);
      const std::uint64_t n = entry(Section::kStacks).items;
      const std::string_view records = in.rest_view();
      // Where records are viewable, a tight scan checks them, piece by piece
      // with the section's checksum; the record by record loop then runs
      // only to name the first bad one (or to copy records elsewhere).
      const std::size_t frames = t.frame_count();
      bool valid = false;
      if constexpr (kStacksViewable) {
        valid = scan_checked(Section::kStacks, kStackBytes, [&](std::string_view piece, std::uint64_t first) {
          return stacks_valid(view_as<StackNode>(piece, piece.size() / kStackBytes), frames, first);
        });
      } else {
        verify(Section::kStacks);
      }
      if (!valid) {
        for (std::uint64_t i = 0; i < n; ++i) {
          const FrameId frame(in.u32());
          const StackId parent(in.u32());
          if (frame.value >= t.frame_count()) in.fail("a stack node's frame out of range");
          if (parent.valid() && parent.value >= i) in.fail("a stack node whose caller comes after it");
          if constexpr (!kStacksViewable) t.load_stack(StackNode{frame, parent});
        }
        if constexpr (kStacksViewable) in.fail("internal error: the stack scan and the stack loop disagree");
      }
      if constexpr (kStacksViewable) t.view_stacks(view_as<StackNode>(records, n));
    }
    {
      ByteReader in = table(Section::kProcesses, kProcessBytes);
      for (std::uint64_t i = 0; i < entry(Section::kProcesses).items; ++i) {
        Process p;
        p.pid = in.u64();
        p.name = string_id(in, false);
        if (in.u32() != 0) in.fail("a process entry's padding is not zero");
        t.add_process(p);
      }
    }
    {
      ByteReader in = table(Section::kHeaps, kHeapBytes);
      for (std::uint64_t i = 0; i < entry(Section::kHeaps).items; ++i) {
        Heap h;
        h.process = ProcessId(in.u32());
        if (h.process.valid() && h.process.value >= t.process_count()) in.fail("a heap's process out of range");
        h.name = string_id(in, false);
        h.handle = in.u64();
        t.add_heap(h);
      }
    }
    {
      ByteReader in = table(Section::kBuckets, kBucketBytes);
      const std::uint64_t n = entry(Section::kBuckets).items;
      // Viewed in place and checked beside (check_buckets), or loaded and
      // checked here.
      if constexpr (kBucketsViewable) t.view_buckets(view_as<Bucket>(in.rest_view(), n));
      else walk_buckets(in, n, &t);
    }
    return t;
  }

  // The bucket records' ids and flags (viewed buckets only; loaded ones are
  // checked as they load): a tight scan, then, when it fails, the record by
  // record walk to name the first bad one.
  void check_buckets() const {
    if constexpr (kBucketsViewable) {
      ByteReader in = table(Section::kBuckets, kBucketBytes);
      const std::uint64_t n = entry(Section::kBuckets).items;
      const std::uint64_t stacks = entry(Section::kStacks).items, heaps = entry(Section::kHeaps).items;
      const bool valid = scan_checked(Section::kBuckets, kBucketBytes, [&](std::string_view piece, std::uint64_t) {
        return buckets_valid(piece, piece.size() / kBucketBytes, stacks, heaps);
      });
      if (valid) return;
      walk_buckets(in, n, nullptr);
      in.fail("internal error: the bucket scan and the bucket loop disagree");
    } else {
      verify(Section::kBuckets);  // loaded record by record, and checked then
    }
  }

  // A fixed-width table's checksum and a scan of its records in one pass,
  // piece by piece, each scanned while the checksum has just brought it into
  // the cache: `scan(piece, index of its first record)` says whether the
  // piece is valid. Damage is reported before the records' validity.
  template <class Scan>
  bool scan_checked(Section kind, std::uint64_t record_bytes, Scan&& scan) const {
    const Entry& e = entry(kind);
    const std::string_view section = bytes_.substr(e.offset, e.bytes);
    constexpr std::uint64_t kPieceRecords = 4096;
    Checksum checksum;
    bool valid = true;
    for (std::uint64_t first = 0; first * record_bytes < section.size(); first += kPieceRecords) {
      const std::string_view piece = section.substr(first * record_bytes, kPieceRecords * record_bytes);
      checksum.add(piece.data(), piece.size());
      valid &= scan(piece, first);
    }
    if (checksum.value() != e.checksum) damaged(kind);
    return valid;
  }

  void walk_buckets(ByteReader& in, std::uint64_t n, TraceTables* load_into) const {
    const std::uint64_t stacks = entry(Section::kStacks).items, heaps = entry(Section::kHeaps).items;
    for (std::uint64_t i = 0; i < n; ++i) {
      Bucket b;
      b.size = in.u64();
      b.stack = StackId(in.u32());
      b.heap = HeapId(in.u32());
      b.thread = in.u32();
      const std::uint8_t kind = in.u8();
      const std::uint8_t realloc = in.u8();
      const std::uint16_t padding = in.u16();
      if (b.stack.valid() && b.stack.value >= stacks) in.fail("a bucket's stack out of range");
      if (b.heap.valid() && b.heap.value >= heaps) in.fail("a bucket's heap out of range");
      if (kind > 1 || realloc > 1 || padding != 0) in.fail("a bucket with an unknown kind or flag");
      b.kind = BlockKind(kind);
      b.is_realloc = realloc == 1;
      if (load_into != nullptr) load_into->load_bucket(b);
    }
  }

  template <class T>
  std::span<const T> column(Section kind) const {
    const Entry& e = entry(kind);
    table(kind, sizeof(T));
    return {reinterpret_cast<const T*>(bytes_.data() + e.offset), static_cast<std::size_t>(e.items)};
  }

  // What replay cannot check cheaply as it goes.
  void check_column_lengths(const StoreColumns& c) const {
    if (c.alloc_seq.size() != c.bucket.size()) {
      fail("the block columns differ in length", entry(Section::kBlockAllocSeq).offset);
    }
    if (c.event_count != c.bucket.size() + c.free_order.size()) {
      fail("the event count is not the allocations plus the frees", entry(Section::kSource).offset);
    }
    for (std::size_t i = 1; i < c.time_changes.size(); ++i) {
      if (c.time_changes[i].first_seq <= c.time_changes[i - 1].first_seq) {
        fail("time changes are out of order", entry(Section::kTimeChanges).offset + i * sizeof(TimeChange));
      }
    }
  }

  // The bucket sums must add up to the columns, each bucket once, so that
  // an answer from them is the replay's. Checked when a query reads them.
  void check_bucket_sums(const StoreColumns& c) const {
    std::vector<bool> seen(bucket_count_, false);
    std::uint64_t allocs = 0, frees = 0;
    const std::uint64_t sums_at = entry(Section::kBucketSums).offset;
    for (std::size_t i = 0; i < c.bucket_sums.size(); ++i) {
      const BucketSum& s = c.bucket_sums[i];
      if (s.bucket >= bucket_count_ || seen[s.bucket] || s.allocs == 0 || s.allocs > c.bucket.size() || s.frees > s.allocs ||
          s.temporary_frees > s.frees || s.live_at_peak > s.allocs) {
        fail("a bucket sum that does not fit the tables", sums_at + i * sizeof(BucketSum));
      }
      seen[s.bucket] = true;
      allocs += s.allocs;
      frees += s.frees;
    }
    if (allocs != c.bucket.size() || frees != c.free_order.size()) {
      fail("the bucket sums do not add up to the blocks and frees", sums_at);
    }
  }

  std::string_view bytes_;
  std::string name_;
  std::uint32_t version_ = 0;
  std::size_t bucket_count_ = 0;
  std::array<Entry, kSectionKinds> entries_{};
};

}  // namespace

bool is_store_file(const std::string& path) {
  return file_begins_with(path, std::string_view(kMagic.data(), kMagic.size()));
}

OpenedStore read_store_bytes(std::shared_ptr<const void> owner, std::string_view bytes, const std::string& name) {
  return Opener(bytes, name).open(std::move(owner));
}

OpenedStore read_store_file(const std::string& path) {
  MappedFile mapped = map_file(path, "a heapql store");
  return read_store_bytes(std::move(mapped.owner), mapped.bytes, path);
}

StoreFileInfo peek_store_file(const std::string& path) {
  return Opener(map_file(path, "a heapql store").bytes, path).peek();
}

}  // namespace heapql::store_file
