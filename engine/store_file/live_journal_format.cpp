// The live journal's segments, written and read (live_journal_format.h).
#include "engine/store_file/live_journal_format.h"

#include "engine/store/packed_column_writer.h"

#include <cstdint>
#include <cstring>
#include <algorithm>
#include <array>
#include <deque>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "engine/error.h"
#include "engine/binary_file/byte_codec.h"
#include "engine/binary_file/checksum.h"
#include "engine/binary_file/mapped_file.h"
#include "engine/binary_file/varint.h"
#include "engine/store_file/source_record.h"
#include "engine/store_file/store_format.h"
#include "engine/store_file/table_records.h"

namespace heapql::store_file {

namespace {

// A part's head: u32 kind, u32 zero, u64 items, u64 bytes; its bytes follow,
// then zeros to a multiple of 8.
constexpr std::uint64_t kPartHeadBytes = 24;

namespace segment_at = live_segment_at;

template <class T>
void put(std::string& out, std::size_t at, T value) {
  std::memcpy(out.data() + at, &value, sizeof(T));
}
template <class T>
T get(const char* bytes, std::size_t at) {
  T value;
  std::memcpy(&value, bytes + at, sizeof(T));
  return value;
}

// Appends a part whose bytes `fill` appends (and returns how many items).
template <class Fill>
void append_part(std::string& out, std::uint32_t kind, Fill&& fill) {
  const std::size_t head = out.size();
  out.resize(head + kPartHeadBytes);
  const std::uint64_t items = fill();
  const std::uint64_t bytes = out.size() - head - kPartHeadBytes;
  out.resize(out.size() + (8 - bytes % 8) % 8, '\0');
  put<std::uint32_t>(out, head, kind);
  put<std::uint32_t>(out, head + 4, 0);
  put<std::uint64_t>(out, head + 8, items);
  put<std::uint64_t>(out, head + 16, bytes);
}

template <class T>
void append_column(std::string& out, Section kind, std::span<const T> rows) {
  if (rows.empty()) return;
  append_part(out, static_cast<std::uint32_t>(kind), [&] {
    out.append(reinterpret_cast<const char*>(rows.data()), rows.size_bytes());
    return rows.size();
  });
}

template <class T>
void raw(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// The bucket sums that changed, as varints (most counts are small, and
// buckets mostly come in the order of their ids): per sum its bucket less
// the one before (zigzag), its blocks, frees, temporary frees, and blocks
// alive at the peak.
void append_sums(std::string& out, std::span<const BucketSum> sums) {
  if (sums.empty()) return;
  append_part(out, static_cast<std::uint32_t>(Section::kBucketSums), [&] {
    std::int64_t previous = 0;
    for (const BucketSum& sum : sums) {
      put_varint(out, zigzag(static_cast<std::int64_t>(sum.bucket) - previous));
      previous = sum.bucket;
      put_varint(out, sum.allocs);
      put_varint(out, sum.frees);
      put_varint(out, sum.temporary_frees);
      put_varint(out, sum.live_at_peak);
    }
    return sums.size();
  });
}

// A block column's new values: those that fill whole blocks of 64 packed as
// a column of their own (packed_column.h), the rest (the tail) plain; the
// writer sends the tail again, in the next segment, with what follows it.
void append_packed_column(std::string& out, Section kind, std::span<const std::uint32_t> values, unsigned rotation) {
  if (values.empty()) return;
  append_part(out, static_cast<std::uint32_t>(kind), [&] {
    const std::size_t whole = live_packed_values(values.size());
    std::vector<std::uint64_t> words;
    PackedColumnWriter<std::vector<std::uint64_t>> packer(words, rotation);
    for (std::size_t i = 0; i < whole; ++i) packer.push_back(values[i]);
    packer.finish();
    raw<std::uint64_t>(out, whole);
    out.append(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(std::uint64_t));
    out.append(reinterpret_cast<const char*>(values.data() + whole), (values.size() - whole) * sizeof(std::uint32_t));
    return values.size();
  });
}

}  // namespace

void append_live_segment(std::string& out, std::uint32_t number, const SourceInfo* reading,
                         const LiveSegmentRows& rows) {
  const std::size_t start = out.size();
  out.resize(start + kLiveSegmentHeaderBytes);
  const TraceTables& t = *rows.tables;
  if (reading != nullptr) {
    append_part(out, static_cast<std::uint32_t>(Section::kSource), [&] {
      SourceRecord record;
      record.info = *reading;
      out += encode_source_record(record);
      return std::uint64_t{1};
    });
  }
  if (rows.first_string < t.string_count()) {
    append_part(out, static_cast<std::uint32_t>(Section::kStrings), [&] {
      for (std::size_t i = rows.first_string; i < t.string_count(); ++i) {
        const std::string_view s = t.string(StringId(static_cast<std::uint32_t>(i)));
        raw<std::uint64_t>(out, s.size());
        out.append(s);
      }
      return t.string_count() - rows.first_string;
    });
  }
  if (rows.first_frame < t.frame_count()) {
    append_part(out, static_cast<std::uint32_t>(Section::kFrames), [&] {
      for (std::size_t i = rows.first_frame; i < t.frame_count(); ++i) {
        const Frame& f = t.frame(FrameId(static_cast<std::uint32_t>(i)));
        raw(out, f.module.value), raw(out, f.symbol.value), raw(out, f.address);
      }
      return t.frame_count() - rows.first_frame;
    });
  }
  if (rows.first_stack < t.stack_count()) {
    append_part(out, static_cast<std::uint32_t>(Section::kStacks), [&] {
      for (std::size_t i = rows.first_stack; i < t.stack_count(); ++i) {
        raw(out, t.stack(StackId(static_cast<std::uint32_t>(i))));
      }
      return t.stack_count() - rows.first_stack;
    });
  }
  if (rows.first_process < t.process_count()) {
    append_part(out, static_cast<std::uint32_t>(Section::kProcesses), [&] {
      for (std::size_t i = rows.first_process; i < t.process_count(); ++i) {
        const Process& p = t.process(ProcessId(static_cast<std::uint32_t>(i)));
        raw(out, p.pid), raw(out, p.name.value), raw(out, std::uint32_t{0});
      }
      return t.process_count() - rows.first_process;
    });
  }
  if (rows.first_heap < t.heap_count()) {
    append_part(out, static_cast<std::uint32_t>(Section::kHeaps), [&] {
      for (std::size_t i = rows.first_heap; i < t.heap_count(); ++i) {
        const Heap& h = t.heap(HeapId(static_cast<std::uint32_t>(i)));
        raw(out, h.process.value), raw(out, h.name.value), raw(out, h.handle);
      }
      return t.heap_count() - rows.first_heap;
    });
  }
  if (rows.first_bucket < t.bucket_count()) {
    append_part(out, static_cast<std::uint32_t>(Section::kBuckets), [&] {
      for (std::size_t i = rows.first_bucket; i < t.bucket_count(); ++i) {
        const Bucket& b = t.bucket(BucketId(static_cast<std::uint32_t>(i)));
        raw(out, b.size), raw(out, b.stack.value), raw(out, b.heap.value), raw(out, b.thread);
        raw(out, static_cast<std::uint8_t>(b.kind)), raw(out, static_cast<std::uint8_t>(b.is_realloc ? 1 : 0));
        raw(out, std::uint16_t{0});
      }
      return t.bucket_count() - rows.first_bucket;
    });
  }
  append_packed_column(out, Section::kBlockBucket, rows.block_buckets, 0);
  append_packed_column(out, Section::kBlockAllocSeq, rows.alloc_seqs, 0);
  append_packed_column(out, Section::kFreeOrder, rows.frees, StoreColumns::kFreeRotation);
  append_column(out, Section::kTimeChanges, rows.time_changes);
  append_sums(out, rows.changed_sums);
  append_part(out, kLiveProgressPart, [&] {
    raw(out, rows.events);
    raw(out, rows.time_ns);
    raw(out, rows.peak.bytes);
    raw(out, rows.peak.blocks);
    raw(out, rows.peak.time_ns);
    raw(out, rows.has_bucket_sums ? kLiveHasBucketSums : std::uint64_t{0});
    return std::uint64_t{1};
  });
  const std::uint64_t payload = out.size() - start - kLiveSegmentHeaderBytes;
  std::memcpy(out.data() + start, kLiveJournalMagic, sizeof(kLiveJournalMagic));
  put<std::uint32_t>(out, start + segment_at::kVersion, kLiveJournalVersion);
  put<std::uint32_t>(out, start + segment_at::kNumber, number);
  put<std::uint64_t>(out, start + segment_at::kPayloadBytes, payload);
  put<std::uint64_t>(out, start + segment_at::kPayloadChecksum,
                     checksum_of(out.data() + start + kLiveSegmentHeaderBytes, payload));
  put<std::uint64_t>(out, start + segment_at::kHeaderChecksum, checksum_of(out.data() + start, segment_at::kHeaderChecksum));
}

namespace {

// A journal's bytes, 8-aligned, and what keeps them: a file mapped, or a
// copy of bytes in memory. The store views its stack and bucket tables'
// whole chunks where they lie; the rest (the columns, the other tables) is
// copied once, into the store: a segment read into a buffer of its own
// first cost as many page faults again, a third of a query's time.
struct JournalBytes {
  std::string_view bytes;
  std::shared_ptr<const void> owner;
  std::uint64_t size() const { return bytes.size(); }
  // Copies [at, at + n) into `into`; false when fewer bytes were there.
  bool read(std::uint64_t at, std::size_t n, char* into) const {
    if (at > bytes.size() || n > bytes.size() - at) return false;
    std::memcpy(into, bytes.data() + at, n);
    return true;
  }
};

// A part's records where they lie: the journal's bytes are 8-aligned and
// so is every part.
template <class Row>
std::span<const Row> rows_in_place(std::string_view data) {
  static_assert(alignof(Row) <= 8);
  if (reinterpret_cast<std::uintptr_t>(data.data()) % alignof(Row) != 0) {
    throw Error("internal error: a live journal's part is not aligned");
  }
  return {reinterpret_cast<const Row*>(data.data()), data.size() / sizeof(Row)};
}

// A block column gathered from the segments' packed parts: their blocks'
// words one after another and their directory entries, each moved on by
// the words before it; and the latest part's tail. finish() makes it the
// store's column: the parts' words copied (found where they lie until then,
// and copied only when a query first reads the column: a whole-trace
// answer from the sums never does), the tail packed as the last block,
// then the directory.
class JournalColumn {
 public:
  explicit JournalColumn(unsigned rotation) : rotation_(rotation) {}

