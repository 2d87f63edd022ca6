#include "engine/store/store_events.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "engine/binary_file/varint.h"
#include "engine/error.h"
#include "engine/util/zstd_memory.h"

#include <zstd.h>

namespace heapql {

namespace {

[[noreturn]] void inconsistent(const std::string& what) { throw Error("store is inconsistent: " + what); }

// A u64 at `at` of `bytes` (checked to be there by the caller).
std::uint64_t u64_at(std::string_view bytes, std::size_t at) {
  std::uint64_t v = 0;
  std::memcpy(&v, bytes.data() + at, 8);
  return v;
}

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
  out.insert(out.end(), p, p + 8);
}

// A varint of a u32 (at most 5 bytes, the most a u32 needs) at `at` of `bytes`.
bool take_varint32(std::string_view bytes, std::size_t& at, std::uint32_t& v) {
  const std::size_t from = at;
  std::uint64_t value = 0;
  if (!take_varint(bytes, at, value) || at - from > 5 || value > 0xFFFFFFFFu) return false;
  v = static_cast<std::uint32_t>(value);
  return true;
}

// Views `n` entries of T at `at` of `bytes`, and the frames after them.
template <class T>
bool view_entries(std::string_view bytes, std::uint64_t n, std::span<const T>& entries, std::string_view& frames) {
  const std::size_t at = 16;
  if (n > (bytes.size() - std::min<std::size_t>(bytes.size(), at)) / sizeof(T)) return false;
  entries = {reinterpret_cast<const T*>(bytes.data() + at), static_cast<std::size_t>(n)};
  frames = bytes.substr(at + n * sizeof(T));
  return true;
}

}  // namespace

struct FrameDecoder::Context {
  ZSTD_DCtx* dctx = ZSTD_createDCtx_advanced(counted_zstd_memory());
  ~Context() { ZSTD_freeDCtx(dctx); }
};

FrameDecoder::FrameDecoder() : context_(std::make_unique<Context>()) {
  if (context_->dctx == nullptr) throw std::bad_alloc();
}
FrameDecoder::~FrameDecoder() = default;

bool FrameDecoder::decode(std::string_view frame, std::span<std::uint8_t> out) {
  if (ZSTD_getFrameContentSize(frame.data(), frame.size()) != out.size()) return false;
  if (ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size()) return false;
  const std::size_t n = ZSTD_decompressDCtx(context_->dctx, out.data(), out.size(), frame.data(), frame.size());
  return !ZSTD_isError(n) && n == out.size();
}

struct FrameEncoder::Context {
  ZSTD_CCtx* cctx = ZSTD_createCCtx_advanced(counted_zstd_memory());
  ~Context() { ZSTD_freeCCtx(cctx); }
};

