#include "engine/ingest/block_identity_file.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>

#include "engine/error.h"
#include "engine/file_begins_with.h"
#include "engine/util/zstd_memory.h"
#include "engine/binary_file/byte_codec.h"
#include "engine/binary_file/checksum.h"
#include "engine/binary_file/output_file.h"
#include "engine/binary_file/scratch_column.h"
#include "engine/binary_file/varint.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/file_status.h"
#include "engine/platform/open_file.h"
#include "engine/platform/positioned_io.h"

namespace heapql::heaptrack {

namespace {

// Header (64 bytes): magic[8], u32 version, u32 zero, u64 file bytes, u64
// offset of the tail, u64 checksum of the tail, zeros, u64 checksum of the
// header's first 56 bytes. Then three zstd frames, one per column of the
// ends (kinds, times, ids), then the tail: the interpreted file's identity,
// the counts of frees that found no block, the module bases, the ends'
// count, the three frames' sizes and their checksums.
constexpr std::array<char, 8> kMagic = {'H', 'E', 'A', 'P', 'Q', 'L', 'B', 'I'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 64;
constexpr std::size_t kVersionAt = 8, kFileBytesAt = 16, kTailAt = 24, kTailChecksumAt = 32, kHeaderChecksumAt = 56;
constexpr std::size_t kPiece = 256 << 10;

template <class T>
T load(const char* at) {
  T v;
  std::memcpy(&v, at, sizeof(T));
  return v;
}

template <class T>
void put(std::string& bytes, std::size_t at, T v) {
  std::memcpy(bytes.data() + at, &v, sizeof(T));
}

[[noreturn]] void fail(const std::string& path, std::uint64_t byte, const std::string& what) {
  SourceLocation where = SourceLocation::of_file(path);
  where.byte_offset = byte;
  throw Error(where, what);
}

constexpr std::size_t kColumns = 3;
constexpr std::array<std::string_view, kColumns> kColumnNames = {"kinds", "times", "ids"};

}  // namespace

// The file's bytes, read at offsets: pieces of a file (pread), or bytes in memory.
class BlockIdentityReader::Source {
 public:
  Source(const std::string& path, std::string_view bytes) : path_(path), bytes_(bytes), size_(bytes.size()) {}
  explicit Source(const std::string& path) : path_(path) {
    fd_ = open_file(path, O_RDONLY);
    // Windows opens no folder as a file (Linux does, and fstat says what it is).
    if (fd_ < 0 && errno == EISDIR) throw Error(SourceLocation::of_file(path), "a directory, not a block-identity file");
    if (fd_ < 0) throw Error(SourceLocation::of_file(path), "cannot open: " + errno_text(errno));
    const std::optional<FileStatus> status = status_of_fd(fd_);
    if (!status || !status->regular()) {
      close_file(fd_);
      throw Error(SourceLocation::of_file(path), status && status->directory()
                                                     ? "a directory, not a block-identity file"
                                                     : "not a regular file, so not a block-identity file");
    }
    size_ = status->size;
  }
  ~Source() {
    if (fd_ >= 0) close_file(fd_);
  }
  std::uint64_t size() const { return size_; }
  void read(std::uint64_t at, char* to, std::size_t n) const {
    if (at > size_ || n > size_ - at) fail(path_, size_, "reads past the file's end");
    if (fd_ < 0) {
      std::memcpy(to, bytes_.data() + at, n);
      return;
    }
    while (n > 0) {
      const std::int64_t got = read_at(fd_, to, n, at);
      if (got <= 0) fail(path_, at, got < 0 ? "cannot read: " + errno_text(errno) : "the file shrank while read");
      to += got, at += static_cast<std::uint64_t>(got), n -= static_cast<std::size_t>(got);
    }
  }