  std::uint64_t size() const { return packed_values_ + tail_.size(); }

  // A part's bytes: u64 packed values, a packed column of them, the tail.
  // Empty text when it fits; else what is wrong, and where (its byte).
  std::string add(std::string_view data, std::uint64_t items, std::uint64_t& wrong_at) {
    wrong_at = 0;
    if (data.size() < 8) return "a packed column part without its count";
    const auto packed = get<std::uint64_t>(data.data(), 0);
    if (packed > items || packed % PackedColumn::kBlockValues != 0) {
      return fmt::format("{} packed values of {}, not whole blocks of {}", packed, items, PackedColumn::kBlockValues);
    }
    const std::uint64_t tail = items - packed;
    if (tail > (data.size() - 8) / 4 || (data.size() - 8 - tail * 4) % 8 != 0) {
      return fmt::format("{} bytes do not hold {} packed values and {} more", data.size(), packed, tail);
    }
    const std::size_t word_count = (data.size() - 8 - tail * 4) / 8;
    // Read where they lie (the journal's parts start at multiples of 8).
    const std::span<const std::uint64_t> words =
        rows_in_place<std::uint64_t>(data.substr(8, word_count * 8));
    PackedColumn column;
    if (std::string wrong = PackedColumn::view(words, packed, rotation_, column); !wrong.empty()) return wrong;
    // The directory: each block's words within the part's, at most 32.
    const std::uint64_t blocks = PackedColumn::block_count(packed);
    const std::uint64_t packed_words = word_count - blocks - 1;
    for (std::uint64_t k = 0; k < blocks; ++k) {
      const std::uint64_t first = words[packed_words + k] >> 32, end = words[packed_words + k + 1] >> 32;
      if (!PackedColumn::block_lies_within(first, end, packed_words)) {
        wrong_at = 8 + (packed_words + k) * 8;
        return fmt::format("block {} of a packed column part has a width past {} bits or runs past its words", k,
                           PackedColumn::kMaxWidth);
      }
    }
    if (word_count_ + packed_words > 0xFFFFFFFFu) return "a packed column of more than 2^32-1 words";
    const std::uint64_t moved = word_count_;
    for (std::uint64_t k = 0; k < blocks; ++k) {
      const std::uint64_t entry = words[packed_words + k];
      directory_.push_back(PackedColumn::directory_entry(static_cast<std::uint32_t>(entry),
                                                         static_cast<std::uint32_t>((entry >> 32) + moved)));
    }
    pieces_.push_back(words.first(packed_words));
    word_count_ += packed_words;
    packed_values_ += packed;
    tail_.resize(tail);
    if (tail != 0) std::memcpy(tail_.data(), data.data() + 8 + word_count * 8, tail * 4);  // (no null pointer)
    return {};
  }

