// Synthetic ETL writer (layout decisions in the header; formats in
// ../shared/formats/etw-heap.md §3-§4).
#include "tests/support/etl_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "tests/support/xpress_compressor.h"

namespace heapql::test {
namespace {

constexpr std::size_t kBufferHeaderSize = 72;
constexpr std::uint8_t kKernelMarkerFlags = 0xC0;  // TRACE_HEADER_FLAG | EVENT_TRACE
constexpr std::uint16_t kFlagFlushMarker = 0x01;
constexpr std::uint16_t kFlagProcIndex = 0x20;
constexpr std::uint16_t kFlagCompressed = 0x40;
constexpr std::uint16_t kBufferTypeGeneric = 0;
constexpr std::uint16_t kBufferTypeHeader = 4;

std::size_t align8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

// Little-endian byte sink with pointer-width fields.
class Bytes {
 public:
  explicit Bytes(unsigned pointer_size) : pointer_size_(pointer_size) {}
  Bytes& u8(std::uint64_t v) { return put(v, 1); }
  Bytes& u16(std::uint64_t v) { return put(v, 2); }
  Bytes& u32(std::uint64_t v) { return put(v, 4); }
  Bytes& u64(std::uint64_t v) { return put(v, 8); }
  Bytes& ptr(std::uint64_t v) { return put(v, pointer_size_); }
  Bytes& zeros(std::size_t n) {
    data_.insert(data_.end(), n, 0);
    return *this;
  }
  Bytes& raw(std::span<const std::uint8_t> bytes) {
    data_.insert(data_.end(), bytes.begin(), bytes.end());
    return *this;
  }
  Bytes& ansi_z(std::string_view text) {
    data_.insert(data_.end(), text.begin(), text.end());
    return u8(0);
  }
  Bytes& utf16_z(std::u16string_view text) {
    for (char16_t c : text) u16(c);
    return u16(0);
  }
  // A fixed-size UTF-16 field (TIME_ZONE_INFORMATION names), NUL-padded.
  Bytes& utf16_fixed(std::u16string_view text, std::size_t chars) {
    for (std::size_t i = 0; i < chars; ++i) u16(i < text.size() ? text[i] : 0);
    return *this;
  }
  std::size_t size() const { return data_.size(); }
  std::vector<std::uint8_t>& data() { return data_; }
  std::vector<std::uint8_t> take() { return std::move(data_); }

