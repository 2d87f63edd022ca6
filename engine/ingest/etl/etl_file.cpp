// EtlFile: the buffer walk, Xpress decompression of compressed buffers, the
// record headers of every kind and the first logfile header (etw-heap.md §4).
#include "engine/ingest/etl/etl_file.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <queue>
#include <tuple>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "engine/error.h"
#include "engine/ingest/etl/xpress.h"
#include "engine/ingest/progress_bar.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/utf8_wide.h"

namespace heapql {

namespace {

constexpr std::size_t kBufferHeaderSize = 72;  // WMI_BUFFER_HEADER
constexpr std::uint16_t kBufferFlagCompressed = 0x40;
constexpr std::uint32_t kNoMoreRecords = 0xFFFFFFFF;
constexpr std::uint16_t kLogfileHeaderHook = 0x0000;
constexpr std::uint16_t kEventHeaderFlagExtendedInfo = 0x01;
constexpr std::size_t kExtendedItemHeaderSize = 8;
// A compressed buffer states its own decompressed size; real loggers use at
// most a few MiB, so a bigger claim is corruption, not a reason to allocate.
constexpr std::uint32_t kMaxDecompressedBuffer = std::uint32_t{64} << 20;
// TRACE_LOGFILE_HEADER sizes and the offsets that move with the pointer size.
constexpr std::size_t kLogfileHeaderSize32 = 272;
constexpr std::size_t kLogfileHeaderSize64 = 280;
constexpr std::size_t kSniffBytes = 200;
constexpr std::uint16_t kHeaderBufferType = 4;  // the buffer holding a session's logfile header

std::uint16_t u16_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  return static_cast<std::uint16_t>(bytes[at] | bytes[at + 1] << 8);
}
std::uint32_t u32_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  return static_cast<std::uint32_t>(u16_at(bytes, at)) | static_cast<std::uint32_t>(u16_at(bytes, at + 2)) << 16;
}
std::uint64_t u64_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  return static_cast<std::uint64_t>(u32_at(bytes, at)) | static_cast<std::uint64_t>(u32_at(bytes, at + 4)) << 32;
}
std::size_t align8(std::size_t value) { return (value + 7) & ~std::size_t{7}; }

struct BufferHeader {
  std::uint32_t size = 0;          // bytes in the file
  std::uint32_t saved_offset = 0;  // end of valid data, uncompressed
  std::uint32_t client_context = 0;
  std::uint16_t flags = 0;
  std::uint16_t type = 0;

  static BufferHeader parse(std::span<const std::uint8_t> bytes) {
    BufferHeader header;
    header.size = u32_at(bytes, 0x00);
    header.saved_offset = u32_at(bytes, 0x04);
    header.client_context = u32_at(bytes, 0x28);
    header.flags = u16_at(bytes, 0x34);
    header.type = u16_at(bytes, 0x36);
    return header;
  }
  bool compressed() const { return (flags & kBufferFlagCompressed) != 0; }
  // The low 16 bits: the processor index (with flag 0x20) or number.
  std::uint32_t processor() const { return client_context & 0xFFFFU; }
  std::uint32_t logger() const { return client_context >> 16; }
};

// Where each header kind keeps its fields (etw-heap.md §4.3).
struct HeaderLayout {
  std::size_t header_size;
  bool size_after_version;  // SYSTEM/COMPACT/PERFINFO: u16 size at +4, else at +0
  std::uint8_t pointer_size;
};

std::optional<HeaderLayout> layout_of(std::uint8_t kind) {
  switch (static_cast<EtlHeaderKind>(kind)) {
    case EtlHeaderKind::kSystem32: return HeaderLayout{32, true, 4};
    case EtlHeaderKind::kSystem64: return HeaderLayout{32, true, 8};
    case EtlHeaderKind::kCompact32: return HeaderLayout{24, true, 4};
    case EtlHeaderKind::kCompact64: return HeaderLayout{24, true, 8};
    case EtlHeaderKind::kPerfinfo32: return HeaderLayout{16, true, 4};
    case EtlHeaderKind::kPerfinfo64: return HeaderLayout{16, true, 8};
    case EtlHeaderKind::kFull32: return HeaderLayout{48, false, 4};
    case EtlHeaderKind::kFull64: return HeaderLayout{48, false, 8};
    case EtlHeaderKind::kInstance32: return HeaderLayout{72, false, 4};
    case EtlHeaderKind::kInstance64: return HeaderLayout{72, false, 8};
    case EtlHeaderKind::kEventHeader32: return HeaderLayout{80, false, 4};
    case EtlHeaderKind::kEventHeader64: return HeaderLayout{80, false, 8};
  }
  return std::nullopt;
}

