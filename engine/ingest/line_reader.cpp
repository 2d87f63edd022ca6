// LineReader: chunked reading, incremental zstd/gzip decoding and line
// splitting.
#include "engine/ingest/line_reader.h"

#include <zlib.h>
// ZSTD_createDCtx_advanced (custom allocators) is in the advanced API.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <new>
#include <cerrno>
#include <climits>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "engine/ingest/progress_bar.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/file_status.h"
#include "engine/platform/open_file.h"
#include "engine/platform/positioned_io.h"

namespace heapql {

namespace {

constexpr std::size_t kChunkSize = std::size_t{1} << 20;  // one read() of compressed input
constexpr std::size_t kZstdSlice = std::size_t{128} << 10;  // input per decoder call
constexpr std::size_t kSniffBytes = 4;                     // enough for either magic
constexpr int kGzipWindowBits = 15 + 32;                   // max window, auto-detect gzip/zlib header

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

Compression sniff(const unsigned char* data, std::size_t size, std::string_view path) {
  if (size >= 4) {
    if (data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f && data[3] == 0xfd) return Compression::kZstd;
    // A skippable frame (magic 0x184D2A5?, little-endian) may open a zstd file too.
    if ((data[0] & 0xf0) == 0x50 && data[1] == 0x2a && data[2] == 0x4d && data[3] == 0x18) return Compression::kZstd;
  }
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) return Compression::kGzip;
  if (size < kSniffBytes) {
    if (ends_with(path, ".zst") || ends_with(path, ".zstd")) return Compression::kZstd;
    if (ends_with(path, ".gz")) return Compression::kGzip;
  }
  return Compression::kPlain;
}

}  // namespace

std::string_view compression_name(Compression compression) {
  switch (compression) {
    case Compression::kPlain: return "plain";
    case Compression::kGzip: return "gzip";
    case Compression::kZstd: return "zstd";
  }
  return "unknown";
}

namespace {

// The decoders allocate through operator new, as the rest of the engine
// does, so that whatever counts the engine's memory (a recipe's --memory)
// counts theirs too.
void* decoder_alloc(void*, std::size_t size) { return ::operator new(size, std::nothrow); }
void decoder_free(void*, void* block) { ::operator delete(block); }
voidpf zlib_alloc(voidpf, uInt items, uInt size) {
  return ::operator new(static_cast<std::size_t>(items) * size, std::nothrow);
}
void zlib_free(voidpf, voidpf block) { ::operator delete(block); }

}  // namespace

struct LineReader::Source {
  int fd = -1;
  // Or the bytes themselves (an in-memory input: tests and fuzzing).
  const char* memory = nullptr;
  std::size_t memory_left = 0;
  // Or a stream, read as it arrives (a recording in progress).
  ByteStream* stream = nullptr;
  bool file_ended = false;  // read() has returned 0

  // Compressed input: [in_pos, in_end) of in is not decoded yet; in[0] sits
  // at file offset in_offset. (gzip keeps its position in z.next_in instead.)
  std::unique_ptr<char[]> in;
  std::size_t in_pos = 0;
  std::size_t in_end = 0;
  std::uint64_t in_offset = 0;
  bool frame_open = false;  // inside a zstd frame / gzip member: ending here is truncation

  ZSTD_DCtx* zstd = nullptr;
  z_stream z{};
  bool z_initialised = false;

  std::optional<ProgressBar> progress;  // set once the file size is known

  Source() = default;
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  ~Source() {
    if (zstd != nullptr) ZSTD_freeDCtx(zstd);
    if (z_initialised) inflateEnd(&z);
    if (fd >= 0) close_file(fd);
  }
};

LineReader::LineReader(std::string path, bool show_progress)
    : path_(std::move(path)), source_(std::make_unique<Source>()) {
  Source& source = *source_;
  source.fd = open_file(path_, O_RDONLY);
  if (source.fd < 0) fail(std::nullopt, "cannot open: " + errno_text(errno));
  const std::optional<FileStatus> st = status_of_fd(source.fd);
  if (!st) fail(std::nullopt, "cannot open: " + errno_text(errno));
  // open() succeeds on a directory; say so now rather than at the first read.
  if (st->directory()) fail(std::nullopt, "cannot open: " + errno_text(EISDIR));
  if (st->regular()) {
    file_size_ = st->size;
    if (file_size_ == 0) fail(std::nullopt, "empty file");
  }
  start(show_progress);
}

LineReader::LineReader(std::string name, std::string_view bytes)
    : path_(std::move(name)), source_(std::make_unique<Source>()) {
  source_->memory = bytes.data();
  source_->memory_left = bytes.size();
  file_size_ = bytes.size();
  if (file_size_ == 0) fail(std::nullopt, "empty file");
  start(false);
}

bool LineReader::would_wait() const {
  return source_->stream != nullptr && source_->in_pos >= source_->in_end && !source_->stream->ready();
}

LineReader::LineReader(std::string name, ByteStream& stream)
    : path_(std::move(name)), source_(std::make_unique<Source>()) {
  source_->stream = &stream;
  start(false);
}

