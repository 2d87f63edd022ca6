// Test-only ETL writer: lays out WMI buffers and event records exactly as
// ../shared/formats/etw-heap.md §3-§4 describe, so heapql's ETL reader and
// event decoders can be tested on synthetic heap / VirtualAlloc traces (no
// public heap .etl exists). Everything it writes is synthetic.
//
// File layout decisions:
// * The first buffer in the file is a BufferType 4 (header) buffer on
//   processor 0 holding only the logfile-header record (SYSTEM32/64, hook
//   0x0000, TRACE_LOGFILE_HEADER + logger name + log file name). It is laid
//   out last (at finish()) so EndTime and BuffersWritten are the real values.
//   The header buffer is never compressed (as in the perfview sample, where
//   it is a plain 1,024-byte buffer), so a sniffer can read it directly.
// * Every other record goes into the open buffer of the processor it is given;
//   when a record does not fit, that processor's buffer is flushed to the file
//   and a new one started. Buffers of different processors therefore
//   interleave in fill order and the file is NOT globally time-ordered.
//   finish() flushes the open buffers in processor order.
// * Records start 8-byte aligned; the padding bytes are 0. Uncompressed
//   buffers are always `buffer_size` long, 0xFF-filled from SavedOffset on.
// * Compressed buffers (options.compress): BufferFlag 0x40|0x20, on-disk
//   BufferSize = 72 + compressed length (not padded), SavedOffset = 72 +
//   uncompressed data length. A buffer whose compressed data would not be
//   shorter than its uncompressed data is written uncompressed (full size,
//   flag 0x20 only) - so a compressed file may mix both kinds, as real merged
//   files can. Set `compress_always` to compress every buffer regardless.
// * WMI_BUFFER_HEADER: ClientContext = processor | logger_id << 16; BufferFlag
//   always has 0x20 (PROC_INDEX); TimeStamp = the last record's timestamp;
//   SequenceNumber counts buffers in file order; ClockType/Frequency word =
//   clock | freq << 3; Offset = CurrentOffset = SavedOffset.
// * Timestamps are raw clock ticks. ticks_at_ns() converts "ns since the
//   logfile-header record" into ticks with the effective frequency of the
//   clock type (1: perf_freq, 2: 10^7, 3: cpu_speed_mhz * 10^6).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ingest/etl/etl_record.h"