bool is_system(EtlHeaderKind kind) { return kind == EtlHeaderKind::kSystem32 || kind == EtlHeaderKind::kSystem64; }

EtlGuid guid_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  EtlGuid guid{};
  std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), guid.size(), guid.begin());
  return guid;
}

// Fills the header fields of `record` from `bytes` (exactly the record, at
// least header_size long). Returns where the user data starts, or an error.
std::size_t decode_header_fields(std::span<const std::uint8_t> bytes, const HeaderLayout& layout,
                                 EtlRecord& record, std::string& error) {
  switch (record.kind) {
    case EtlHeaderKind::kSystem32:
    case EtlHeaderKind::kSystem64:
    case EtlHeaderKind::kCompact32:
    case EtlHeaderKind::kCompact64:
      record.classic = true;
      record.version = u16_at(bytes, 0);
      record.hook = u16_at(bytes, 6);
      record.has_ids = true;
      record.thread = u32_at(bytes, 8);
      record.process = u32_at(bytes, 12);
      record.timestamp = static_cast<std::int64_t>(u64_at(bytes, 16));
      return layout.header_size;
    case EtlHeaderKind::kPerfinfo32:
    case EtlHeaderKind::kPerfinfo64:
      record.classic = true;
      record.version = u16_at(bytes, 0);
      record.hook = u16_at(bytes, 6);
      record.timestamp = static_cast<std::int64_t>(u64_at(bytes, 8));
      return layout.header_size;
    case EtlHeaderKind::kFull32:
    case EtlHeaderKind::kFull64:
    case EtlHeaderKind::kInstance32:
    case EtlHeaderKind::kInstance64:
      record.opcode = bytes[4];
      record.version = u16_at(bytes, 6);
      record.has_ids = true;
      record.thread = u32_at(bytes, 8);
      record.process = u32_at(bytes, 12);
      record.timestamp = static_cast<std::int64_t>(u64_at(bytes, 16));
      record.guid = guid_at(bytes, 24);
      return layout.header_size;
    case EtlHeaderKind::kEventHeader32:
    case EtlHeaderKind::kEventHeader64: {
      record.has_ids = true;
      record.thread = u32_at(bytes, 8);
      record.process = u32_at(bytes, 12);
      record.timestamp = static_cast<std::int64_t>(u64_at(bytes, 16));
      record.guid = guid_at(bytes, 24);
      record.event_id = u16_at(bytes, 40);
      record.version = bytes[42];
      record.opcode = bytes[45];
      std::size_t user_data = layout.header_size;
      if ((u16_at(bytes, 4) & kEventHeaderFlagExtendedInfo) == 0) return user_data;
      // Extended-data items (stack, SID, related activity...): an 8-byte
      // item header whose third u16 has bit 0 set when another item
      // follows, then DataSize bytes padded to 8.
      for (bool more = true; more;) {
        if (bytes.size() - user_data < kExtendedItemHeaderSize) {
          error = fmt::format("extended-data item at record offset {} runs past the record size {} (expected an "
                              "8-byte item header)",
                              user_data, bytes.size());
          return 0;
        }
        more = (u16_at(bytes, user_data + 4) & 1U) != 0;
        const std::size_t data_size = u16_at(bytes, user_data + 6);
        if (bytes.size() - user_data - kExtendedItemHeaderSize < data_size) {
          error = fmt::format("extended-data item at record offset {} holds {} bytes, past the record size {}",
                              user_data, data_size, bytes.size());
          return 0;
        }
        user_data = std::min(align8(user_data + kExtendedItemHeaderSize + data_size), bytes.size());
      }
      return user_data;
    }
  }
  return layout.header_size;
}

EtlLogfileHeader parse_logfile_header(std::span<const std::uint8_t> payload, std::uint8_t pointer_size) {
  // Offsets up to CpuSpeedInMHz are the same for both widths; the two
  // pointers (LoggerName, LogFileName) then shift everything after them.
  // TimeZone (172 bytes) is followed by 4 bytes of padding, which aligns
  // BootTime to 8.
  const std::size_t shift = pointer_size == 8 ? 8 : 0;
  EtlLogfileHeader header;
  header.buffer_size = u32_at(payload, 0);
  header.os_version = u32_at(payload, 4);
  header.provider_version = u32_at(payload, 8);
  header.processors = u32_at(payload, 12);
  header.log_file_mode = u32_at(payload, 32);
  header.buffers_written = u32_at(payload, 36);
  header.pointer_size = u32_at(payload, 44);
  header.events_lost = u32_at(payload, 48);
  header.cpu_speed_mhz = u32_at(payload, 52);
  header.perf_freq = u64_at(payload, 248 + shift);
  header.start_time_filetime = u64_at(payload, 256 + shift);
  header.clock_type = u32_at(payload, 264 + shift);
  header.buffers_lost = u32_at(payload, 268 + shift);
  return header;
}