FrameEncoder::FrameEncoder(int level) : context_(std::make_unique<Context>()) {
  if (context_->cctx == nullptr) throw std::bad_alloc();
  ZSTD_CCtx_setParameter(context_->cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(context_->cctx, ZSTD_c_contentSizeFlag, 1);
}
FrameEncoder::~FrameEncoder() = default;

const std::vector<std::uint8_t>& FrameEncoder::encode(std::span<const std::uint8_t> raw) {
  frame_.resize(ZSTD_compressBound(raw.size()));
  const std::size_t n = ZSTD_compress2(context_->cctx, frame_.data(), frame_.size(), raw.data(), raw.size());
  if (ZSTD_isError(n)) throw Error(std::string("cannot compress the store's events: ") + ZSTD_getErrorName(n));
  frame_.resize(n);
  return frame_;
}

std::string StoreEvents::view(std::string_view bytes, std::uint64_t event_count) {
  event_count_ = event_count;
  bytes_ = bytes.size();
  if (bytes.size() < 16) return "shorter than its head";
  chunk_events_ = u64_at(bytes, 0);
  const std::uint64_t chunks = u64_at(bytes, 8);
  if (chunk_events_ == 0 || chunk_events_ > (std::uint64_t{1} << 26) || (chunk_events_ & (chunk_events_ - 1)) != 0) {
    return fmt::format("{} events a chunk, not a power of two up to 2^26", chunk_events_);
  }
  if (chunks != (event_count + chunk_events_ - 1) / chunk_events_) {
    return fmt::format("{} chunks for {} events of {} a chunk", chunks, event_count, chunk_events_);
  }
  if (!view_entries(bytes, chunks + 1, entries_, frames_)) return "more chunks than its bytes hold";
  for (std::size_t k = 0; k < chunks; ++k) {
    const EventChunkEntry& e = entries_[k];
    const EventChunkEntry& next = entries_[k + 1];
    if (e.frame_offset >= next.frame_offset || next.frame_offset > frames_.size()) {
      return fmt::format("chunk {}'s frame does not lie within the section", k);
    }
    if (next.allocs_before < e.allocs_before || next.allocs_before - e.allocs_before > events_in(k)) {
      return fmt::format("chunk {} counts more allocations than events", k);
    }
  }
  if (entries_.front().frame_offset != 0 || entries_.front().allocs_before != 0 ||
      entries_.back().frame_offset != frames_.size()) {
    return "its chunks do not fill its frames";
  }
  return {};
}

std::uint64_t StoreEvents::events_in(std::size_t k) const {
  return std::min(chunk_events_, event_count_ - first_event(k));
}

void StoreEvents::decode(std::size_t k, FrameDecoder& decoder, std::vector<std::uint32_t>& words,
                         std::size_t buckets) const {
  const EventChunkEntry& e = entries_[k];
  const std::string_view frame = frames_.substr(e.frame_offset, entries_[k + 1].frame_offset - e.frame_offset);
  words.resize(events_in(k));
  if (!decoder.decode(frame, {reinterpret_cast<std::uint8_t*>(words.data()), words.size() * 4})) {
    inconsistent(fmt::format("the events' chunk {} is damaged", k));
  }
  std::uint64_t allocs = 0;
  std::uint32_t highest = 0;
  for (const std::uint32_t w : words) {
    allocs += (w & 1) ^ 1;
    highest = std::max(highest, w);
  }
  if (words.size() > 0 && (highest >> 1) >= buckets) {
    inconsistent(fmt::format("the events' chunk {} names a bucket past the bucket table", k));
  }
  if (allocs != entries_[k + 1].allocs_before - e.allocs_before) {
    inconsistent(fmt::format("the events' chunk {} holds other allocations than its entry says", k));
  }
}

std::string StoreLiveCounts::view(std::string_view bytes, const StoreEvents& events) {
  bytes_ = bytes.size();
  if (bytes.size() < 16) return "shorter than its head";
  const std::uint64_t lists = u64_at(bytes, 0);
  if (u64_at(bytes, 8) != 0) return "its head's second word is not zero";
  if (!view_entries(bytes, lists + 1, entries_, frames_)) return "more lists than its bytes hold";
  for (std::size_t k = 0; k < lists; ++k) {
    const LiveCountEntry& e = entries_[k];
    if (e.seq == 0 || e.seq >= events.event_count() || e.seq % events.chunk_events() != 0 ||
        (k > 0 && e.seq <= entries_[k - 1].seq)) {
      return fmt::format("list {} is not at a chunk's start within the events, after the one before", k);
    }
    if (e.frame_offset >= entries_[k + 1].frame_offset || entries_[k + 1].frame_offset > frames_.size()) {
      return fmt::format("list {}'s frame does not lie within the section", k);
    }
  }
  if (entries_.front().frame_offset != 0 && lists > 0) return "its lists do not fill its frames";
  if (entries_.back().frame_offset != frames_.size()) return "its lists do not fill its frames";
  return {};
}

void StoreLiveCounts::decode(std::size_t k, FrameDecoder& decoder, std::span<std::uint32_t> live,
                             std::uint64_t allocs_before) const {
  const LiveCountEntry& e = entries_[k];
  const std::string_view frame = frames_.substr(e.frame_offset, entries_[k + 1].frame_offset - e.frame_offset);
  const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  // At most two 5-byte varints a bucket.
  if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR || size > live.size() * 10) {
    inconsistent(fmt::format("live counts {} are damaged", k));
  }
  std::vector<std::uint8_t> list(static_cast<std::size_t>(size));
  if (!decoder.decode(frame, list)) inconsistent(fmt::format("live counts {} are damaged", k));
  std::fill(live.begin(), live.end(), 0);
  const std::string_view bytes(reinterpret_cast<const char*>(list.data()), list.size());
  std::size_t at = 0;
  std::uint64_t bucket = 0, total = 0;
  bool first = true;
  while (at != bytes.size()) {
    std::uint32_t delta = 0, count = 0;
    if (!take_varint32(bytes, at, delta) || !take_varint32(bytes, at, count)) {
      inconsistent(fmt::format("live counts {} end inside a varint", k));
    }
    bucket += delta;
    if ((!first && delta == 0) || bucket >= live.size() || count == 0) {
      inconsistent(fmt::format("live counts {} name a bucket twice, none, or past the table", k));
    }
    first = false;
    total += count;
    if (total > allocs_before) inconsistent(fmt::format("live counts {} count more blocks than were allocated", k));
    live[bucket] = count;
  }
}

