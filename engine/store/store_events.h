// The trace's events as a store keeps them when each free ends its
// bucket's youngest live block (bucket-LIFO pairing, heaptrack's
// interpreted files): a u32 an event, its bucket << 1, | 1 for a free (the
// words EventConsumer::on_bucket_run takes), in chunks of a fixed count,
// each one zstd frame. Such a free names no block, so the events are all
// the pairing needs: 0.4-1.9 bytes a block on the bench traces, where the
// packed block columns (store_columns.h) take 4-4.6, and a replay reads
// them in order, each bucket's state once an event, instead of a free's
// block looked up at random (docs/store-format.md, "Events").
//
// Beside them, the live counts (an accelerator): every few chunks, how many
// blocks of each bucket are alive, so that a windowed replay starts at the
// last list before its window instead of the trace's start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace heapql {

// Events a chunk, and live counts every this many chunks (4 Mi events).
inline constexpr std::uint64_t kEventChunkEvents = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kLiveCountEveryChunks = 4;

// A chunk's place: 16 bytes, also the layout on disk. The last entry
// (one past the chunks) holds the frames' end and every allocation.
struct EventChunkEntry {
  std::uint64_t frame_offset = 0;   // from the frames' start
  std::uint64_t allocs_before = 0;  // allocations in the chunks before it
};
static_assert(sizeof(EventChunkEntry) == 16);

// A list of live counts' place: 16 bytes, also the layout on disk; the last
// entry (seq 0) holds the frames' end.
struct LiveCountEntry {
  std::uint64_t seq = 0;            // the counts are of the blocks alive before this event
  std::uint64_t frame_offset = 0;   // from the frames' start
};
static_assert(sizeof(LiveCountEntry) == 16);

// One zstd context, reused: a replay decodes a frame per chunk.
class FrameDecoder {
 public:
  FrameDecoder();
  ~FrameDecoder();
  FrameDecoder(const FrameDecoder&) = delete;
  FrameDecoder& operator=(const FrameDecoder&) = delete;
  // Decodes `frame` into exactly `out` (its size what the frame must hold);
  // false when it is damaged or holds another size.
  bool decode(std::string_view frame, std::span<std::uint8_t> out);

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// Compresses frames at one level, its context reused.
class FrameEncoder {
 public:
  explicit FrameEncoder(int level = 3);
  ~FrameEncoder();
  FrameEncoder(const FrameEncoder&) = delete;
  FrameEncoder& operator=(const FrameEncoder&) = delete;
  const std::vector<std::uint8_t>& encode(std::span<const std::uint8_t> raw);

 private:
  struct Context;
  std::unique_ptr<Context> context_;
  std::vector<std::uint8_t> frame_;
};

// The events section viewed in place:
//   u64 events a chunk, u64 chunks C,
//   EventChunkEntry[C + 1],
//   the frames, chunk by chunk.
class StoreEvents {
 public:
  // Views `bytes` as the section of `event_count` events: empty text when
  // its sizes agree, else what is wrong (each frame is checked when read).
  std::string view(std::string_view bytes, std::uint64_t event_count);

  std::uint64_t event_count() const { return event_count_; }
  std::uint64_t chunk_events() const { return chunk_events_; }
  std::size_t chunk_count() const { return entries_.empty() ? 0 : entries_.size() - 1; }
  std::uint64_t allocation_count() const { return entries_.empty() ? 0 : entries_.back().allocs_before; }
  std::uint64_t allocs_before_chunk(std::size_t k) const { return entries_[k].allocs_before; }
  std::uint64_t first_event(std::size_t k) const { return k * chunk_events_; }
  std::uint64_t events_in(std::size_t k) const;
  std::size_t bytes() const { return bytes_; }

  // Chunk k's words into `words` (resized to its events); throws Error
  // ("store is inconsistent: ...") when its frame is damaged, its
  // allocations are not what its entries say, or a word names a bucket past
  // `buckets`.
  void decode(std::size_t k, FrameDecoder& decoder, std::vector<std::uint32_t>& words, std::size_t buckets) const;

 private:
  std::uint64_t event_count_ = 0;
  std::uint64_t chunk_events_ = kEventChunkEvents;
  std::span<const EventChunkEntry> entries_;
  std::string_view frames_;
  std::size_t bytes_ = 0;
};

// The live counts section viewed in place:
//   u64 lists K, u64 zero,
//   LiveCountEntry[K + 1],
//   the frames: each the varints (bucket - the previous listed bucket, or
//   the bucket for the first; its live blocks, at least 1) of the buckets
//   with live blocks, ascending.
class StoreLiveCounts {
 public:
  // Empty text when it fits its section and the events (each list at a
  // chunk's start, ascending, within the events); else what is wrong.
  std::string view(std::string_view bytes, const StoreEvents& events);
  std::size_t count() const { return entries_.empty() ? 0 : entries_.size() - 1; }
  std::uint64_t seq(std::size_t k) const { return entries_[k].seq; }
  // List k into `live` (one count per bucket, zeroed first); throws Error
  // when it is damaged, names a bucket past `live`, or counts more blocks
  // than `allocs_before` (the allocations before its event).
  void decode(std::size_t k, FrameDecoder& decoder, std::span<std::uint32_t> live, std::uint64_t allocs_before) const;
  std::size_t bytes() const { return bytes_; }

 private:
  std::span<const LiveCountEntry> entries_;
  std::string_view frames_;
  std::size_t bytes_ = 0;
};

// Makes the events section as the events come, its frames handed to `sink`
// (a function taking each frame's bytes) as each chunk fills.
class StoreEventsWriter {
 public:
  using FrameSink = std::function<void(std::span<const std::uint8_t>)>;
  explicit StoreEventsWriter(FrameSink sink, std::uint64_t chunk_events = kEventChunkEvents);
  void push(std::uint32_t word) {
    chunk_.push_back(word);
    allocs_ += (word & 1) ^ 1;
    if (chunk_.size() == chunk_events_) end_chunk();
  }
  // Whether the next event starts a chunk (where live counts may be listed).
  bool at_chunk_start() const { return chunk_.empty(); }
  std::uint64_t event_count() const { return events_before_ + chunk_.size(); }
  // The last chunk's frame; then head() is the section's start.
  void finish();
  std::vector<std::uint8_t> head() const;
  std::uint64_t frame_bytes() const { return frame_bytes_; }

 private:
  void end_chunk();
  FrameSink sink_;
  std::uint64_t chunk_events_;
  FrameEncoder encoder_;
  std::vector<std::uint32_t> chunk_;
  std::vector<EventChunkEntry> entries_;
  std::uint64_t events_before_ = 0, allocs_ = 0, frame_bytes_ = 0;
  bool finished_ = false;
};

// Makes the live counts section: list() each time, then bytes().
class StoreLiveCountsWriter {
 public:
  // The blocks alive before `seq`, as (bucket, count) with count >= 1, any order.
  void list(std::uint64_t seq, std::vector<std::pair<std::uint32_t, std::uint32_t>> live);
  std::size_t count() const { return entries_.size(); }
  // head, entries and frames, in one piece (a few hundred KB at most on the bench traces).
  std::vector<std::uint8_t> bytes() const;

 private:
  FrameEncoder encoder_;
  std::vector<LiveCountEntry> entries_;
  std::vector<std::uint8_t> frames_;
};

}  // namespace heapql