namespace heapql::test {

// "b3e675d7-2554-4f18-830b-2762732560de" -> the 16 bytes in file order
// (Data1..3 little-endian, Data4 as written). Throws on malformed text.
EtlGuid etl_guid(std::string_view text);

inline constexpr std::string_view kImageIdGuidText = "b3e675d7-2554-4f18-830b-2762732560de";
inline constexpr std::uint8_t kDbgIdRsdsOpcode = 0x24;

// Classic hook ids (group << 8 | type), etw-heap.md §3.
namespace hook {
inline constexpr std::uint16_t kLogfileHeader = 0x0000;
inline constexpr std::uint16_t kVirtualAlloc = 0x0262;
inline constexpr std::uint16_t kVirtualFree = 0x0263;
inline constexpr std::uint16_t kProcessStart = 0x0301;
inline constexpr std::uint16_t kProcessEnd = 0x0302;
inline constexpr std::uint16_t kProcessDcStart = 0x0303;
inline constexpr std::uint16_t kImageLoad = 0x030A;
inline constexpr std::uint16_t kThreadStart = 0x0501;
inline constexpr std::uint16_t kHeapCreate = 0x1020;
inline constexpr std::uint16_t kHeapAlloc = 0x1021;
inline constexpr std::uint16_t kHeapRealloc = 0x1022;
inline constexpr std::uint16_t kHeapDestroy = 0x1023;
inline constexpr std::uint16_t kHeapFree = 0x1024;
inline constexpr std::uint16_t kImageUnload = 0x1402;
inline constexpr std::uint16_t kImageDcStart = 0x1403;
inline constexpr std::uint16_t kStackWalk = 0x1820;
inline constexpr std::uint16_t kStackKeyDelete = 0x1823;
inline constexpr std::uint16_t kStackKeyRundown = 0x1824;
inline constexpr std::uint16_t kStackKeyKernel = 0x1825;
inline constexpr std::uint16_t kStackKeyUser = 0x1826;
}  // namespace hook

// VirtualAlloc flags (§3.5) and heap SourceId (§3.2).
inline constexpr std::uint32_t kMemCommit = 0x1000;
inline constexpr std::uint32_t kMemReserve = 0x2000;
inline constexpr std::uint32_t kMemDecommit = 0x4000;
inline constexpr std::uint32_t kMemRelease = 0x8000;
inline constexpr std::uint32_t kHeapSourceLfh = 2;
inline constexpr std::uint32_t kHeapSourceMainPath = 3;

// How heap and VirtualAlloc events are written: as classic hooks, or as
// records that name the kernel provider by its GUID with the hook's type as
// opcode (FULL_HEADER, EVENT_HEADER; etw-heap.md §3.1, §4.3).
enum class ProviderHeader { kClassic, kFull, kEventHeader };

struct EtlWriterOptions {
  unsigned pointer_size = 8;                       // 4 or 8: SYSTEM32/64, PERFINFO32/64, ... and payload widths
  ProviderHeader heap_events = ProviderHeader::kClassic;  // heap and VirtualAlloc events
  std::uint64_t perf_freq = 10'000'000;            // TRACE_LOGFILE_HEADER.PerfFreq
  std::uint32_t clock_type = 1;                    // 1 QPC, 2 system time, 3 CPU cycles
  std::uint32_t cpu_speed_mhz = 3000;
  std::uint64_t start_filetime = 133'500'000'000'000'000;  // 2024-01-18 UTC, 100 ns since 1601
  std::uint64_t boot_filetime = 133'499'000'000'000'000;
  std::int64_t header_timestamp = 5'000'000'000;   // raw ticks of the logfile-header record (the time base)
  std::uint32_t buffer_size = 64 * 1024;           // logger buffer size; every uncompressed buffer's size
  std::uint32_t processors = 2;
  bool compress = false;
  bool compress_always = false;                    // with compress: even when it does not shrink a buffer
  std::uint32_t os_version = 0x0000000A;           // bytes major, minor, sub, subminor: 10.0
  std::uint32_t provider_version = 19045;          // build number
  std::uint16_t logger_id = 0x11;
  std::u16string logger_name = u"heapql synthetic";
  std::u16string log_file_name = u"C:\\synthetic\\heapql.etl";
};

// Header kinds a classic (hook-identified) event can use.
enum class ClassicHeader { kSystem, kCompact, kPerfinfo };

struct ProcessInfo {
  std::uint64_t unique_key = 0;  // 0: derived from the pid
  std::uint32_t pid = 0;
  std::uint32_t parent_pid = 0;
  std::uint32_t session_id = 1;
  std::int32_t exit_status = 259;  // STILL_ACTIVE
  std::uint64_t directory_table_base = 0x1aa000;
  std::uint32_t flags = 0;
  bool with_user_sid = true;  // a TOKEN_USER + S-1-5-21-...-1001 SID; false: the 4-byte zero form
  std::string image_file_name;  // ANSI, e.g. "MemoryTestApp.exe"
  std::u16string command_line;
  std::u16string package_full_name;
  std::u16string application_id;
};

struct ImageInfo {
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  std::uint32_t pid = 0;
  std::uint32_t checksum = 0;
  std::uint32_t time_date_stamp = 0x5f000000;
  std::uint64_t default_base = 0;  // 0: same as base
  std::u16string file_name;        // NT path, e.g. u"\\Device\\HarddiskVolume3\\Windows\\System32\\ntdll.dll"
};

struct ThreadInfo {
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;
  std::uint64_t stack_base = 0;
  std::uint64_t stack_limit = 0;
  std::uint64_t user_stack_base = 0;
  std::uint64_t user_stack_limit = 0;
  std::uint64_t affinity = 0xFF;
  std::uint64_t win32_start_address = 0;
  std::uint64_t teb_base = 0;
};

class EtlWriter {
 public:
  explicit EtlWriter(EtlWriterOptions options = {});

  const EtlWriterOptions& options() const { return options_; }
  unsigned pointer_size() const { return options_.pointer_size; }
  // Raw ticks for a time given as ns (or ms) after the logfile-header record.
  std::int64_t ticks_at_ns(std::int64_t ns) const;
  std::int64_t ticks_at_ms(std::int64_t ms) const { return ticks_at_ns(ms * 1'000'000); }
  // Effective ticks per second of the configured clock type.
  std::uint64_t ticks_per_second() const;