  // The store's column, viewing this one's words (once).
  PackedColumn finish() {
    words_.reserve(word_count_ + PackedColumn::kMaxWidth * 2 + directory_.size() + 2);
    for (const std::span<const std::uint64_t> piece : pieces_) words_.insert(words_.end(), piece.begin(), piece.end());
    std::vector<std::span<const std::uint64_t>>().swap(pieces_);
    if (!tail_.empty()) {
      std::vector<std::uint64_t> last;
      PackedColumnWriter<std::vector<std::uint64_t>> packer(last, rotation_);
      for (const std::uint32_t v : tail_) packer.push_back(v);
      packer.finish();
      const std::size_t packed_words = last.size() - 2;  // one block's words, its entry, the end
      directory_.push_back(PackedColumn::directory_entry(static_cast<std::uint32_t>(last[packed_words]),
                                                         static_cast<std::uint32_t>(words_.size())));
      words_.insert(words_.end(), last.begin(), last.begin() + static_cast<std::ptrdiff_t>(packed_words));
    }
    const std::uint64_t count = size();
    const std::uint64_t packed_words = words_.size();
    words_.insert(words_.end(), directory_.begin(), directory_.end());
    words_.push_back(PackedColumn::directory_entry(0, static_cast<std::uint32_t>(packed_words)));
    std::vector<std::uint64_t>().swap(directory_);
    PackedColumn column;
    if (const std::string wrong = PackedColumn::view(words_, count, rotation_, column); !wrong.empty()) {
      throw Error("internal error: a live journal's column: " + wrong);
    }
    return column;
  }