 private:
  Bytes& put(std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) data_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  unsigned pointer_size_;
  std::vector<std::uint8_t> data_;
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::uint16_t record_size16(std::size_t size) {
  if (size > 0xFFFF) throw std::invalid_argument(fmt::format("ETL record of {} bytes exceeds the u16 size field", size));
  return static_cast<std::uint16_t>(size);
}

}  // namespace

EtlGuid etl_guid(std::string_view text) {
  // Groups 8-4-4-4-12; the first three are little-endian numbers in the file.
  std::string hex;
  for (char c : text) {
    if (c == '-' || c == '{' || c == '}') continue;
    if (hex_value(c) < 0) throw std::invalid_argument(fmt::format("bad GUID text '{}'", text));
    hex.push_back(c);
  }
  if (hex.size() != 32) throw std::invalid_argument(fmt::format("bad GUID text '{}'", text));
  std::array<std::uint8_t, 16> in_text_order{};
  for (std::size_t i = 0; i < 16; ++i)
    in_text_order[i] = static_cast<std::uint8_t>(hex_value(hex[2 * i]) << 4 | hex_value(hex[2 * i + 1]));
  EtlGuid guid{};
  const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
  for (int i = 0; i < 16; ++i) guid[i] = in_text_order[order[i]];
  return guid;
}

EtlWriter::EtlWriter(EtlWriterOptions options) : options_(std::move(options)) {
  if (options_.pointer_size != 4 && options_.pointer_size != 8)
    throw std::invalid_argument(fmt::format("pointer size {} (want 4 or 8)", options_.pointer_size));
  if (options_.processors == 0 || options_.processors > 0xFFFF)
    throw std::invalid_argument(fmt::format("{} processors", options_.processors));
  if (options_.buffer_size < 1024 || options_.buffer_size % 8 != 0)
    throw std::invalid_argument(fmt::format("buffer size {} (want a multiple of 8, >= 1024)", options_.buffer_size));
  open_.resize(options_.processors);
  // The logfile-header record is laid out at finish(), but counted now.
  ++record_count_;
  ++records_by_kind_[options_.pointer_size == 8 ? EtlHeaderKind::kSystem64 : EtlHeaderKind::kSystem32];
  last_timestamp_ = options_.header_timestamp;
}

std::uint64_t EtlWriter::ticks_per_second() const {
  switch (options_.clock_type) {
    case 2: return 10'000'000;
    case 3: return std::uint64_t{options_.cpu_speed_mhz} * 1'000'000;
    default: return options_.perf_freq;
  }
}

std::int64_t EtlWriter::ticks_at_ns(std::int64_t ns) const {
  const auto tps = static_cast<std::int64_t>(ticks_per_second());
  return options_.header_timestamp + (ns / 1'000'000'000) * tps + (ns % 1'000'000'000) * tps / 1'000'000'000;
}

unsigned EtlWriter::width(unsigned pointer_size) const {
  if (pointer_size == 0) return options_.pointer_size;
  if (pointer_size != 4 && pointer_size != 8)
    throw std::invalid_argument(fmt::format("pointer size {} (want 4 or 8)", pointer_size));
  return pointer_size;
}

void EtlWriter::check_open() const {
  if (finished_) throw std::logic_error("EtlWriter: record appended after finish()");
}

void EtlWriter::append(std::uint32_t processor, std::vector<std::uint8_t> record, EtlHeaderKind kind,
                       std::int64_t ts) {
  check_open();
  if (processor >= options_.processors)
    throw std::invalid_argument(fmt::format("processor {} of {}", processor, options_.processors));
  const std::size_t padded = align8(record.size());
  if (kBufferHeaderSize + padded > options_.buffer_size)
    throw std::invalid_argument(
        fmt::format("record of {} bytes does not fit a {}-byte buffer", record.size(), options_.buffer_size));
  if (kBufferHeaderSize + open_[processor].data.size() + padded > options_.buffer_size) flush(processor);
  OpenBuffer& buffer = open_[processor];
  record.resize(padded, 0);
  buffer.data.insert(buffer.data.end(), record.begin(), record.end());
  buffer.last_timestamp = std::max(buffer.last_timestamp, ts);
  ++buffer.records;
  ++record_count_;
  ++records_by_kind_[kind];
  last_timestamp_ = std::max(last_timestamp_, ts);
}

void EtlWriter::flush(std::uint32_t processor) {
  OpenBuffer& buffer = open_[processor];
  if (buffer.records == 0) return;
  // Sequence 0 is the header buffer, laid out at finish().
  flushed_.push_back(lay_out_buffer(buffer, processor, kBufferTypeGeneric, flushed_.size() + 1));
  buffer = OpenBuffer{};
}

std::vector<std::uint8_t> EtlWriter::lay_out_buffer(const OpenBuffer& buffer, std::uint32_t processor,
                                                    std::uint16_t buffer_type, std::uint64_t sequence) {
  const auto saved_offset = static_cast<std::uint32_t>(kBufferHeaderSize + buffer.data.size());
  std::vector<std::uint8_t> compressed;
  bool is_compressed = false;
  if (options_.compress && buffer_type != kBufferTypeHeader) {
    compressed = xpress_compress(buffer.data);
    is_compressed = options_.compress_always || compressed.size() < buffer.data.size();
  }
  const std::uint32_t on_disk_size =
      is_compressed ? static_cast<std::uint32_t>(kBufferHeaderSize + compressed.size()) : options_.buffer_size;
  std::uint16_t flags = kFlagProcIndex;
  if (is_compressed) flags |= kFlagCompressed;
  if (buffer_type == kBufferTypeHeader) flags |= kFlagFlushMarker;

  Bytes header(8);
  header.u32(on_disk_size)
      .u32(saved_offset)
      .u32(saved_offset)  // CurrentOffset
      .u32(0)             // ReferenceCount
      .u64(static_cast<std::uint64_t>(buffer.last_timestamp))
      .u64(sequence)
      .u64((std::uint64_t{options_.clock_type} & 7) | (ticks_per_second() << 3))
      .u32(processor | std::uint32_t{options_.logger_id} << 16)  // ClientContext
      .u32(0)                                                     // State
      .u32(saved_offset)                                          // Offset
      .u16(flags)
      .u16(buffer_type)
      .zeros(16);
  std::vector<std::uint8_t> out = header.take();
  if (is_compressed) {
    out.insert(out.end(), compressed.begin(), compressed.end());
    ++compressed_buffers_;
  } else {
    out.insert(out.end(), buffer.data.begin(), buffer.data.end());
    out.resize(options_.buffer_size, 0xFF);  // filler after SavedOffset
  }
  return out;
}

std::vector<std::uint8_t> EtlWriter::logfile_header_record(std::uint32_t buffers_written) const {
  const unsigned p = options_.pointer_size;
  const std::int64_t elapsed = last_timestamp_ - options_.header_timestamp;
  const auto end_filetime = static_cast<std::uint64_t>(
      static_cast<long double>(options_.start_filetime) +
      static_cast<long double>(elapsed) * 1e7L / static_cast<long double>(ticks_per_second()));
  Bytes payload(p);
  payload.u32(options_.buffer_size)
      .u32(options_.os_version)
      .u32(options_.provider_version)
      .u32(options_.processors)
      .u64(end_filetime)
      .u32(156'250)  // TimerResolution: 15.625 ms in 100 ns units
      .u32(0)        // MaximumFileSize
      .u32(0x00000001)  // LogFileMode: EVENT_TRACE_FILE_MODE_SEQUENTIAL
      .u32(buffers_written)
      .u32(1)  // StartBuffers
      .u32(p)  // PointerSize
      .u32(0)  // EventsLost
      .u32(options_.cpu_speed_mhz)
      .ptr(0)   // LoggerName (a pointer value, meaningless in the file)
      .ptr(0);  // LogFileName
  // TIME_ZONE_INFORMATION (172 bytes): UTC, no daylight saving.
  payload.u32(0).utf16_fixed(u"Coordinated Universal Time", 32).zeros(16).u32(0);
  payload.utf16_fixed(u"Coordinated Universal Time", 32).zeros(16).u32(0);
  payload.zeros(4)  // padding before the 8-byte BootTime
      .u64(options_.boot_filetime)
      .u64(options_.perf_freq)
      .u64(options_.start_filetime)
      .u32(options_.clock_type)  // ReservedFlags
      .u32(0);                   // BuffersLost
  const std::size_t expected = p == 8 ? 280 : 272;
  if (payload.size() != expected)
    throw std::logic_error(fmt::format("TRACE_LOGFILE_HEADER laid out as {} bytes, want {}", payload.size(), expected));
  payload.utf16_z(options_.logger_name).utf16_z(options_.log_file_name);

  const std::size_t size = 32 + payload.size();
  Bytes record(p);
  record.u16(2)  // version of the header event, as in the samples
      .u8(p == 8 ? 0x02 : 0x01)
      .u8(kKernelMarkerFlags)
      .u16(record_size16(size))
      .u16(hook::kLogfileHeader)
      .u32(0)
      .u32(0)
      .u64(static_cast<std::uint64_t>(options_.header_timestamp))
      .u32(0)
      .u32(0)
      .raw(payload.data());
  return record.take();
}

// --- generic records ---------------------------------------------------------

void EtlWriter::classic(ClassicHeader header, std::uint32_t processor, std::uint16_t hook, std::uint16_t version,
                        std::uint32_t tid, std::uint32_t pid, std::int64_t ts, std::span<const std::uint8_t> payload,
                        unsigned pointer_size) {
  const bool wide = width(pointer_size) == 8;
  EtlHeaderKind kind{};
  std::size_t header_size = 0;
  switch (header) {
    case ClassicHeader::kSystem:
      kind = wide ? EtlHeaderKind::kSystem64 : EtlHeaderKind::kSystem32;
      header_size = 32;
      break;
    case ClassicHeader::kCompact:
      kind = wide ? EtlHeaderKind::kCompact64 : EtlHeaderKind::kCompact32;
      header_size = 24;
      break;
    case ClassicHeader::kPerfinfo:
      kind = wide ? EtlHeaderKind::kPerfinfo64 : EtlHeaderKind::kPerfinfo32;
      header_size = 16;
      break;
  }
  Bytes record(8);
  record.u16(version)
      .u8(static_cast<std::uint8_t>(kind))
      .u8(kKernelMarkerFlags)
      .u16(record_size16(header_size + payload.size()))
      .u16(hook);
  if (header != ClassicHeader::kPerfinfo) record.u32(tid).u32(pid);
  record.u64(static_cast<std::uint64_t>(ts));
  if (header == ClassicHeader::kSystem) record.u32(0).u32(0);  // KernelTime, UserTime
  record.raw(payload);
  append(processor, record.take(), kind, ts);
}

void EtlWriter::system(std::uint32_t processor, std::uint16_t hook, std::uint16_t version, std::uint32_t tid,
                       std::uint32_t pid, std::int64_t ts, std::span<const std::uint8_t> payload,
                       unsigned pointer_size) {
  classic(ClassicHeader::kSystem, processor, hook, version, tid, pid, ts, payload, pointer_size);
}

void EtlWriter::compact(std::uint32_t processor, std::uint16_t hook, std::uint16_t version, std::uint32_t tid,
                        std::uint32_t pid, std::int64_t ts, std::span<const std::uint8_t> payload,
                        unsigned pointer_size) {
  classic(ClassicHeader::kCompact, processor, hook, version, tid, pid, ts, payload, pointer_size);
}

void EtlWriter::perfinfo(std::uint32_t processor, std::uint16_t hook, std::uint16_t version, std::int64_t ts,
                         std::span<const std::uint8_t> payload, unsigned pointer_size) {
  classic(ClassicHeader::kPerfinfo, processor, hook, version, 0, 0, ts, payload, pointer_size);
}

void EtlWriter::full(std::uint32_t processor, const EtlGuid& guid, std::uint8_t opcode, std::uint16_t version,
                     std::uint32_t tid, std::uint32_t pid, std::int64_t ts, std::span<const std::uint8_t> payload,
                     unsigned pointer_size) {
  const EtlHeaderKind kind = width(pointer_size) == 8 ? EtlHeaderKind::kFull64 : EtlHeaderKind::kFull32;
  Bytes record(8);
  record.u16(record_size16(48 + payload.size()))
      .u8(static_cast<std::uint8_t>(kind))
      .u8(kKernelMarkerFlags)
      .u8(opcode)  // Class.Type
      .u8(0)       // Class.Level
      .u16(version)
      .u32(tid)
      .u32(pid)
      .u64(static_cast<std::uint64_t>(ts))
      .raw(guid)
      .u32(0)  // KernelTime
      .u32(0)  // UserTime
      .raw(payload);
  append(processor, record.take(), kind, ts);
}

void EtlWriter::event_header(std::uint32_t processor, const EtlGuid& provider, std::uint16_t id,
                             std::uint8_t version, std::uint8_t opcode, std::uint32_t tid, std::uint32_t pid,
                             std::int64_t ts, std::span<const std::uint8_t> payload, unsigned pointer_size) {
  const bool wide = width(pointer_size) == 8;
  const EtlHeaderKind kind = wide ? EtlHeaderKind::kEventHeader64 : EtlHeaderKind::kEventHeader32;
  Bytes record(8);
  record.u16(record_size16(80 + payload.size()))
      .u8(static_cast<std::uint8_t>(kind))
      .u8(kKernelMarkerFlags)
      .u16(wide ? 0x40 : 0x20)  // Flags: 64_BIT_HEADER / 32_BIT_HEADER
      .u16(0)                   // EventProperty
      .u32(tid)
      .u32(pid)
      .u64(static_cast<std::uint64_t>(ts))
      .raw(provider)
      .u16(id)
      .u8(version)
      .u8(0)  // Channel
      .u8(4)  // Level: informational
      .u8(opcode)
      .u16(0)  // Task
      .u64(0)  // Keyword
      .u64(0)  // KernelTime, UserTime
      .zeros(16)  // ActivityId
      .raw(payload);
  append(processor, record.take(), kind, ts);
}

void EtlWriter::raw(std::uint32_t processor, std::span<const std::uint8_t> record_bytes) {
  // Counted under the kind its byte 2 claims, if any; the reader may reject it.
  const auto kind = static_cast<EtlHeaderKind>(record_bytes.size() > 2 ? record_bytes[2] : 0);
  append(processor, std::vector<std::uint8_t>(record_bytes.begin(), record_bytes.end()), kind, 0);
}

// --- heap and VirtualAlloc ---------------------------------------------------

void EtlWriter::provider_event(ClassicHeader classic_header, std::uint32_t processor, std::uint16_t hook,
                               std::uint16_t version, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                               std::span<const std::uint8_t> payload) {
  // The GUIDs as TraceEvent shows them (etw-heap.md §3.1), parsed from text
  // here so that a wrong byte order in the reader's constants shows.
  const std::uint8_t group = static_cast<std::uint8_t>(hook >> 8);
  const EtlGuid provider = group == 0x10 ? etl_guid("222962ab-6180-4b88-a825-346b75f2a24a")
                                         : etl_guid("3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c");
  const auto opcode = static_cast<std::uint8_t>(hook & 0xFF);
  switch (options_.heap_events) {
    case ProviderHeader::kClassic: classic(classic_header, processor, hook, version, tid, pid, ts, payload); return;
    case ProviderHeader::kFull: full(processor, provider, opcode, version, tid, pid, ts, payload); return;
    case ProviderHeader::kEventHeader:
      event_header(processor, provider, opcode, static_cast<std::uint8_t>(version), opcode, tid, pid, ts, payload);
      return;
  }
}

void EtlWriter::heap_create(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                            std::uint64_t heap, std::uint32_t flags, std::uint64_t reserve_size,
                            std::uint64_t commit_size, std::uint64_t allocated_size) {
  Bytes payload(pointer_size());
  payload.ptr(heap).u32(flags).ptr(reserve_size).ptr(commit_size).ptr(allocated_size);
  provider_event(ClassicHeader::kSystem, processor, hook::kHeapCreate, 3, tid, pid, ts, payload.data());
}

void EtlWriter::heap_alloc(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                           std::uint64_t heap, std::uint64_t size, std::uint64_t address, std::uint32_t source) {
  Bytes payload(pointer_size());
  payload.ptr(heap).ptr(size).ptr(address).u32(source);
  provider_event(ClassicHeader::kSystem, processor, hook::kHeapAlloc, 2, tid, pid, ts, payload.data());
}

void EtlWriter::heap_realloc(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                             std::uint64_t heap, std::uint64_t new_address, std::uint64_t old_address,
                             std::uint64_t new_size, std::uint64_t old_size, std::uint32_t source) {
  Bytes payload(pointer_size());
  payload.ptr(heap).ptr(new_address).ptr(old_address).ptr(new_size).ptr(old_size).u32(source);
  provider_event(ClassicHeader::kSystem, processor, hook::kHeapRealloc, 2, tid, pid, ts, payload.data());
}

void EtlWriter::heap_free(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                          std::uint64_t heap, std::uint64_t address, std::uint32_t source) {
  Bytes payload(pointer_size());
  payload.ptr(heap).ptr(address).u32(source);
  provider_event(ClassicHeader::kSystem, processor, hook::kHeapFree, 2, tid, pid, ts, payload.data());
}

void EtlWriter::heap_destroy(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                             std::uint64_t heap) {
  Bytes payload(pointer_size());
  payload.ptr(heap);
  provider_event(ClassicHeader::kSystem, processor, hook::kHeapDestroy, 2, tid, pid, ts, payload.data());
}

void EtlWriter::virtual_alloc(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                              std::uint64_t base, std::uint64_t size, std::uint32_t target_pid, std::uint32_t flags,
                              ClassicHeader header) {
  Bytes payload(pointer_size());
  payload.ptr(base).ptr(size).u32(target_pid).u32(flags);
  provider_event(header, processor, hook::kVirtualAlloc, 1, tid, pid, ts, payload.data());
}

void EtlWriter::virtual_free(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                             std::uint64_t base, std::uint64_t size, std::uint32_t target_pid, std::uint32_t flags,
                             ClassicHeader header) {
  Bytes payload(pointer_size());
  payload.ptr(base).ptr(size).u32(target_pid).u32(flags);
  provider_event(header, processor, hook::kVirtualFree, 1, tid, pid, ts, payload.data());
}

// --- stacks ------------------------------------------------------------------

void EtlWriter::stack_walk(std::uint32_t processor, std::int64_t event_ts, std::uint32_t pid, std::uint32_t tid,
                           std::span<const std::uint64_t> frames_innermost_first) {
  Bytes payload(pointer_size());
  payload.u64(static_cast<std::uint64_t>(event_ts)).u32(pid).u32(tid);
  for (std::uint64_t frame : frames_innermost_first) payload.ptr(frame);
  perfinfo(processor, hook::kStackWalk, 2, event_ts, payload.data());
}

void EtlWriter::stack_key(std::uint16_t hook, std::uint32_t processor, std::int64_t event_ts, std::uint32_t pid,
                          std::uint32_t tid, std::uint64_t key) {
  Bytes payload(pointer_size());
  payload.u64(static_cast<std::uint64_t>(event_ts)).u32(pid).u32(tid).ptr(key);
  perfinfo(processor, hook, 2, event_ts, payload.data());
}

void EtlWriter::stack_key_kernel(std::uint32_t processor, std::int64_t event_ts, std::uint32_t pid,
                                 std::uint32_t tid, std::uint64_t key) {
  stack_key(hook::kStackKeyKernel, processor, event_ts, pid, tid, key);
}

void EtlWriter::stack_key_user(std::uint32_t processor, std::int64_t event_ts, std::uint32_t pid, std::uint32_t tid,
                               std::uint64_t key) {
  stack_key(hook::kStackKeyUser, processor, event_ts, pid, tid, key);
}

void EtlWriter::key_frames(std::uint16_t hook, std::uint32_t processor, std::int64_t ts, std::uint64_t key,
                           std::span<const std::uint64_t> frames) {
  Bytes payload(pointer_size());
  payload.ptr(key);
  for (std::uint64_t frame : frames) payload.ptr(frame);
  perfinfo(processor, hook, 2, ts, payload.data());
}

void EtlWriter::key_delete(std::uint32_t processor, std::int64_t ts, std::uint64_t key,
                           std::span<const std::uint64_t> frames_innermost_first) {
  key_frames(hook::kStackKeyDelete, processor, ts, key, frames_innermost_first);
}

void EtlWriter::key_rundown(std::uint32_t processor, std::int64_t ts, std::uint64_t key,
                            std::span<const std::uint64_t> frames_innermost_first) {
  key_frames(hook::kStackKeyRundown, processor, ts, key, frames_innermost_first);
}

// --- processes, images, threads, image ids -----------------------------------

std::vector<std::uint8_t> EtlWriter::process_payload(const ProcessInfo& process) const {
  const unsigned p = pointer_size();
  Bytes payload(p);
  const std::uint64_t key = process.unique_key != 0 ? process.unique_key : 0xffffa00000000000ull + process.pid * 0x80ull;
  payload.ptr(p == 8 ? key : key & 0xFFFFFFFFu)
      .u32(process.pid)
      .u32(process.parent_pid)
      .u32(process.session_id)
      .u32(static_cast<std::uint32_t>(process.exit_status))
      .ptr(process.directory_table_base)
      .u32(process.flags);
  if (process.with_user_sid) {
    // TOKEN_USER {PSID Sid; DWORD Attributes} padded to 2P, then
    // S-1-5-21-1004336348-1177238915-682003330-1001 (5 sub-authorities).
    payload.ptr(0xffffc00012345670ull & (p == 8 ? ~0ull : 0xFFFFFFFFull)).u32(0);
    if (p == 8) payload.u32(0);
    payload.u8(1).u8(5).u8(0).u8(0).u8(0).u8(0).u8(0).u8(5);
    payload.u32(21).u32(1004336348).u32(1177238915).u32(682003330).u32(1001);
  } else {
    payload.u32(0);
  }
  payload.ansi_z(process.image_file_name)
      .utf16_z(process.command_line)
      .utf16_z(process.package_full_name)
      .utf16_z(process.application_id);
  return payload.take();
}

void EtlWriter::process_start(std::uint32_t processor, std::int64_t ts, const ProcessInfo& process,
                              ClassicHeader header) {
  classic(header, processor, hook::kProcessStart, 4, 0, process.pid, ts, process_payload(process));
}

void EtlWriter::process_dcstart(std::uint32_t processor, std::int64_t ts, const ProcessInfo& process,
                                ClassicHeader header) {
  classic(header, processor, hook::kProcessDcStart, 4, 0, process.pid, ts, process_payload(process));
}

std::vector<std::uint8_t> EtlWriter::image_payload(const ImageInfo& image) const {
  Bytes payload(pointer_size());
  payload.ptr(image.base)
      .ptr(image.size)
      .u32(image.pid)
      .u32(image.checksum)
      .u32(image.time_date_stamp)
      .u32(0)  // Reserved0
      .ptr(image.default_base != 0 ? image.default_base : image.base)
      .u32(0)
      .u32(0)
      .u32(0)
      .u32(0)  // Reserved1..4
      .utf16_z(image.file_name);
  return payload.take();
}

void EtlWriter::image_load(std::uint32_t processor, std::int64_t ts, const ImageInfo& image, ClassicHeader header) {
  classic(header, processor, hook::kImageLoad, 3, 0, image.pid, ts, image_payload(image));
}

void EtlWriter::image_dcstart(std::uint32_t processor, std::int64_t ts, const ImageInfo& image,
                              ClassicHeader header) {
  classic(header, processor, hook::kImageDcStart, 3, 0, image.pid, ts, image_payload(image));
}

void EtlWriter::image_unload(std::uint32_t processor, std::int64_t ts, const ImageInfo& image,
                             ClassicHeader header) {
  classic(header, processor, hook::kImageUnload, 3, 0, image.pid, ts, image_payload(image));
}

void EtlWriter::thread_start(std::uint32_t processor, std::int64_t ts, const ThreadInfo& thread,
                             ClassicHeader header) {
  Bytes payload(pointer_size());
  payload.u32(thread.pid)
      .u32(thread.tid)
      .ptr(thread.stack_base)
      .ptr(thread.stack_limit)
      .ptr(thread.user_stack_base)
      .ptr(thread.user_stack_limit)
      .ptr(thread.affinity)
      .ptr(thread.win32_start_address)
      .ptr(thread.teb_base)
      .u32(0)  // SubProcessTag
      .u8(8)   // BasePriority
      .u8(5)   // PagePriority
      .u8(2)   // IoPriority
      .u8(0);  // ThreadFlags
  classic(header, processor, hook::kThreadStart, 3, thread.tid, thread.pid, ts, payload.data());
}

void EtlWriter::image_id_rsds(std::uint32_t processor, std::int64_t ts, std::uint64_t image_base, std::uint32_t pid,
                              const EtlGuid& pdb_guid, std::uint32_t age, std::string_view pdb_name) {
  Bytes payload(pointer_size());
  payload.ptr(image_base).u32(pid).raw(pdb_guid).u32(age).ansi_z(pdb_name);
  full(processor, etl_guid(kImageIdGuidText), kDbgIdRsdsOpcode, 2, 0, pid, ts, payload.data());
}

// --- output ------------------------------------------------------------------

void EtlWriter::finish() {
  if (finished_) return;
  for (std::uint32_t processor = 0; processor < options_.processors; ++processor) flush(processor);
  finished_ = true;
  OpenBuffer header_buffer;
  header_buffer.data = logfile_header_record(static_cast<std::uint32_t>(flushed_.size() + 1));
  header_buffer.data.resize(align8(header_buffer.data.size()), 0);
  header_buffer.last_timestamp = options_.header_timestamp;
  if (kBufferHeaderSize + header_buffer.data.size() > options_.buffer_size)
    throw std::invalid_argument("logfile header does not fit the buffer size");
  file_ = lay_out_buffer(header_buffer, 0, kBufferTypeHeader, 0);
  buffer_count_ = flushed_.size() + 1;
  for (const auto& buffer : flushed_) file_.insert(file_.end(), buffer.begin(), buffer.end());
  flushed_.clear();
  flushed_.shrink_to_fit();
}

const std::vector<std::uint8_t>& EtlWriter::bytes() {
  finish();
  return file_;
}

void EtlWriter::write(const std::string& path) {
  const auto& data = bytes();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", path));
}

}  // namespace heapql::test