  // --- Generic records. `payload` is written as is; every appender takes
  // the processor whose buffer gets the record. `pointer_size` 0 means the
  // writer's; 4 or 8 picks the 32/64-bit header kind for this record only
  // (mixed-width traces). The record size must fit the u16 size field.
  void system(std::uint32_t processor, std::uint16_t hook, std::uint16_t version, std::uint32_t tid,
              std::uint32_t pid, std::int64_t ts, std::span<const std::uint8_t> payload, unsigned pointer_size = 0);
  void compact(std::uint32_t processor, std::uint16_t hook, std::uint16_t version, std::uint32_t tid,
               std::uint32_t pid, std::int64_t ts, std::span<const std::uint8_t> payload, unsigned pointer_size = 0);
  void perfinfo(std::uint32_t processor, std::uint16_t hook, std::uint16_t version, std::int64_t ts,
                std::span<const std::uint8_t> payload, unsigned pointer_size = 0);
  // A classic event in the given header kind (tid/pid ignored for PERFINFO).
  void classic(ClassicHeader header, std::uint32_t processor, std::uint16_t hook, std::uint16_t version,
               std::uint32_t tid, std::uint32_t pid, std::int64_t ts, std::span<const std::uint8_t> payload,
               unsigned pointer_size = 0);
  // FULL_HEADER32/64 (EVENT_TRACE_HEADER): GUID + Class.Type (opcode) + Class.Version.
  void full(std::uint32_t processor, const EtlGuid& guid, std::uint8_t opcode, std::uint16_t version,
            std::uint32_t tid, std::uint32_t pid, std::int64_t ts, std::span<const std::uint8_t> payload,
            unsigned pointer_size = 0);
  // EVENT_HEADER32/64 without extended items.
  void event_header(std::uint32_t processor, const EtlGuid& provider, std::uint16_t id, std::uint8_t version,
                    std::uint8_t opcode, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                    std::span<const std::uint8_t> payload, unsigned pointer_size = 0);
  // A heap or VirtualAlloc event (`hook`) in the header options().heap_events
  // says; `classic_header` when that is kClassic.
  void provider_event(ClassicHeader classic_header, std::uint32_t processor, std::uint16_t hook,
                      std::uint16_t version, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                      std::span<const std::uint8_t> payload);
  // Escape hatch: arbitrary bytes as one record (then 8-byte alignment), for
  // malformed-input tests. Nothing is checked except that it fits a buffer.
  void raw(std::uint32_t processor, std::span<const std::uint8_t> record_bytes);

  // --- Heap events (§3.2): SYSTEM header with the caller's tid/pid, pack-1 payloads.
  void heap_create(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                   std::uint64_t heap, std::uint32_t flags = 0x2, std::uint64_t reserve_size = 0x100000,
                   std::uint64_t commit_size = 0x1000, std::uint64_t allocated_size = 0);  // v3
  void heap_alloc(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                  std::uint64_t heap, std::uint64_t size, std::uint64_t address,
                  std::uint32_t source = kHeapSourceMainPath);  // v2
  void heap_realloc(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                    std::uint64_t heap, std::uint64_t new_address, std::uint64_t old_address,
                    std::uint64_t new_size, std::uint64_t old_size,
                    std::uint32_t source = kHeapSourceMainPath);  // v2
  void heap_free(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                 std::uint64_t heap, std::uint64_t address, std::uint32_t source = kHeapSourceMainPath);  // v2
  void heap_destroy(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                    std::uint64_t heap);  // v2

  // --- VirtualAlloc / VirtualFree (§3.5), PERFINFO_VIRTUAL_ALLOC, v1. The
  // target process is the payload's ProcessId; the header ids are the caller's.
  void virtual_alloc(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                     std::uint64_t base, std::uint64_t size, std::uint32_t target_pid,
                     std::uint32_t flags = kMemCommit, ClassicHeader header = ClassicHeader::kSystem);
  void virtual_free(std::uint32_t processor, std::uint32_t tid, std::uint32_t pid, std::int64_t ts,
                    std::uint64_t base, std::uint64_t size, std::uint32_t target_pid,
                    std::uint32_t flags = kMemDecommit, ClassicHeader header = ClassicHeader::kSystem);

  // --- Stacks (§3.3), PERFINFO header, v2. The record's own timestamp is
  // `event_ts` (as the OS logs it, right after its event).
  void stack_walk(std::uint32_t processor, std::int64_t event_ts, std::uint32_t pid, std::uint32_t tid,
                  std::span<const std::uint64_t> frames_innermost_first);
  void stack_key_kernel(std::uint32_t processor, std::int64_t event_ts, std::uint32_t pid, std::uint32_t tid,
                        std::uint64_t key);
  void stack_key_user(std::uint32_t processor, std::int64_t event_ts, std::uint32_t pid, std::uint32_t tid,
                      std::uint64_t key);
  void key_delete(std::uint32_t processor, std::int64_t ts, std::uint64_t key,
                  std::span<const std::uint64_t> frames_innermost_first);
  void key_rundown(std::uint32_t processor, std::int64_t ts, std::uint64_t key,
                   std::span<const std::uint64_t> frames_innermost_first);

