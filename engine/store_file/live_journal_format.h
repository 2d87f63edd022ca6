// The live journal (docs/store-format.md, "The live journal"): what a
// recording has read so far, appended as it goes, so that other processes
// answer queries on a recording in progress. Append-only segments, each a
// 40-byte header (magic, version, segment number, payload bytes, payload
// checksum, header checksum) and a payload of parts: the rows of each table
// and of each block column new since the segment before, in the store's own
// record layouts (store_format.h), and the progress so far. A reader takes
// the longest prefix of whole segments whose checksums match. While the
// writer holds the journal's lock a segment cut short or not matching is
// one not yet written, and is left for the next read; once no writer holds
// it, it is damage, named by its byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/store/source_info.h"
#include "engine/store/store_columns.h"
#include "engine/store/trace_store.h"
#include "engine/store/trace_tables.h"

namespace heapql::store_file {

inline constexpr char kLiveJournalMagic[8] = {'H', 'Q', 'L', 'I', 'V', 'E', 'J', '1'};
inline constexpr std::uint32_t kLiveJournalVersion = 3;
inline constexpr std::uint64_t kLiveSegmentHeaderBytes = 40;
// Where a segment header's fields lie: the magic at 0, u32 version, u32
// segment number, u64 payload bytes, u64 the payload's checksum, u64 the
// checksum of the header's first 32 bytes.
namespace live_segment_at {
inline constexpr std::size_t kVersion = 8, kNumber = 12, kPayloadBytes = 16, kPayloadChecksum = 24,
                             kHeaderChecksum = 32;
}
// A part's kind is a store section's (store_format.h) for the tables and the
// block columns; these are the journal's own.
// u64 events so far, i64 time so far (ns), the peak so far (u64 bytes, u64
// blocks, i64 time), u64 flags (kLiveHasBucketSums).
inline constexpr std::uint32_t kLiveProgressPart = 100;
inline constexpr std::uint64_t kLiveProgressBytes = 48;
// Every segment carries the bucket sums that changed in it (a part of kind
// Section::kBucketSums, as varints: those first allocated in it first, in
// that order), so the latest of each bucket's are the sums so far.
inline constexpr std::uint64_t kLiveHasBucketSums = 1;

// The stack and bucket tables go in chunks of these many rows (256 KiB of
// stack nodes, 192 KiB of buckets), each viewed where it lies by a reader;
// the rows past a part's last whole chunk go again, with the new ones, in
// the next segment that has new rows.
inline constexpr std::size_t kLiveStackChunkRows = TraceTables::kStackChunkRows;    // 32,768
inline constexpr std::size_t kLiveBucketChunkRows = TraceTables::kBucketChunkRows;  // 8,192
static_assert(kLiveStackChunkRows == 32768 && kLiveBucketChunkRows == 8192, "the journal's format");
// Where a segment's stacks (or buckets) part starts, when the segments
// before it published `published` rows of that table, in chunks of `chunk_rows`.
inline std::size_t live_table_part_start(std::size_t published, std::size_t chunk_rows) {
  return published - published % chunk_rows;
}

// Of a block column's `values` new in a segment, those its part packs (whole
// blocks of 64); the writer keeps the rest to send again in the next.
inline std::size_t live_packed_values(std::size_t values) { return values - values % 64; }

// What the writer appends in one segment: the rows of each table from
// `first_*` on (the new ones; for the stacks and buckets, from
// live_table_part_start when there are new ones) and of each block column
// (those not yet packed: the tail the segment before sent plain comes
// first), and the progress after them.
struct LiveSegmentRows {
  const TraceTables* tables = nullptr;
  std::size_t first_string = 0, first_frame = 0, first_stack = 0, first_process = 0, first_heap = 0,
              first_bucket = 0;
  std::span<const std::uint32_t> block_buckets, alloc_seqs, frees;
  std::span<const TimeChange> time_changes;
  std::uint64_t events = 0;     // after this segment
  std::int64_t time_ns = 0;     // the time so far
  // When the journal carries the bucket sums (every segment of it does):
  // those that changed, and the peak so far.
  bool has_bucket_sums = false;
  std::span<const BucketSum> changed_sums;
  TracePeak peak;
};

// The first segment's payload: the reading's SourceInfo (as the store's
// source section encodes it) and the tables as they are then.
// Appended to `out`: one whole segment (header and payload).
void append_live_segment(std::string& out, std::uint32_t number, const SourceInfo* reading,
                         const LiveSegmentRows& rows);

// What a reader took from a journal: a store of the events published so
// far (its columns in memory, and the bucket sums and peak when the journal
// carries them, so a whole-trace query need not replay the columns; no
// other accelerator), and how far the recording had come.
struct LiveJournalRead {
  std::unique_ptr<TraceStore> store;
  std::uint64_t segments = 0;
  std::uint64_t bytes_used = 0;   // the whole segments' bytes
  std::uint64_t file_bytes = 0;   // the file's, when read
  std::uint64_t events = 0;
  std::int64_t time_ns = 0;
};

// Reads the journal at `path`. `writer_alive`: the writer holds the lock,
// so a damaged tail is one not yet written (left out); else it is an Error
// naming the file and its byte. Anything wrong in a whole segment is an
// Error either way. A journal without one whole segment is an Error.
LiveJournalRead read_live_journal(const std::string& path, bool writer_alive);
// The same from bytes in memory (tests); `name` is what messages call it.
LiveJournalRead read_live_journal_bytes(std::string_view bytes, const std::string& name, bool writer_alive);

// The store a live journal's store becomes when its events are fed through
// TraceStore::Builder (bucket sums, peak, live checkpoints), for comparing
// the two ways of building it (docs/store-format.md, "The live journal").
std::unique_ptr<TraceStore> rebuilt_through_builder(const TraceStore& journal_store);

}  // namespace heapql::store_file