 private:
  std::string path_;
  std::string_view bytes_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// One column's zstd frame, decompressed a piece at a time, as varints.
class BlockIdentityReader::Column {
 public:
  Column(const Source& source, const std::string& path, std::string_view name, std::uint64_t at, std::uint64_t bytes)
      : source_(source), path_(path), name_(name), at_(at), end_(at + bytes), context_(ZSTD_createDCtx_advanced(counted_zstd_memory())) {
    if (context_ == nullptr) throw std::bad_alloc();
  }
  ~Column() { ZSTD_freeDCtx(context_); }

  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (std::size_t i = 0;; ++i) {
      if (out_at_ == out_.size() && !refill()) fail(path_, end_, fmt::format("the {} column ends inside an end", name_));
      const auto byte = static_cast<std::uint8_t>(out_[out_at_++]);
      if (i == kMaxVarintBytes - 1 && byte > 1) fail(path_, read_at_, fmt::format("a number of the {} column does not fit 64 bits", name_));
      v |= std::uint64_t{byte & 0x7Fu} << (7 * i);
      if (!(byte & 0x80)) return v;
    }
  }
  // After the last end: nothing may be left.
  void expect_end() {
    if (out_at_ < out_.size() || refill()) fail(path_, read_at_, fmt::format("the {} column holds more than the ends the tail counts", name_));
  }
  std::uint64_t offset() const { return read_at_; }

 private:
  // More decompressed bytes; false at the frame's end.
  bool refill() {
    out_.resize(kPiece);
    out_at_ = 0;
    ZSTD_outBuffer output{out_.data(), out_.size(), 0};
    while (output.pos == 0) {
      if (in_.pos == in_.size) {
        if (at_ == end_) break;
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kPiece, end_ - at_));
        in_bytes_.resize(n);
        source_.read(at_, in_bytes_.data(), n);
        read_at_ = at_;
        at_ += n;
        in_ = ZSTD_inBuffer{in_bytes_.data(), n, 0};
      }
      const std::size_t r = ZSTD_decompressStream(context_, &output, &in_);
      if (ZSTD_isError(r)) fail(path_, read_at_ + in_.pos, fmt::format("the {} column: zstd: {}", name_, ZSTD_getErrorName(r)));
      frame_done_ = r == 0;
    }
    if (output.pos == 0 && !frame_done_ && at_ == end_ && in_.pos == in_.size && started_) {
      fail(path_, end_, fmt::format("the {} column's zstd frame is cut short", name_));
    }
    started_ = true;
    out_.resize(output.pos);
    return output.pos > 0;
  }

  const Source& source_;
  const std::string& path_;
  std::string_view name_;
  std::uint64_t at_, end_, read_at_ = 0;
  ZSTD_DCtx* context_;
  std::string in_bytes_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  std::string out_;
  std::size_t out_at_ = 0;
  bool frame_done_ = false, started_ = false;
};

BlockIdentityReader::BlockIdentityReader(const std::string& path)
    : BlockIdentityReader(path, std::make_unique<Source>(path)) {}

BlockIdentityReader::BlockIdentityReader(const std::string& name, std::string_view bytes)
    : BlockIdentityReader(name, std::make_unique<Source>(name, bytes)) {}