  // --- Processes (§3.6, v4), images (§3.7, v3), threads (§3.8, v3).
  // Start/Load default to a SYSTEM header with tid 0 and the process's pid;
  // rundown (DCStart) defaults to PERFINFO, as in the samples.
  void process_start(std::uint32_t processor, std::int64_t ts, const ProcessInfo& process,
                     ClassicHeader header = ClassicHeader::kSystem);
  void process_dcstart(std::uint32_t processor, std::int64_t ts, const ProcessInfo& process,
                       ClassicHeader header = ClassicHeader::kPerfinfo);
  void image_load(std::uint32_t processor, std::int64_t ts, const ImageInfo& image,
                  ClassicHeader header = ClassicHeader::kSystem);
  void image_dcstart(std::uint32_t processor, std::int64_t ts, const ImageInfo& image,
                     ClassicHeader header = ClassicHeader::kPerfinfo);
  void image_unload(std::uint32_t processor, std::int64_t ts, const ImageInfo& image,
                    ClassicHeader header = ClassicHeader::kSystem);
  void thread_start(std::uint32_t processor, std::int64_t ts, const ThreadInfo& thread,
                    ClassicHeader header = ClassicHeader::kSystem);
  // KernelTraceControl ImageID DbgID_RSDS (§3.7): FULL header, GUID
  // b3e675d7-..., opcode 0x24, v2. Header tid/pid: 0 / `pid`.
  void image_id_rsds(std::uint32_t processor, std::int64_t ts, std::uint64_t image_base, std::uint32_t pid,
                     const EtlGuid& pdb_guid, std::uint32_t age, std::string_view pdb_name);

  // Payload builders, public so tests can write odd variants through the
  // generic appenders (e.g. a truncated heap payload).
  std::vector<std::uint8_t> process_payload(const ProcessInfo& process) const;
  std::vector<std::uint8_t> image_payload(const ImageInfo& image) const;

  // Flushes every open buffer and lays out the header buffer. Idempotent;
  // appending afterwards throws.
  void finish();
  // The whole file (finishes first).
  const std::vector<std::uint8_t>& bytes();
  void write(const std::string& path);

  // Counts of what was written, for tests to compare with the reader's.
  // Includes the logfile-header record.
  std::uint64_t record_count() const { return record_count_; }
  const std::map<EtlHeaderKind, std::uint64_t>& records_by_kind() const { return records_by_kind_; }
  std::uint64_t buffer_count() const { return buffer_count_; }  // valid after finish()
  std::uint64_t compressed_buffer_count() const { return compressed_buffers_; }
  std::int64_t last_timestamp() const { return last_timestamp_; }

 private:
  struct OpenBuffer {
    std::vector<std::uint8_t> data;  // records after the 72-byte header
    std::int64_t last_timestamp = 0;
    std::uint64_t records = 0;
  };
  unsigned width(unsigned pointer_size) const;
  void append(std::uint32_t processor, std::vector<std::uint8_t> record, EtlHeaderKind kind, std::int64_t ts);
  void flush(std::uint32_t processor);
  std::vector<std::uint8_t> lay_out_buffer(const OpenBuffer& buffer, std::uint32_t processor,
                                           std::uint16_t buffer_type, std::uint64_t sequence);
  std::vector<std::uint8_t> logfile_header_record(std::uint32_t buffers_written) const;
  void check_open() const;
  void stack_key(std::uint16_t hook, std::uint32_t processor, std::int64_t event_ts, std::uint32_t pid,
                 std::uint32_t tid, std::uint64_t key);
  void key_frames(std::uint16_t hook, std::uint32_t processor, std::int64_t ts, std::uint64_t key,
                  std::span<const std::uint64_t> frames);

  EtlWriterOptions options_;
  std::vector<OpenBuffer> open_;                    // one per processor
  std::vector<std::vector<std::uint8_t>> flushed_;  // data buffers in file order (laid out)
  std::vector<std::uint8_t> file_;
  bool finished_ = false;
  std::uint64_t record_count_ = 0;
  std::map<EtlHeaderKind, std::uint64_t> records_by_kind_;
  std::uint64_t compressed_buffers_ = 0;
  std::uint64_t buffer_count_ = 0;
  std::int64_t last_timestamp_ = 0;
};

}  // namespace heapql::test