 private:
  unsigned rotation_;
  std::vector<std::span<const std::uint64_t>> pieces_;  // each part's packed words, where they lie
  std::uint64_t word_count_ = 0;                        // theirs
  std::vector<std::uint64_t> words_;      // the packed blocks' words, once finished
  std::vector<std::uint64_t> directory_;  // theirs, first words counted in words_
  std::uint64_t packed_values_ = 0;
  std::vector<std::uint32_t> tail_;
};

// The store's columns, gathered from every segment, and the journal's bytes:
// the store views them, and keeps this alive.
struct JournalColumns {
  std::shared_ptr<const void> bytes_owner;  // the stack and bucket tables' chunks are viewed in place
  std::deque<std::string> string_parts;     // the strings are viewed in place
  JournalColumn bucket{0}, alloc_seq{0}, free_order{StoreColumns::kFreeRotation};
  std::vector<TimeChange> time_changes;
  // In order of first allocation: 16 bytes a bucket, not a BucketSum's 32
  // (the array is fresh memory on every query: a sixth of one, at 32).
  std::vector<NarrowBucketSum> sums;
  std::vector<std::uint32_t> sum_buckets;  // each sum's bucket, or none while sum i is bucket i's
};

static_assert(sizeof(StackNode) == kStackBytes && sizeof(Bucket) == kBucketBytes && sizeof(bool) == 1);

// A stack or bucket table as the segments so far sent it: its whole chunks
// where they lie, and the rows past them of the latest part (sent again,
// with the new ones, by the next segment that has new rows).
template <class Row, std::size_t kChunkRows>
struct JournalTable {
  std::vector<std::span<const Row>> chunks;
  std::span<const Row> rest;
  std::size_t whole_rows() const { return chunks.size() * kChunkRows; }
  std::size_t size() const { return whole_rows() + rest.size(); }
  // A part's rows, the first at whole_rows(): its whole chunks join the
  // table, its rest replaces the one before.
  void add(std::span<const Row> rows) {
    const std::size_t whole = rows.size() - rows.size() % kChunkRows;
    for (std::size_t at = 0; at < whole; at += kChunkRows) chunks.push_back(rows.subspan(at, kChunkRows));
    rest = rows.subspan(whole);
  }
};


// A bucket sum's five fields, a varint byte each at least.
constexpr std::uint64_t kLeastSumBytes = 5;

class JournalParser {
 public:
  JournalParser(std::string name, bool writer_alive)
      : name_(std::move(name)), writer_alive_(writer_alive), columns_(std::make_shared<JournalColumns>()) {}

  LiveJournalRead parse(const JournalBytes& in) {
    columns_->bytes_owner = in.owner;
    reserve_tables(in);
    std::array<char, kLiveSegmentHeaderBytes> header{};
    std::uint64_t at = 0;
    while (at < in.size()) {
      if (in.size() - at < kLiveSegmentHeaderBytes) {
        if (tail(at, "a segment header cut short")) break;
      }
      if (!in.read(at, header.size(), header.data())) {
        if (tail(at, "a segment header cut short")) break;
      }
      if (std::memcmp(header.data(), kLiveJournalMagic, sizeof(kLiveJournalMagic)) != 0) {
        if (tail(at, segments_ == 0 ? "not a heapql live journal (its magic is wrong)"
                                    : "a segment whose magic is wrong")) {
          break;
        }
      }
      if (get<std::uint64_t>(header.data(), segment_at::kHeaderChecksum) !=
          checksum_of(header.data(), segment_at::kHeaderChecksum)) {
        if (tail(at, "a segment header whose checksum does not match")) break;
      }
      if (const auto version = get<std::uint32_t>(header.data(), segment_at::kVersion); version != kLiveJournalVersion) {
        fail(at, fmt::format("live journal version {}; this heapql reads version {}", version, kLiveJournalVersion));
      }
      if (const auto number = get<std::uint32_t>(header.data(), segment_at::kNumber); number != segments_) {
        fail(at, fmt::format("segment number {} where segment {} belongs", number, segments_));
      }
      const auto bytes = get<std::uint64_t>(header.data(), segment_at::kPayloadBytes);
      if (bytes > in.size() - at - kLiveSegmentHeaderBytes) {
        if (tail(at, fmt::format("a segment of {} bytes runs past the end of the file ({} bytes)", bytes, in.size()))) {
          break;
        }
      }
      if (bytes % 8 != 0) fail(at, fmt::format("a segment of {} bytes, not a multiple of 8", bytes));
      const std::string_view payload = in.bytes.substr(at + kLiveSegmentHeaderBytes, bytes);  // within: checked above
      if (checksum_of(payload.data(), payload.size()) != get<std::uint64_t>(header.data(), segment_at::kPayloadChecksum)) {
        if (tail(at, "a segment whose checksum does not match")) break;
      }
      read_parts(payload, at + kLiveSegmentHeaderBytes);
      at += kLiveSegmentHeaderBytes + bytes;
      ++segments_;
      bytes_used_ = at;
    }
    if (segments_ == 0) fail(0, "no whole segment yet: nothing was published");
    return finish(in.size());
  }

 private:
  // The sums grow by every segment; reserved at once from the part heads
  // (a look at each, nothing checked), they are not copied as they grow.
  // What a head says is bounded by the file's size.
  void reserve_tables(const JournalBytes& in) {
    std::uint64_t buckets = 0;
    std::array<char, kPartHeadBytes> head{};
    for (std::uint64_t at = 0; in.size() - at >= kLiveSegmentHeaderBytes;) {
      std::uint64_t payload = 0;
      if (!in.read(at + segment_at::kPayloadBytes, sizeof(payload), reinterpret_cast<char*>(&payload)) ||
          payload > in.size() - at - kLiveSegmentHeaderBytes) {
        break;
      }
      const std::uint64_t end = at + kLiveSegmentHeaderBytes + payload;
      for (std::uint64_t part = at + kLiveSegmentHeaderBytes; end - part >= kPartHeadBytes;) {
        if (!in.read(part, head.size(), head.data())) break;
        const auto kind = get<std::uint32_t>(head.data(), 0);
        const auto bytes = get<std::uint64_t>(head.data(), 16);
        if (kind == static_cast<std::uint32_t>(Section::kBuckets)) buckets += bytes / kBucketBytes;
        if (bytes > end - part - kPartHeadBytes) break;
        part += kPartHeadBytes + (bytes + 7) / 8 * 8;
      }
      at = end;
    }
    // A bucket has one sum at most (its latest), of five varints at least
    // (its rows are counted once for every part that sent them).
    columns_->sums.reserve(std::min(buckets, in.size() / kLeastSumBytes));
  }

