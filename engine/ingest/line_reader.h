// Streaming line reader for trace inputs: opens a plain, gzip or zstd file,
// decompresses it incrementally in chunks and hands out one line at a time
// from an internal buffer. Draws the optional progress bar (progress_bar.h)
// while it reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/error.h"
#include "engine/ingest/byte_stream.h"
#include "engine/store/source_info.h"

namespace heapql {

enum class Compression { kPlain, kGzip, kZstd };



// "plain", "gzip" or "zstd".
std::string_view compression_name(Compression compression);

// Reads a file line by line, whatever its compression.
//
// Compression is decided by the content, not the name: a zstd frame (magic
// 28 b5 2f fd, or a zstd skippable frame) means zstd, 1f 8b means gzip,
// anything else is plain text, whatever the suffix says (so a plain file named
// .gz is read as plain). Only a file shorter than 4 bytes, too short to sniff,
// goes by its suffix (.zst/.zstd -> zstd, .gz -> gzip); such a file then
// reads as a stream cut short, which is what it is.
//
// Several concatenated zstd frames and several gzip members are read as one
// stream. Any bytes after the last frame or member that do not start a new one
// are reported as corrupt data (gzip(1) would ignore them with a warning).
//
// Errors are heapql::Error and always name the file: "cannot open: <reason>",
// "empty file" (0 bytes; a compressed file holding no text is fine and just
// has no lines), "corrupt zstd stream: <library message>" / "corrupt gzip
// stream: <...>" at about the byte offset the decoder stopped. A stream that
// merely ends early (inside a zstd frame or gzip member, or in the middle of
// a line) is no error: reading stops after its last complete line, and cut()
// says where and how.
//
// Lines are split on '\n' only; a '\r' before it stays in the line, and NUL
// bytes pass through (callers validate the content).
//
// Not thread-safe; not copyable or movable (the line view points into it).
class LineReader {
 public:
  // Opens path for streaming reading and sniffs its compression (reads the
  // first chunk). show_progress: draw a progress bar on stderr while reading,
  // but only when stderr is a terminal and the file is a regular file (the
  // percentage needs its size). The bar first appears after a quarter of a
  // second, so quick reads never flash one.
  explicit LineReader(std::string path, bool show_progress = true);
  // Reads `bytes` (which must outlive the reader) as the file `name`.
  LineReader(std::string name, std::string_view bytes);
  // Reads `stream` (which must outlive the reader) as the file `name`, as
  // its bytes arrive: a recording in progress.
  LineReader(std::string name, ByteStream& stream);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Next line without its '\n'. A final line without '\n' is not returned:
  // it is what a cut left over (see cut()).
  // The view stays valid until the next call. Returns false at the clean end
  // of the input (and keeps returning false); throws Error otherwise.
  bool next(std::string_view& line);

  // For a caller that splits lines itself, in bulk: the buffered text up to
  // and including its last '\n' (empty when no whole line is buffered: next()
  // then reads on). The caller hands out lines from its start with skip():
  // `to` just past a '\n' in it, `lines` the number of lines up to there.
  std::string_view whole_lines() const {
    const std::string_view buffered(begin_, static_cast<std::size_t>(end_ - begin_));
    const std::size_t last = buffered.rfind('\n');
    return last == std::string_view::npos ? std::string_view() : buffered.substr(0, last + 1);
  }
  // Whether next() would wait for bytes to arrive (a stream with none ready,
  // nothing undecoded buffered): a caller holding lines hands them on first.
  bool would_wait() const;
  void skip(const char* to, std::uint64_t lines) {
    begin_ = scan_ = begin_ + (to - begin_);
    line_number_ += lines;
  }

  // Set once the input is known to end early: a zstd frame or gzip member
  // cut off, or a last line without its '\n'. Reading stops cleanly there.
  const std::optional<TraceCut>& cut() const { return cut_; }
  // The first bytes (up to kLeftOverStart) of a last line without its '\n':
  // what a reader that got no whole line can tell a cut line from other text by.
  const std::string& left_over_start() const { return left_over_start_; }
  static constexpr std::size_t kLeftOverStart = 64;
  // 1-based number of the line last returned (0 before the first).
  std::uint64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  Compression compression() const { return compression_; }
  // Bytes read from the file so far (includes read-ahead of up to a chunk).
  std::uint64_t compressed_bytes_read() const { return bytes_read_; }
  // Size of the file in bytes; 0 when it is not a regular file (a pipe).
  std::uint64_t file_size() const { return file_size_; }
  // {path, line_number()} for the caller's error messages (no line before
  // the first line is returned).
  SourceLocation location() const;

 private:
  struct Source;  // file descriptor (or bytes), decoder state, progress bar state
  void start(bool show_progress);

  bool next_slow(std::string_view& line);
  void make_room();
  void fill();
  void fill_plain();
  void fill_zstd();
  void fill_gzip();
  void refill_input();
  std::size_t read_file(char* dst, std::size_t size);
  [[noreturn]] void fail(std::optional<std::uint64_t> byte_offset, const std::string& message);

  std::string path_;
  Compression compression_ = Compression::kPlain;
  std::unique_ptr<Source> source_;

  // Decompressed text: [begin_, end_) is not handed out yet, and [begin_,
  // scan_) is known to hold no '\n' (so a refill does not rescan it).
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
  std::size_t chunk_size_ = std::size_t{1} << 20;  // one read of input; smaller for small in-memory input
  char* begin_ = nullptr;
  char* scan_ = nullptr;
  char* end_ = nullptr;
  bool text_ended_ = false;  // the decoder has produced all the text there is
  std::optional<TraceCut> cut_;
  std::string left_over_start_;

  std::uint64_t line_number_ = 0;
  std::uint64_t bytes_read_ = 0;
  std::uint64_t file_size_ = 0;
};

// The common case, a whole line already in the buffer, stays inline: one
// memchr and no call.
inline const char* find_newline(const char* from, const char* end) {
#if defined(__SSE2__)
  // Trace lines are short (8 bytes on average): look at the next 16 bytes
  // inline before paying for a memchr call.
  if (end - from >= 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
    const int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(chunk, _mm_set1_epi8('\n')));
    if (mask != 0) return from + __builtin_ctz(static_cast<unsigned>(mask));
    from += 16;
  }
#endif
  return static_cast<const char*>(std::memchr(from, '\n', static_cast<std::size_t>(end - from)));
}

inline bool LineReader::next(std::string_view& line) {
  if (auto* newline = const_cast<char*>(find_newline(scan_, end_))) {
    line = std::string_view(begin_, static_cast<std::size_t>(newline - begin_));
    begin_ = scan_ = newline + 1;
    ++line_number_;
    return true;
  }
  return next_slow(line);
}

}  // namespace heapql