// A file cut at a buffer's end (a copy cut at a multiple of 64 KiB) has
// whole buffers only, fewer than the session wrote. Only a sequential file
// holds each buffer the session wrote, once: a circular, appended or
// new-file-per-size one need not.
std::optional<TraceCut> cut_between_buffers(const EtlLogfileHeader& header, std::uint64_t buffers,
                                            const std::string& path, std::uint64_t file_size) {
  constexpr std::uint32_t kCircular = 0x2, kAppend = 0x4, kNewFile = 0x8;
  if ((header.log_file_mode & (kCircular | kAppend | kNewFile)) != 0 || header.buffers_written <= buffers) {
    return std::nullopt;
  }
  return TraceCut{path, file_size, 0,
                  fmt::format("its logfile header counts {} buffers written, and the file ends after {}",
                              header.buffers_written, buffers)};
}

}  // namespace

bool EtlFile::sniff(const std::string& path) {
  std::ifstream in(path_from_utf8(path), std::ios::binary);
  if (!in) return false;
  std::array<std::uint8_t, kSniffBytes> head{};
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  const auto got = static_cast<std::size_t>(in.gcount());
  constexpr std::size_t kFirstRecordEnd = kBufferHeaderSize + 32;
  if (got < kFirstRecordEnd) return false;
  const std::span<const std::uint8_t> bytes(head.data(), got);
  const BufferHeader buffer = BufferHeader::parse(bytes);
  if (buffer.size < kFirstRecordEnd || buffer.saved_offset < kFirstRecordEnd) return false;
  // A compressed header buffer cannot be looked into from its first bytes.
  if (buffer.compressed()) return buffer.type == kHeaderBufferType;
  if (buffer.saved_offset > buffer.size) return false;
  const auto kind = static_cast<EtlHeaderKind>(bytes[kBufferHeaderSize + 2]);
  return is_system(kind) && u16_at(bytes, kBufferHeaderSize + 4) >= 32 &&
         u16_at(bytes, kBufferHeaderSize + 6) == kLogfileHeaderHook;
}

namespace {

// Where the bytes come from: the file (seeking, since the merge visits the
// buffers of several processors in turn) or bytes in memory.
class ByteSource {
 public:
  ByteSource(const std::string& path, std::optional<std::string_view> bytes) : path_(path), bytes_(bytes) {}

  // Opens the file (not for bytes in memory) and returns its size.
  std::uint64_t open() {
    if (bytes_) return bytes_->size();
    std::error_code size_error;
    if (std::filesystem::is_directory(path_from_utf8(path_), size_error)) {
      throw Error(SourceLocation::of_file(path_), "cannot open: " + errno_text(EISDIR));
    }
    in_.open(path_from_utf8(path_), std::ios::binary);
    if (!in_) throw Error(SourceLocation::of_file(path_), "cannot open: " + errno_text(errno));
    const std::uint64_t size = std::filesystem::file_size(path_from_utf8(path_), size_error);
    if (size_error) throw Error(SourceLocation::of_file(path_), "cannot open: " + size_error.message());
    return size;
  }

  // False when fewer than `size` bytes are there at `at`.
  bool read_at(std::uint8_t* into, std::size_t size, std::uint64_t at) {
    if (bytes_) {
      if (at > bytes_->size() || bytes_->size() - at < size) return false;
      std::memcpy(into, bytes_->data() + at, size);
      return true;
    }
    if (position_ != at || !in_) {
      in_.clear();
      in_.seekg(static_cast<std::streamoff>(at));
    }
    in_.read(reinterpret_cast<char*>(into), static_cast<std::streamsize>(size));
    const auto got = static_cast<std::size_t>(in_.gcount());
    position_ = at + got;
    return got == size;
  }