  // A segment that is not (or not wholly) there: not yet written while the
  // writer is alive (true: stop here), else damage.
  bool tail(std::uint64_t at, const std::string& what) {
    if (writer_alive_) return true;
    fail(at, what);
  }
  [[noreturn]] void fail(std::uint64_t at, const std::string& what) const {
    SourceLocation where = SourceLocation::of_file(name_);
    where.byte_offset = at;
    throw Error(where, what);
  }

  void read_parts(std::string_view payload, std::uint64_t base) {
    std::uint64_t at = 0;
    std::uint32_t previous_kind = 0;
    bool progress = false;
    bool have_sums = false;
    while (at < payload.size()) {
      if (payload.size() - at < kPartHeadBytes) fail(base + at, "a part head cut short");
      const auto kind = get<std::uint32_t>(payload.data(), at);
      const auto zero = get<std::uint32_t>(payload.data(), at + 4);
      const auto items = get<std::uint64_t>(payload.data(), at + 8);
      const auto bytes = get<std::uint64_t>(payload.data(), at + 16);
      const std::uint64_t part_at = base + at;
      if (zero != 0) fail(part_at, "a part head's padding is not zero");
      if (kind <= previous_kind) fail(part_at, fmt::format("a part of kind {} after one of kind {}", kind, previous_kind));
      if (progress) fail(part_at, "a part after the progress");
      previous_kind = kind;
      if (bytes > payload.size() - at - kPartHeadBytes) fail(part_at, fmt::format("a part of {} bytes runs past its segment", bytes));
      const std::string_view data(payload.data() + at + kPartHeadBytes, bytes);
      const auto need = [&](std::uint64_t item_bytes, const char* what) {
        if (items > bytes / item_bytes || items * item_bytes != bytes) {
          fail(part_at, fmt::format("{} bytes of {} do not hold {} of them", bytes, what, items));
        }
      };
      const std::uint64_t data_at = part_at + kPartHeadBytes;
      if (segments_ == 0 && previous_kind != static_cast<std::uint32_t>(Section::kSource) && !source_) {
        fail(part_at, "the first segment does not start with the source");
      }
      switch (kind) {
        case static_cast<std::uint32_t>(Section::kSource): {
          if (segments_ != 0) fail(part_at, "a source part past the first segment");
          ByteReader in(data, name_, "source", data_at);
          source_ = decode_source_record(in);
          break;
        }
        case static_cast<std::uint32_t>(Section::kStrings): read_strings(data, items, data_at); break;
        case static_cast<std::uint32_t>(Section::kFrames): need(kFrameBytes, "frames"); read_frames(data, data_at); break;
        case static_cast<std::uint32_t>(Section::kStacks): {
          need(kStackBytes, "stacks");
          const std::span<const StackNode> rows = rows_in_place<StackNode>(data);
          check_table_part(stacks_, rows.size(), part_at, "stack nodes");
          const std::size_t first = stacks_.whole_rows();
          if (const auto bad = first_bad_stack_node(rows, first, tables_.frame_count())) {
            fail(data_at + (bad->index - first) * kStackBytes, fmt::format("a stack node: {}", bad->what));
          }
          stacks_.add(rows);
          break;
        }
        case static_cast<std::uint32_t>(Section::kProcesses): need(kProcessBytes, "processes"); read_processes(data, data_at); break;
        case static_cast<std::uint32_t>(Section::kHeaps): need(kHeapBytes, "heaps"); read_heaps(data, data_at); break;
        case static_cast<std::uint32_t>(Section::kBuckets): {
          need(kBucketBytes, "buckets");
          check_table_part(buckets_, items, part_at, "buckets");
          const std::size_t first = buckets_.whole_rows();
          if (const auto bad = first_bad_bucket(data, first, stacks_.size(), tables_.heap_count())) {
            fail(data_at + (bad->index - first) * kBucketBytes, fmt::format("a bucket: {}", bad->what));
          }
          buckets_.add(rows_in_place<Bucket>(data));
          break;
        }
        case static_cast<std::uint32_t>(Section::kBlockBucket): add_packed(columns_->bucket, data, items, data_at); break;
        case static_cast<std::uint32_t>(Section::kBlockAllocSeq): add_packed(columns_->alloc_seq, data, items, data_at); break;
        case static_cast<std::uint32_t>(Section::kFreeOrder): add_packed(columns_->free_order, data, items, data_at); break;
        case static_cast<std::uint32_t>(Section::kTimeChanges): {
          need(sizeof(TimeChange), "time changes");
          const std::size_t first = columns_->time_changes.size();
          append_rows(columns_->time_changes, data);
          for (std::size_t i = std::max<std::size_t>(first, 1); i < columns_->time_changes.size(); ++i) {
            if (columns_->time_changes[i].first_seq <= columns_->time_changes[i - 1].first_seq) {
              fail(data_at + (i - first) * sizeof(TimeChange), "time changes out of order");
            }
          }
          break;
        }
        case static_cast<std::uint32_t>(Section::kBucketSums): {
          if (segments_ == 0) fail(part_at, "bucket sums in the first segment, before any event");
          read_sums(data, items, data_at);
          have_sums = true;
          break;
        }
        case kLiveProgressPart: {
          need(kLiveProgressBytes, "progress");
          if (items != 1) fail(part_at, "a progress part that is not one record");
          const auto events = get<std::uint64_t>(data.data(), 0);
          const auto time_ns = get<std::int64_t>(data.data(), 8);
          const TracePeak peak{get<std::uint64_t>(data.data(), 16), get<std::uint64_t>(data.data(), 24),
                               get<std::int64_t>(data.data(), 32)};
          const auto flags = get<std::uint64_t>(data.data(), 40);
          if (columns_->alloc_seq.size() != columns_->bucket.size()) {
            fail(part_at, fmt::format("{} allocation times for {} blocks", columns_->alloc_seq.size(),
                                      columns_->bucket.size()));
          }
          if (events != columns_->bucket.size() + columns_->free_order.size()) {
            fail(data_at, fmt::format("{} events so far, not the {} blocks plus the {} frees", events,
                                      columns_->bucket.size(), columns_->free_order.size()));
          }
          if (time_ns < time_ns_) fail(data_at, "a time so far earlier than the segment before's");
          if ((flags & ~kLiveHasBucketSums) != 0) fail(data_at + 40, fmt::format("unknown progress flags {:#x}", flags));
          const bool has_sums = (flags & kLiveHasBucketSums) != 0;
          if (segments_ == 0) {
            has_sums_ = has_sums;
          } else if (has_sums != has_sums_) {
            fail(data_at + 40, "a segment that differs from the first on whether the journal carries bucket sums");
          }
          if (have_sums && !has_sums_) fail(part_at, "bucket sums in a journal that says it carries none");
          if (has_sums_) check_sums_add_up(events, peak, data_at);
          events_ = events;
          time_ns_ = time_ns;
          peak_ = peak;
          progress = true;
          break;
        }
        default: fail(part_at, fmt::format("a part of unknown kind {}", kind));
      }
      at += kPartHeadBytes + (bytes + 7) / 8 * 8;
      if (at > payload.size()) fail(part_at, "a part's padding runs past its segment");
    }
    if (!progress) fail(base, "a segment without its progress");
    if (!source_) fail(base, "the first segment does not start with the source");
  }