void LineReader::start(bool show_progress) {
  Source& source = *source_;
  // Bytes in memory need no bigger chunks than themselves (the buffer still
  // grows for long lines): many small inputs, as fuzzing reads, stay cheap.
  if (source.memory != nullptr) chunk_size_ = std::min(kChunkSize, std::max<std::size_t>(file_size_, 4096));
  source.progress.emplace(path_, file_size_, show_progress);

  // The first chunk is sniffed, then becomes the text buffer (plain) or the
  // decoder's first input, so nothing is read twice. A pipe may deliver fewer
  // bytes per read than the magic needs.
  auto first = std::make_unique_for_overwrite<char[]>(chunk_size_);
  std::size_t have = 0;
  while (have < kSniffBytes) {
    std::size_t got = read_file(first.get() + have, chunk_size_ - have);
    if (got == 0) break;
    have += got;
  }
  if (have == 0) fail(std::nullopt, "empty file");
  compression_ = sniff(reinterpret_cast<const unsigned char*>(first.get()), have, path_);

  if (compression_ == Compression::kPlain) {
    buffer_ = std::move(first);
    capacity_ = chunk_size_;
    begin_ = scan_ = buffer_.get();
    end_ = begin_ + have;
    return;
  }

  source.in = std::move(first);
  source.in_end = have;
  buffer_ = std::make_unique_for_overwrite<char[]>(chunk_size_);
  capacity_ = chunk_size_;
  begin_ = scan_ = end_ = buffer_.get();
  if (compression_ == Compression::kZstd) {
    source.zstd = ZSTD_createDCtx_advanced(ZSTD_customMem{decoder_alloc, decoder_free, nullptr});
    if (source.zstd == nullptr) fail(std::nullopt, "cannot create a zstd decoder (out of memory)");
  } else {
    source.z.zalloc = zlib_alloc;
    source.z.zfree = zlib_free;
    int rc = inflateInit2(&source.z, kGzipWindowBits);
    if (rc != Z_OK) fail(std::nullopt, fmt::format("cannot create a gzip decoder: {}", zError(rc)));
    source.z_initialised = true;
    source.z.next_in = reinterpret_cast<Bytef*>(source.in.get());
    source.z.avail_in = static_cast<uInt>(have);
  }
}

LineReader::~LineReader() = default;  // ~ProgressBar erases the bar

SourceLocation LineReader::location() const {
  SourceLocation where;
  where.file = path_;
  if (line_number_ > 0) where.line = line_number_;
  return where;
}

bool LineReader::next_slow(std::string_view& line) {
  // The inline next() found no '\n' in [scan_, end_).
  for (;;) {
    scan_ = end_;
    if (text_ended_) {
      if (begin_ != end_) {
        // Trace lines all end in '\n': a last line without one is the
        // part of a record that a cut left (a truncated record could read
        // as a valid, wrong one), so it is left over, never handed out.
        if (!cut_) cut_ = TraceCut{path_, bytes_read_, 0, "the last line has no newline"};
        cut_->left_over_bytes = static_cast<std::uint64_t>(end_ - begin_);
        left_over_start_.assign(begin_, std::min<std::size_t>(kLeftOverStart, cut_->left_over_bytes));
        begin_ = scan_ = end_;
      }
      source_->progress->finish();
      return false;
    }
    make_room();
    fill();
    if (auto* newline = static_cast<char*>(std::memchr(scan_, '\n', static_cast<std::size_t>(end_ - scan_)))) {
      line = std::string_view(begin_, static_cast<std::size_t>(newline - begin_));
      begin_ = scan_ = newline + 1;
      ++line_number_;
      return true;
    }
  }
}

void LineReader::make_room() {
  // Move the partial line to the front; grow when it leaves too little room
  // to refill in big steps (a line longer than the buffer doubles it).
  auto kept = static_cast<std::size_t>(end_ - begin_);
  auto scanned = static_cast<std::size_t>(scan_ - begin_);
  char* base = buffer_.get();
  if (capacity_ - kept < capacity_ / 4) {
    std::size_t capacity = capacity_ * 2;
    auto grown = std::make_unique_for_overwrite<char[]>(capacity);
    if (kept > 0) std::memcpy(grown.get(), begin_, kept);
    buffer_ = std::move(grown);
    capacity_ = capacity;
    base = buffer_.get();
  } else if (begin_ != base && kept > 0) {
    std::memmove(base, begin_, kept);
  }
  begin_ = base;
  scan_ = base + scanned;
  end_ = base + kept;
}

void LineReader::fill() {
  // Adds at least one byte at end_, or sets text_ended_.
  switch (compression_) {
    case Compression::kPlain: fill_plain(); return;
    case Compression::kZstd: fill_zstd(); return;
    case Compression::kGzip: fill_gzip(); return;
  }
}

void LineReader::fill_plain() {
  char* limit = buffer_.get() + capacity_;
  std::size_t got = read_file(end_, static_cast<std::size_t>(limit - end_));
  if (got == 0) text_ended_ = true;
  end_ += got;
}