BlockIdentityReader::BlockIdentityReader(const std::string& name, std::unique_ptr<Source> source)
    : path_(name), source_(std::move(source)) {
  const Source& in = *source_;
  if (in.size() == 0) throw Error(SourceLocation::of_file(path_), "an empty file, not a block-identity file");
  std::array<char, kHeaderBytes> header{};
  if (in.size() < kHeaderBytes) fail(path_, 0, "not a heapql block-identity file (shorter than its header)");
  in.read(0, header.data(), header.size());
  if (std::memcmp(header.data(), kMagic.data(), kMagic.size()) != 0) {
    fail(path_, 0, "not a heapql block-identity file (no HEAPQLBI magic)");
  }
  // The version before the header's checksum: another version's header may differ.
  if (const auto version = load<std::uint32_t>(header.data() + kVersionAt); version != kVersion) {
    fail(path_, kVersionAt,
         fmt::format("block-identity format version {}; this heapql reads version {} (delete it to read the raw "
                     "twin; heapql ingest writes it again)",
                     version, kVersion));
  }
  if (load<std::uint64_t>(header.data() + kHeaderChecksumAt) != store_file::checksum_of(header.data(), kHeaderChecksumAt)) {
    fail(path_, 0, "damaged: the header's checksum does not match");
  }
  if (const auto file_bytes = load<std::uint64_t>(header.data() + kFileBytesAt); file_bytes != in.size()) {
    fail(path_, in.size(), fmt::format("truncated or extended: {} bytes where its header says {}", in.size(), file_bytes));
  }
  const auto tail_at = load<std::uint64_t>(header.data() + kTailAt);
  if (tail_at < kHeaderBytes || tail_at > in.size()) fail(path_, kTailAt, "the tail's offset points outside the file");
  std::string tail_bytes(static_cast<std::size_t>(in.size() - tail_at), '\0');
  in.read(tail_at, tail_bytes.data(), tail_bytes.size());
  if (load<std::uint64_t>(header.data() + kTailChecksumAt) != store_file::checksum_of(tail_bytes.data(), tail_bytes.size())) {
    fail(path_, tail_at, "damaged: the tail's checksum does not match");
  }
  store_file::ByteReader tail(tail_bytes, path_, "tail", tail_at);
  interpreted_.path = std::string(tail.text());
  interpreted_.size = tail.u64();
  interpreted_.mtime_ns = tail.i64();
  interpreted_.head_tail_hash = tail.u64();
  unmatched_frees_ = tail.u64();
  double_frees_ = tail.u64();
  const std::uint64_t bases = tail.count(16);
  for (std::uint64_t i = 0; i < bases; ++i) {
    const std::uint64_t ip = tail.u64();
    if (ip == 0 || ip > 0xFFFFFFFFu) tail.fail("an instruction pointer index out of range");
    if (!module_bases_.emplace(static_cast<std::uint32_t>(ip), tail.u64()).second) {
      tail.fail(fmt::format("instruction pointer {:x} has two module bases", ip));
    }
  }
  left_ = tail.u64();
  std::array<std::uint64_t, kColumns> frame_bytes{}, frame_checksums{};
  for (std::uint64_t& bytes : frame_bytes) bytes = tail.u64();
  for (std::uint64_t& checksum : frame_checksums) checksum = tail.u64();
  if (!tail.done()) tail.fail("bytes after the tail's end");
  std::array<std::uint64_t, kColumns> frame_at{};
  std::uint64_t at = kHeaderBytes;
  std::string piece;
  for (std::size_t c = 0; c < kColumns; ++c) {
    if (frame_bytes[c] > tail_at - at) tail.fail("the columns' sizes do not fit between the header and the tail");
    frame_at[c] = at;
    store_file::Checksum column;
    for (const std::uint64_t end = at + frame_bytes[c]; at < end;) {
      piece.resize(static_cast<std::size_t>(std::min<std::uint64_t>(1 << 20, end - at)));
      in.read(at, piece.data(), piece.size());
      column.add(piece.data(), piece.size());
      at += piece.size();
    }
    if (column.value() != frame_checksums[c]) {
      fail(path_, frame_at[c], fmt::format("damaged: the {} column's checksum does not match", kColumnNames[c]));
    }
  }
  if (at != tail_at) tail.fail("the columns' sizes do not fill the space between the header and the tail");
  kinds_ = std::make_unique<Column>(in, path_, kColumnNames[0], frame_at[0], frame_bytes[0]);
  times_column_ = std::make_unique<Column>(in, path_, kColumnNames[1], frame_at[1], frame_bytes[1]);
  ids_column_ = std::make_unique<Column>(in, path_, kColumnNames[2], frame_at[2], frame_bytes[2]);
}