  // A stacks or buckets part starts at the table's last whole chunk and
  // holds at least the rows the one before sent past it: a table never
  // loses a row that another part may refer to.
  template <class Table>
  void check_table_part(const Table& table, std::uint64_t rows, std::uint64_t part_at,
                        std::string_view what) const {
    if (rows < table.rest.size()) {
      fail(part_at, fmt::format("{} {} from row {}, fewer than the {} the segment before sent from there", rows, what,
                                table.whole_rows(), table.rest.size()));
    }
  }

  template <class T>
  static void append_rows(std::vector<T>& to, std::string_view data) {
    const std::size_t first = to.size();
    to.resize(first + data.size() / sizeof(T));
    if (!data.empty()) std::memcpy(reinterpret_cast<char*>(to.data() + first), data.data(), data.size());
  }

  StringId string_id(std::uint32_t id, bool optional, std::uint64_t at) const {
    if (!(optional && id == StringId().value) && id >= tables_.string_count()) fail(at, "a string id out of range");
    return StringId(id);
  }

  void read_strings(std::string_view data, std::uint64_t items, std::uint64_t data_at) {
    const std::string& kept = columns_->string_parts.emplace_back(data);
    std::uint64_t at = 0;
    for (std::uint64_t i = 0; i < items; ++i) {
      if (kept.size() - at < 8) fail(data_at + at, "a string runs past its part");
      const auto n = get<std::uint64_t>(kept.data(), at);
      if (n > kept.size() - at - 8) fail(data_at + at, "a string runs past its part");
      const std::string_view text(kept.data() + at + 8, n);
      if (!first_string_seen_) {
        if (text != "?") fail(data_at + at, "the first string is not '?'");
        first_string_seen_ = true;
      } else {
        tables_.load_string(text);
      }
      at += 8 + n;
    }
    if (at != kept.size()) fail(data_at + at, "bytes after the last string");
  }

  void read_frames(std::string_view data, std::uint64_t data_at) {
    for (std::size_t at = 0; at < data.size(); at += kFrameBytes) {
      const StringId module = string_id(get<std::uint32_t>(data.data(), at), false, data_at + at);
      const StringId symbol = string_id(get<std::uint32_t>(data.data(), at + 4), true, data_at + at);
      const auto address = get<std::uint64_t>(data.data(), at + 8);
      if (symbol.valid() && address != 0) fail(data_at + at, "a frame with a symbol and an address");
      tables_.load_frame(Frame{module, symbol, address});
    }
  }

  void add_packed(JournalColumn& column, std::string_view data, std::uint64_t items, std::uint64_t data_at) {
    std::uint64_t wrong_at = 0;
    if (const std::string wrong = column.add(data, items, wrong_at); !wrong.empty()) fail(data_at + wrong_at, wrong);
  }