 private:
  const std::string& path_;
  std::optional<std::string_view> bytes_;
  std::ifstream in_;
  std::uint64_t position_ = 0;
};

// The buffers one logger wrote for one processor, in file order. Each is in
// time order and follows the previous one in time (etw-heap.md §3.4), so a
// stream is read front to back with one buffer in memory.
struct BufferStream {
  // Merge order among equal timestamps: by this key, never by file place,
  // so the same buffers in another order read the same.
  std::uint32_t session = 0;  // which logfile-header buffer it follows (concatenated files)
  std::uint32_t logger = 0;
  std::uint32_t processor = 0;
  std::vector<std::uint64_t> buffers;  // file offsets
  std::size_t next_buffer = 0;

  // The buffer being read: its header, bytes and records.
  std::uint64_t offset = 0;
  BufferHeader header;
  std::vector<std::uint8_t> raw;       // as stored
  std::vector<std::uint8_t> inflated;  // its records when it was compressed
  std::span<const std::uint8_t> data;  // the records, from buffer offset 72 to the data end
  std::size_t at = 0;                  // the next record, in `data`
  EtlRecord record;                    // the head: the stream's next record in time
  std::size_t bytes_held = 0;          // raw + inflated, counted against max_bytes_held
};

}  // namespace

void EtlFile::read(const Visitor& visit, const EtlReadOptions& options) {
  header_ = {};
  stats_ = {};
  cut_.reset();
  ByteSource source(path_, bytes_);
  const std::uint64_t file_size = source.open();
  if (file_size == 0) throw Error(SourceLocation::of_file(path_), "empty file");
  stats_.bytes = file_size;

  bool header_seen = false;
  // Until the logfile header is read the file may be anything: say so.
  auto fail = [&](std::uint64_t at, const std::string& what) {
    throw Error(SourceLocation{path_, {}, {}, at}, header_seen ? what : "not an ETL file: " + what);
  };
  auto read_exactly = [&](std::uint8_t* into, std::size_t size, std::uint64_t at) {
    if (!source.read_at(into, size, at)) fail(at, "read failed: the file ended early");
  };

  std::size_t bytes_held = 0;  // by every stream's buffer
  std::size_t streams_held = 0;
  auto hold = [&](BufferStream& stream) {
    bytes_held -= stream.bytes_held;
    stream.bytes_held = stream.raw.capacity() + stream.inflated.capacity();
    bytes_held += stream.bytes_held;
    if (bytes_held > options.max_bytes_held) {
      fail(stream.offset, fmt::format("buffer at byte {}: merging the buffers of {} processor streams by time would "
                                      "hold {} bytes at once (expected at most {})",
                                      stream.offset, streams_held, bytes_held, options.max_bytes_held));
    }
  };
  // Reads the buffer at `stream.offset` (its header in stream.header) and
  // finds its records.
  auto load_buffer = [&](BufferStream& stream) {
    const BufferHeader& buffer = stream.header;
    const std::uint64_t buffer_offset = stream.offset;
    stream.raw.resize(buffer.size);
    hold(stream);
    read_exactly(stream.raw.data(), buffer.size, buffer_offset);
    if (buffer.compressed()) {
      if (buffer.saved_offset < kBufferHeaderSize || buffer.saved_offset - kBufferHeaderSize > kMaxDecompressedBuffer) {
        fail(buffer_offset, fmt::format("buffer at byte {}: compressed buffer with SavedOffset {} (expected 72 to {})",
                                        buffer_offset, buffer.saved_offset, kMaxDecompressedBuffer + kBufferHeaderSize));
      }
      const std::string problem =
          xpress_decompress(std::span<const std::uint8_t>(stream.raw).subspan(kBufferHeaderSize),
                            buffer.saved_offset - kBufferHeaderSize, stream.inflated);
      if (!problem.empty()) {
        fail(buffer_offset, fmt::format("buffer at byte {}: corrupt Xpress data (compressed data starts at file byte "
                                        "{}): {}",
                                        buffer_offset, buffer_offset + kBufferHeaderSize, problem));
      }
      stream.data = stream.inflated;
      hold(stream);
    } else {
      if (buffer.saved_offset < kBufferHeaderSize || buffer.saved_offset > buffer.size) {
        fail(buffer_offset, fmt::format("buffer at byte {}: SavedOffset {} is outside the buffer (expected {} to {})",
                                        buffer_offset, buffer.saved_offset, kBufferHeaderSize, buffer.size));
      }
      stream.data =
          std::span<const std::uint8_t>(stream.raw).subspan(kBufferHeaderSize, buffer.saved_offset - kBufferHeaderSize);
    }
    stream.at = 0;
  };

  // Decodes the record at stream.at into stream.record; false at the data end.
  auto decode_next = [&](BufferStream& stream) {
    const std::span<const std::uint8_t> data = stream.data;
    const std::size_t at = stream.at;
    // A record header needs at least a word; 0xFFFFFFFF there ends the data.
    if (at >= data.size() || data.size() - at < 4 || u32_at(data, at) == kNoMoreRecords) return false;
    // Offsets below are within `data`; messages give them from the buffer
    // start, as the layouts count them.
    auto fail_record = [&](const std::string& what) {
      fail(stream.offset, fmt::format("buffer at byte {}: record at buffer offset {}{}: {}", stream.offset,
                                      at + kBufferHeaderSize, stream.header.compressed() ? " (decompressed)" : "",
                                      what));
    };
    const std::uint8_t kind_byte = data[at + 2];
    const auto layout = layout_of(kind_byte);
    if (!layout) fail_record(fmt::format("unknown trace header kind 0x{:02x} (expected 0x01-0x04, 0x0a, 0x0b, "
                                         "0x10-0x15)",
                                         kind_byte));
    const std::size_t size = layout->size_after_version ? u16_at(data, at + 4) : u16_at(data, at);
    if (size < layout->header_size) {
      fail_record(fmt::format("record size {} is smaller than its {} header ({} bytes)", size,
                              etl_header_kind_name(static_cast<EtlHeaderKind>(kind_byte)), layout->header_size));
    }
    if (size > data.size() - at) {
      fail_record(fmt::format("record size {} runs past the data end (expected at most {})", size, data.size() - at));
    }
    const auto bytes = data.subspan(at, size);
    EtlRecord& record = stream.record;
    record = EtlRecord{};
    record.kind = static_cast<EtlHeaderKind>(kind_byte);
    record.pointer_size = layout->pointer_size;
    record.processor = stream.header.processor();
    record.buffer_offset = stream.offset;
    record.offset_in_buffer = static_cast<std::uint32_t>(at + kBufferHeaderSize);
    std::string problem;
    const std::size_t user_data = decode_header_fields(bytes, *layout, record, problem);
    if (!problem.empty()) fail_record(problem);
    record.payload = bytes.subspan(user_data);
    stream.at = at + align8(size);
    return true;
  };

  // ---- pass 1: the buffer headers, into one stream per logger and processor ----
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, BufferStream> streams;
  std::uint32_t session = 0;
  std::uint64_t buffer_offset = 0;
  std::array<std::uint8_t, kBufferHeaderSize> header_bytes{};
  while (buffer_offset < file_size) {
    const std::uint64_t left = file_size - buffer_offset;
    if (left < kBufferHeaderSize) {
      // A short tail after complete buffers: a recording that stopped
      // mid-write (etw-heap.md §4.6). Before the logfile header it is no
      // ETL file at all.
      if (!header_seen) {
        fail(buffer_offset, fmt::format("buffer at byte {}: the file ends {} bytes into the buffer header (expected "
                                        "a {}-byte WMI_BUFFER_HEADER)",
                                        buffer_offset, left, kBufferHeaderSize));
      }
      cut_ = TraceCut{path_, buffer_offset, left, fmt::format("the file ends {} bytes into a buffer header", left)};
      break;
    }
    read_exactly(header_bytes.data(), kBufferHeaderSize, buffer_offset);
    const BufferHeader buffer = BufferHeader::parse(header_bytes);
    if (buffer.size < kBufferHeaderSize) {
      fail(buffer_offset, fmt::format("buffer at byte {}: BufferSize {} is smaller than the {}-byte buffer header",
                                      buffer_offset, buffer.size, kBufferHeaderSize));
    }
    if (buffer.size > left) {
      if (!header_seen) {
        fail(buffer_offset, fmt::format("buffer at byte {}: BufferSize {} runs past the end of the file (expected at "
                                        "most {}, the file is {} bytes)",
                                        buffer_offset, buffer.size, left, file_size));
      }
      // The last buffer was cut short: the complete buffers before it are read.
      cut_ = TraceCut{path_, buffer_offset, left,
                      fmt::format("the last buffer is cut short ({} of its {} bytes)", left, buffer.size)};
      break;
    }
    if (!header_seen) {
      // The first record of the file is the logfile header: read it now, so
      // header() is known before any record is visited.
      BufferStream first;
      first.offset = buffer_offset;
      first.header = buffer;
      load_buffer(first);
      if (!decode_next(first)) {
        fail(buffer_offset, fmt::format("buffer at byte {}: no records (expected a logfile header)", buffer_offset));
      }
      const EtlRecord& record = first.record;
      const std::string_view decompressed = buffer.compressed() ? " (decompressed)" : "";
      if (!is_system(record.kind) || record.hook != kLogfileHeaderHook) {
        fail(buffer_offset, fmt::format("buffer at byte {}: record at buffer offset {}{}: the first record is {} hook "
                                        "0x{:04x} (expected a SYSTEM32/64 logfile header, hook 0x0000)",
                                        buffer_offset, record.offset_in_buffer, decompressed,
                                        etl_header_kind_name(record.kind), record.hook));
      }
      const std::size_t needed = record.pointer_size == 8 ? kLogfileHeaderSize64 : kLogfileHeaderSize32;
      if (record.payload.size() < needed) {
        fail(buffer_offset, fmt::format("buffer at byte {}: record at buffer offset {}{}: logfile header payload is "
                                        "{} bytes (expected at least {})",
                                        buffer_offset, record.offset_in_buffer, decompressed, record.payload.size(),
                                        needed));
      }
      header_ = parse_logfile_header(record.payload, record.pointer_size);
      header_.header_timestamp = record.timestamp;
      header_seen = true;
      bytes_held -= first.bytes_held;  // read again with its stream
    } else if (buffer.type == kHeaderBufferType) {
      ++session;  // another session's file after this one's (concatenated files)
    }
    BufferStream& stream = streams[{session, buffer.logger(), buffer.processor()}];
    stream.session = session;
    stream.logger = buffer.logger();
    stream.processor = buffer.processor();
    stream.buffers.push_back(buffer_offset);
    ++stats_.buffers;
    buffer_offset += buffer.size;
  }
  if (!cut_) cut_ = cut_between_buffers(header_, stats_.buffers, path_, file_size);

  // ---- pass 2: every stream's records, merged by timestamp ----
  ProgressBar progress(path_, file_size, options.show_progress);
  std::uint64_t bytes_read = 0;
  // Advances `stream` to its next record, loading its next buffer when one
  // ends; false when the stream has no more records.
  auto advance = [&](BufferStream& stream) {
    while (!decode_next(stream)) {
      if (stream.next_buffer == stream.buffers.size()) {
        stream.raw = {};
        stream.inflated = {};
        stream.data = {};
        hold(stream);
        --streams_held;
        return false;
      }
      stream.offset = stream.buffers[stream.next_buffer++];
      read_exactly(header_bytes.data(), kBufferHeaderSize, stream.offset);
      stream.header = BufferHeader::parse(header_bytes);
      load_buffer(stream);
      if (stream.header.compressed()) ++stats_.compressed_buffers;
      bytes_read += stream.header.size;
      progress.update(bytes_read);
    }
    return true;
  };
  std::vector<BufferStream*> ordered;  // by key: the merge's tie order
  for (auto& [key, stream] : streams) ordered.push_back(&stream);
  streams_held = ordered.size();
  using Head = std::pair<std::int64_t, std::size_t>;  // (timestamp, index in `ordered`)
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    if (advance(*ordered[i])) heads.emplace(ordered[i]->record.timestamp, i);
  }
  // Counted by the kind byte, named once at the end: no string per record.
  std::array<std::uint64_t, 256> records_by_kind{};
  std::int64_t last_timestamp = std::numeric_limits<std::int64_t>::min();
  while (!heads.empty()) {
    const std::size_t index = heads.top().second;
    heads.pop();
    BufferStream& stream = *ordered[index];
    const EtlRecord& record = stream.record;
    // A stream whose buffers are not in time order: its record is read
    // where it comes, late, and counted (never a reason to stop).
    if (record.timestamp < last_timestamp) ++stats_.records_out_of_time_order;
    last_timestamp = std::max(last_timestamp, record.timestamp);
    if (is_system(record.kind) && record.hook == kLogfileHeaderHook) ++stats_.logfile_headers;
    ++stats_.records;
    ++records_by_kind[static_cast<std::uint8_t>(record.kind)];
    visit(record);
    if (advance(stream)) heads.emplace(stream.record.timestamp, index);
  }
  for (std::size_t kind = 0; kind < records_by_kind.size(); ++kind) {
    if (records_by_kind[kind] != 0) {
      stats_.records_by_header_kind[std::string(etl_header_kind_name(static_cast<EtlHeaderKind>(kind)))] =
          records_by_kind[kind];
    }
  }
}

}  // namespace heapql