BlockIdentityReader::~BlockIdentityReader() = default;

void BlockIdentityReader::decode(bool times, bool ids) {
  times_ = times;
  ids_ = ids;
}

bool BlockIdentityReader::next(OutOfOrderEndRecord& out) {
  if (left_ == 0) {
    kinds_->expect_end();
    if (times_) times_column_->expect_end();
    if (ids_) ids_column_->expect_end();
    return false;
  }
  --left_;
  const std::uint64_t head = kinds_->varint();
  const std::uint64_t step = head >> 2;
  if (seq_ + step < seq_) fail(path_, kinds_->offset(), "an end's event number overflows");
  seq_ += step;
  out.seq = seq_;
  out.is_free = (head & 2) != 0;
  out.temporary = (head & 1) != 0;
  if (out.is_free && out.temporary) fail(path_, kinds_->offset(), "a free out of order marked temporary");
  out.bucket = 0;
  if (!out.is_free) {
    const std::uint64_t bucket = kinds_->varint();
    if (bucket >= 0xFFFFFFFFu) fail(path_, kinds_->offset(), "an end's bucket out of range");
    out.bucket = static_cast<std::uint32_t>(bucket);
  }
  out.ns_back = 0;
  if (times_) {
    const std::uint64_t ns_back = times_column_->varint();
    if (ns_back > static_cast<std::uint64_t>(kNeverNs)) fail(path_, times_column_->offset(), "an end's time out of range");
    out.ns_back = static_cast<std::int64_t>(ns_back);
  }
  out.id_back = out.seq_back = 0;
  if (ids_) {
    out.id_back = ids_column_->varint();
    out.seq_back = ids_column_->varint();
  }
  return true;
}

FileIdentity peek_block_identity_file(const std::string& path) { return BlockIdentityReader(path).interpreted(); }

// One column's varints into a zstd stream, kept in a scratch file beside
// the file until commit() copies it in.
class BlockIdentityWriter::Column {
 public:
  explicit Column(const std::string& folder) : compressed_(folder), context_(ZSTD_createCCtx_advanced(counted_zstd_memory())) {
    if (context_ == nullptr) throw std::bad_alloc();
    // A small window: three of these live beside an ingest, whose memory
    // is counted; the columns' numbers repeat little beyond it anyway.
    ZSTD_CCtx_setParameter(context_, ZSTD_c_compressionLevel, 3);
    ZSTD_CCtx_setParameter(context_, ZSTD_c_windowLog, 18);
  }
  ~Column() { ZSTD_freeCCtx(context_); }
  std::string& pending() { return pending_; }
  void maybe_flush() {
    if (pending_.size() >= (256 << 10)) flush(ZSTD_e_continue);
  }
  // Ends the frame; the column is then whole in its scratch file.
  const store_file::ScratchColumn<char>& finish() {
    flush(ZSTD_e_end);
    compressed_.flush();
    return compressed_;
  }

 private:
  void flush(ZSTD_EndDirective mode) {
    ZSTD_inBuffer input{pending_.data(), pending_.size(), 0};
    std::array<char, 128 << 10> out{};
    for (;;) {
      ZSTD_outBuffer output{out.data(), out.size(), 0};
      const std::size_t r = ZSTD_compressStream2(context_, &output, &input, mode);
      if (ZSTD_isError(r)) throw Error(std::string("block-identity file: zstd: ") + ZSTD_getErrorName(r));
      compressed_.append(std::span<const char>(out.data(), output.pos));
      if (mode == ZSTD_e_continue ? input.pos == input.size : r == 0) break;
    }
    pending_.clear();
  }

  store_file::ScratchColumn<char> compressed_;
  ZSTD_CCtx* context_;
  std::string pending_;
};