  // Each bucket's latest sum replaces its one before; a bucket new to the
  // sums goes after the others (the order of first allocation). A sum
  // never goes down: counts only grow.
  // Decoded a few ahead of their turn: the sums a part changes are spread
  // over every bucket, so each one's place is asked for as it is decoded
  // (a miss each, waited for together, not one after another). A part is
  // not decoded whole first: that buffer, written and read back, cost more
  // than the misses.
  void read_sums(std::string_view data, std::uint64_t items, std::uint64_t data_at) {
    constexpr std::size_t kAhead = 16;
    std::array<DecodedSum, kAhead> ahead{};
    std::size_t next = 0;
    std::int64_t previous = 0;
    for (std::uint64_t i = 0; i < items; ++i) {
      DecodedSum& slot = ahead[i % kAhead];
      if (i >= kAhead) apply_sum(slot, data_at);
      slot.at = next;
      std::uint64_t fields[5];
      for (std::uint64_t& field : fields) {
        if (!take_varint(data, next, field)) fail(data_at + next, "a bucket sum cut short or past 64 bits");
      }
      const std::int64_t bucket = previous + unzigzag(fields[0]);
      // Counts fit 32 bits: they add up to the blocks and frees (checked
      // with the progress), fewer than 2^31.
      if (bucket < 0 || static_cast<std::uint64_t>(bucket) >= buckets_.size() || fields[1] > 0xFFFFFFFFu ||
          fields[2] > 0xFFFFFFFFu || fields[3] > 0xFFFFFFFFu || fields[4] > 0xFFFFFFFFu) {
        fail(data_at + slot.at, "a bucket sum that does not fit the tables");
      }
      previous = bucket;
      slot.bucket = static_cast<std::uint32_t>(bucket);
      slot.sum = NarrowBucketSum{static_cast<std::uint32_t>(fields[1]), static_cast<std::uint32_t>(fields[2]),
                                 static_cast<std::uint32_t>(fields[3]), static_cast<std::uint32_t>(fields[4])};
      const NarrowBucketSum& s = slot.sum;
      if (s.allocs == 0 || s.frees > s.allocs || s.temporary_frees > s.frees || s.live_at_peak > s.allocs) {
        fail(data_at + slot.at, "a bucket sum that does not fit the tables");
      }
      if (sums_in_id_order_ && slot.bucket < columns_->sums.size()) __builtin_prefetch(&columns_->sums[slot.bucket]);
    }
    for (std::uint64_t i = items > kAhead ? items - kAhead : 0; i < items; ++i) apply_sum(ahead[i % kAhead], data_at);
    if (next != data.size()) fail(data_at + next, "bytes after the last bucket sum");
  }

  struct DecodedSum {
    std::uint32_t bucket = 0;
    NarrowBucketSum sum;
    std::size_t at = 0;  // its byte in the part
  };

  void apply_sum(const DecodedSum& decoded, std::uint64_t data_at) {
    std::vector<NarrowBucketSum>& sums = columns_->sums;
    const NarrowBucketSum& s = decoded.sum;
    const std::uint32_t position = place_of_sum(decoded.bucket);
    if (position == sums.size()) {
      sums.push_back(s);
      if (!sums_in_id_order_) columns_->sum_buckets.push_back(decoded.bucket);
      sum_allocs_ += s.allocs;
      sum_frees_ += s.frees;
      return;
    }
    NarrowBucketSum& before = sums[position];
    if (s.allocs < before.allocs || s.frees < before.frees || s.temporary_frees < before.temporary_frees) {
      fail(data_at + decoded.at, "a bucket sum smaller than the one before it");
    }
    sum_allocs_ += s.allocs - before.allocs;
    sum_frees_ += s.frees - before.frees;
    before = s;
  }

  // Where a bucket's sum is in the sums, or their size when it is new
  // (and now placed there). Buckets are mostly first allocated in the order
  // of their ids (a heaptrack recording's always are): while they are, a
  // bucket's place is its id, and no index is kept.
  std::uint32_t place_of_sum(std::uint32_t bucket) {
    const std::vector<NarrowBucketSum>& sums = columns_->sums;
    if (sums_in_id_order_) {
      if (bucket <= sums.size()) return bucket;
      sums_in_id_order_ = false;
      sum_at_.assign(buckets_.size(), kNoSum);
      std::vector<std::uint32_t>& placed = columns_->sum_buckets;
      placed.resize(sums.size());
      for (std::uint32_t i = 0; i < sums.size(); ++i) sum_at_[i] = placed[i] = i;
    }
    if (sum_at_.size() < buckets_.size()) sum_at_.resize(buckets_.size(), kNoSum);
    std::uint32_t& position = sum_at_[bucket];
    if (position == kNoSum) position = static_cast<std::uint32_t>(sums.size());
    return position;
  }