StoreEventsWriter::StoreEventsWriter(FrameSink sink, std::uint64_t chunk_events)
    : sink_(std::move(sink)), chunk_events_(chunk_events) {
  chunk_.reserve(chunk_events_);
  entries_.push_back({});
}

void StoreEventsWriter::end_chunk() {
  const std::vector<std::uint8_t>& frame =
      encoder_.encode({reinterpret_cast<const std::uint8_t*>(chunk_.data()), chunk_.size() * 4});
  sink_(frame);
  frame_bytes_ += frame.size();
  events_before_ += chunk_.size();
  chunk_.clear();
  entries_.push_back({frame_bytes_, allocs_});
}

void StoreEventsWriter::finish() {
  if (finished_) return;
  if (!chunk_.empty()) end_chunk();
  finished_ = true;
}

std::vector<std::uint8_t> StoreEventsWriter::head() const {
  std::vector<std::uint8_t> out;
  put_u64(out, chunk_events_);
  put_u64(out, entries_.size() - 1);
  const auto* p = reinterpret_cast<const std::uint8_t*>(entries_.data());
  out.insert(out.end(), p, p + entries_.size() * sizeof(EventChunkEntry));
  return out;
}

void StoreLiveCountsWriter::list(std::uint64_t seq, std::vector<std::pair<std::uint32_t, std::uint32_t>> live) {
  std::sort(live.begin(), live.end());
  std::string raw;
  std::uint32_t previous = 0;
  for (const auto& [bucket, count] : live) {
    put_varint(raw, bucket - previous);
    put_varint(raw, count);
    previous = bucket;
  }
  entries_.push_back({seq, frames_.size()});
  const std::vector<std::uint8_t>& frame =
      encoder_.encode({reinterpret_cast<const std::uint8_t*>(raw.data()), raw.size()});
  frames_.insert(frames_.end(), frame.begin(), frame.end());
}

std::vector<std::uint8_t> StoreLiveCountsWriter::bytes() const {
  std::vector<std::uint8_t> out;
  put_u64(out, entries_.size());
  put_u64(out, 0);
  std::vector<LiveCountEntry> entries = entries_;
  entries.push_back({0, frames_.size()});
  const auto* p = reinterpret_cast<const std::uint8_t*>(entries.data());
  out.insert(out.end(), p, p + entries.size() * sizeof(LiveCountEntry));
  out.insert(out.end(), frames_.begin(), frames_.end());
  return out;
}

}  // namespace heapql