BlockIdentityWriter::BlockIdentityWriter(std::string path, FileIdentity interpreted)
    : path_(std::move(path)), interpreted_(std::move(interpreted)) {
  const std::string folder = store_file::folder_of(path_);
  kinds_ = std::make_unique<Column>(folder);
  times_ = std::make_unique<Column>(folder);
  ids_ = std::make_unique<Column>(folder);
}

BlockIdentityWriter::~BlockIdentityWriter() = default;

void BlockIdentityWriter::on_out_of_order_end(const LiveBlock& block, std::uint64_t seq, std::int64_t ns, bool is_free,
                                              bool temporary) {
  put_varint(kinds_->pending(), (seq - last_seq_) << 2 | (is_free ? 2u : 0u) | (temporary ? 1u : 0u));
  if (!is_free) put_varint(kinds_->pending(), block.bucket.value);
  last_seq_ = seq;
  put_varint(times_->pending(), static_cast<std::uint64_t>(ns - block.alloc_ns));
  put_varint(ids_->pending(), matcher_->block_count() - 1 - block.id.value);
  put_varint(ids_->pending(), seq - 1 - block.alloc_seq);
  ++count_;
  kinds_->maybe_flush();
  times_->maybe_flush();
  ids_->maybe_flush();
}

std::unique_ptr<store_file::OutputFile> BlockIdentityWriter::write_file(std::uint64_t unmatched_frees,
                                                                    std::uint64_t double_frees) {
  const std::array<const store_file::ScratchColumn<char>*, kColumns> columns = {&kinds_->finish(), &times_->finish(),
                                                                                 &ids_->finish()};
  auto out = std::make_unique<store_file::OutputFile>(path_);
  store_file::OutputFile& file = *out;
  file.write_zeros(kHeaderBytes);
  for (const auto* column : columns) file.append_from(column->fd(), column->count());
  const std::uint64_t tail_at = file.size();
  store_file::ByteWriter tail;
  tail.text(interpreted_.path);
  tail.u64(interpreted_.size);
  tail.i64(interpreted_.mtime_ns);
  tail.u64(interpreted_.head_tail_hash);
  tail.u64(unmatched_frees);
  tail.u64(double_frees);
  tail.u64(module_bases_.size());
  for (const auto& [ip, base] : module_bases_) {
    tail.u64(ip);
    tail.u64(base);
  }
  tail.u64(count_);
  for (const auto* column : columns) tail.u64(column->count());
  for (const auto* column : columns) tail.u64(column->checksum());
  file.write(tail.bytes());
  std::string header(kHeaderBytes, '\0');
  std::memcpy(header.data(), kMagic.data(), kMagic.size());
  put<std::uint32_t>(header, kVersionAt, kVersion);
  put<std::uint64_t>(header, kFileBytesAt, file.size());
  put<std::uint64_t>(header, kTailAt, tail_at);
  put<std::uint64_t>(header, kTailChecksumAt, store_file::checksum_of(tail.bytes().data(), tail.bytes().size()));
  put<std::uint64_t>(header, kHeaderChecksumAt, store_file::checksum_of(header.data(), kHeaderChecksumAt));
  file.pwrite_at(0, header);
  return out;
}

void BlockIdentityWriter::commit(std::uint64_t unmatched_frees, std::uint64_t double_frees) {
  write_file(unmatched_frees, double_frees)->commit();
}

std::future<void> BlockIdentityWriter::commit_in_background(std::uint64_t unmatched_frees, std::uint64_t double_frees) {
  std::shared_ptr<store_file::OutputFile> file = write_file(unmatched_frees, double_frees);
  return std::async(std::launch::async, [file] { file->commit(); });
}

std::string block_identity_beside(const std::string& interpreted_path) { return interpreted_path + ".hqid"; }

bool is_block_identity_file(const std::string& path) {
  return file_begins_with(path, std::string_view(kMagic.data(), kMagic.size()));
}

}  // namespace heapql::heaptrack