void LineReader::refill_input() {
  Source& source = *source_;
  source.in_offset = bytes_read_;
  source.in_pos = 0;
  source.in_end = read_file(source.in.get(), chunk_size_);
  if (compression_ == Compression::kGzip) {
    source.z.next_in = reinterpret_cast<Bytef*>(source.in.get());
    source.z.avail_in = static_cast<uInt>(source.in_end);
  }
}

void LineReader::fill_zstd() {
  Source& source = *source_;
  char* limit = buffer_.get() + capacity_;
  for (;;) {
    if (source.in_pos == source.in_end && !source.file_ended) refill_input();
    bool input_done = source.in_pos == source.in_end && source.file_ended;
    if (input_done && !source.frame_open) {
      text_ended_ = true;
      return;
    }
    // Called with empty input too: the decoder may still hold output. Input
    // goes in slices because on an error zstd does not say how far it got:
    // the slice start is then the offset, within kZstdSlice of the fault.
    std::size_t slice = std::min(source.in_end - source.in_pos, kZstdSlice);
    ZSTD_inBuffer in{source.in.get() + source.in_pos, slice, 0};
    ZSTD_outBuffer out{end_, static_cast<std::size_t>(limit - end_), 0};
    std::size_t rc = ZSTD_decompressStream(source.zstd, &out, &in);
    if (ZSTD_isError(rc)) {
      fail(source.in_offset + source.in_pos,
           fmt::format("corrupt zstd stream: {}", ZSTD_getErrorName(rc)));
    }
    source.in_pos += in.pos;
    end_ += out.pos;
    // 0 = a frame is complete and flushed; what follows may start another.
    source.frame_open = rc != 0;
    if (out.pos > 0) return;
    if (input_done && source.frame_open) {
      // A recording killed mid-write: what was decoded is the complete part.
      cut_ = TraceCut{path_, bytes_read_, 0, "the zstd stream ends inside a frame"};
      text_ended_ = true;
      return;
    }
  }
}

void LineReader::fill_gzip() {
  Source& source = *source_;
  z_stream& z = source.z;
  char* limit = buffer_.get() + capacity_;
  for (;;) {
    if (z.avail_in == 0 && !source.file_ended) refill_input();
    bool input_done = z.avail_in == 0 && source.file_ended;
    if (input_done && !source.frame_open) {
      text_ended_ = true;
      return;
    }
    if (!source.frame_open) {
      // Another member follows (or the first begins): restart the decoder.
      int rc = inflateReset(&z);
      if (rc != Z_OK) fail(bytes_read_, fmt::format("cannot reset the gzip decoder: {}", zError(rc)));
      source.frame_open = true;
    }
    auto room = static_cast<uInt>(std::min<std::size_t>(static_cast<std::size_t>(limit - end_), UINT_MAX));
    z.next_out = reinterpret_cast<Bytef*>(end_);
    z.avail_out = room;
    int rc = inflate(&z, Z_NO_FLUSH);
    end_ += room - z.avail_out;
    if (rc == Z_STREAM_END) {
      source.frame_open = false;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {  // Z_BUF_ERROR: only needs more input
      auto offset = source.in_offset + static_cast<std::uint64_t>(
                                           reinterpret_cast<char*>(z.next_in) - source.in.get());
      fail(offset, fmt::format("corrupt gzip stream: {}", z.msg != nullptr ? z.msg : zError(rc)));
    }
    if (room != z.avail_out) return;
    if (input_done && source.frame_open) {
      cut_ = TraceCut{path_, bytes_read_, 0, "the gzip stream ends inside a member"};
      text_ended_ = true;
      return;
    }
  }
}

std::size_t LineReader::read_file(char* dst, std::size_t size) {
  if (source_->memory != nullptr) {
    const std::size_t got = std::min(size, source_->memory_left);
    std::memcpy(dst, source_->memory, got);
    source_->memory += got;
    source_->memory_left -= got;
    bytes_read_ += got;
    if (got == 0) source_->file_ended = true;
    return got;
  }
  if (source_->stream != nullptr) {
    const std::size_t got = source_->stream->read(dst, size);
    bytes_read_ += got;
    if (got == 0) source_->file_ended = true;
    return got;
  }
  for (;;) {
    const std::int64_t got = read_some(source_->fd, dst, size);
    if (got >= 0) {
      bytes_read_ += static_cast<std::uint64_t>(got);
      if (got == 0) source_->file_ended = true;
      // Once per chunk (about a millisecond of work): the clock read in
      // update() costs nothing measurable.
      if (source_->progress) source_->progress->update(bytes_read_);
      return static_cast<std::size_t>(got);
    }
    if (errno != EINTR) fail(bytes_read_, "read failed: " + errno_text(errno));
  }
}

void LineReader::fail(std::optional<std::uint64_t> byte_offset, const std::string& message) {
  // The bar would otherwise share a line with the caller's error message.
  if (source_ && source_->progress) source_->progress->finish();
  SourceLocation where;
  where.file = path_;
  where.byte_offset = byte_offset;
  throw Error(std::move(where), message);
}

}  // namespace heapql