  // After each segment the sums hold every block and free so far, so that
  // an answer from them is the replay's; the peak holds no more blocks than
  // were allocated.
  void check_sums_add_up(std::uint64_t events, const TracePeak& peak, std::uint64_t progress_at) const {
    if (sum_allocs_ != columns_->bucket.size() || sum_frees_ != columns_->free_order.size()) {
      fail(progress_at, fmt::format("the bucket sums count {} blocks and {} frees, not the {} and {} so far",
                                    sum_allocs_, sum_frees_, columns_->bucket.size(), columns_->free_order.size()));
    }
    if (peak.blocks > columns_->bucket.size() || peak.blocks > events) {
      fail(progress_at + 16, "a peak of more blocks than were allocated");
    }
  }

  void read_processes(std::string_view data, std::uint64_t data_at) {
    for (std::size_t at = 0; at < data.size(); at += kProcessBytes) {
      Process p;
      p.pid = get<std::uint64_t>(data.data(), at);
      p.name = string_id(get<std::uint32_t>(data.data(), at + 8), false, data_at + at);
      if (get<std::uint32_t>(data.data(), at + 12) != 0) fail(data_at + at, "a process entry's padding is not zero");
      tables_.add_process(p);
    }
  }

  void read_heaps(std::string_view data, std::uint64_t data_at) {
    for (std::size_t at = 0; at < data.size(); at += kHeapBytes) {
      Heap h;
      h.process = ProcessId(get<std::uint32_t>(data.data(), at));
      if (h.process.valid() && h.process.value >= tables_.process_count()) fail(data_at + at, "a heap's process out of range");
      h.name = string_id(get<std::uint32_t>(data.data(), at + 4), false, data_at + at);
      h.handle = get<std::uint64_t>(data.data(), at + 8);
      tables_.add_heap(h);
    }
  }

  LiveJournalRead finish(std::uint64_t file_bytes) {
    JournalColumns& c = *columns_;
    for (const std::span<const StackNode> chunk : stacks_.chunks) tables_.view_stack_chunk(chunk);
    tables_.load_stacks(stacks_.rest);
    for (const std::span<const Bucket> chunk : buckets_.chunks) tables_.view_bucket_chunk(chunk);
    tables_.load_buckets(buckets_.rest);
    SourceInfo info = std::move(source_->info);
    info.end_ns = time_ns_;
    info.live = LiveProgress{name_, time_ns_};
    StoreColumns columns;
    columns.time_changes = c.time_changes;
    columns.event_count = events_;
    columns.end_ns = time_ns_;
    if (has_sums_) {
      columns.bucket_sums = BucketSumList(c.sums, c.sum_buckets);
      columns.peak = peak_;
    }
    LiveJournalRead read;
    read.segments = segments_;
    read.bytes_used = bytes_used_;
    read.file_bytes = file_bytes;
    read.events = events_;
    read.time_ns = time_ns_;
    JournalColumns* gathered = columns_.get();  // kept alive by the store, its owner
    read.store = std::make_unique<TraceStore>(std::move(tables_), std::move(info), columns, std::move(columns_));
    read.store->gather_blocks_when_read([gathered](StoreColumns& store_columns) {
      store_columns.bucket = gathered->bucket.finish();
      store_columns.alloc_seq = gathered->alloc_seq.finish();
      store_columns.free_order = gathered->free_order.finish();
    });
    return read;
  }

  std::string name_;
  bool writer_alive_;
  std::shared_ptr<JournalColumns> columns_;
  TraceTables tables_;
  JournalTable<StackNode, kLiveStackChunkRows> stacks_;
  JournalTable<Bucket, kLiveBucketChunkRows> buckets_;
  std::optional<SourceRecord> source_;
  bool first_string_seen_ = false;
  std::uint64_t segments_ = 0;
  std::uint64_t bytes_used_ = 0;
  std::uint64_t events_ = 0;
  std::int64_t time_ns_ = 0;
  bool has_sums_ = false;
  TracePeak peak_;
  static constexpr std::uint32_t kNoSum = 0xFFFFFFFFu;
  bool sums_in_id_order_ = true;       // sums[i] is bucket i's
  std::vector<std::uint32_t> sum_at_;  // else by bucket id: its place in the sums
  std::uint64_t sum_allocs_ = 0, sum_frees_ = 0;
};

}  // namespace

LiveJournalRead read_live_journal_bytes(std::string_view bytes, const std::string& name, bool writer_alive) {
  // A copy, 8-aligned as a mapping is, which the store keeps (it views its
  // tables' chunks in place).
  auto copy = std::make_shared<std::vector<std::uint64_t>>((bytes.size() + 7) / 8);
  if (!bytes.empty()) std::memcpy(copy->data(), bytes.data(), bytes.size());
  const std::string_view aligned(reinterpret_cast<const char*>(copy->data()), bytes.size());
  return JournalParser(name, writer_alive).parse(JournalBytes{aligned, std::move(copy)});
}

LiveJournalRead read_live_journal(const std::string& path, bool writer_alive) {
  // The writer only appends: the size it has when mapped is all there is
  // to read, and the mapping stays whole when the journal is removed.
  const MappedFile journal = map_file(path, "live journal");
  return JournalParser(path, writer_alive).parse(JournalBytes{journal.bytes, journal.owner});
}

std::unique_ptr<TraceStore> rebuilt_through_builder(const TraceStore& journal_store) {
  auto built = std::make_unique<TraceStore>();
  built->tables() = journal_store.tables();
  built->source() = journal_store.source();
  TraceStore::Builder builder(*built);
  journal_store.replay(builder);
  return built;
}

}  // namespace heapql::store_file
