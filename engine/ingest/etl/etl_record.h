// One event record of an .etl file, as the container layer hands it to the
// event decoders: its header decoded (whatever the header kind), its payload
// as bytes. The container knows nothing of what events mean.
// Layouts: ../shared/formats/etw-heap.md §4.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace heapql {

// Byte 2 of a record's first word (etw-heap.md §4.3).
enum class EtlHeaderKind : std::uint8_t {
  kSystem32 = 0x01,
  kSystem64 = 0x02,
  kCompact32 = 0x03,
  kCompact64 = 0x04,
  kFull32 = 0x0A,        // EVENT_TRACE_HEADER
  kInstance32 = 0x0B,    // EVENT_INSTANCE_GUID_HEADER
  kPerfinfo32 = 0x10,
  kPerfinfo64 = 0x11,
  kEventHeader32 = 0x12, // manifest / TraceLogging EVENT_HEADER
  kEventHeader64 = 0x13,
  kFull64 = 0x14,
  kInstance64 = 0x15,
};

// "sys64", "perf64", "full32", "evh64", ... (the names used in info and tests).
std::string_view etl_header_kind_name(EtlHeaderKind kind);

// A GUID as its 16 bytes in file order (Data1..3 little-endian, Data4 as is).
using EtlGuid = std::array<std::uint8_t, 16>;
// "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c" (lowercase, as TraceEvent shows it).
std::string etl_guid_text(const EtlGuid& guid);

struct EtlRecord {
  EtlHeaderKind kind{};
  std::uint8_t pointer_size = 8;  // from the header kind: 4 or 8
  // SYSTEM/COMPACT/PERFINFO: the event version (u16 at +0);
  // FULL/INSTANCE: Class.Version; EVENT_HEADER: the descriptor's version.
  std::uint16_t version = 0;
  // Classic kernel events (SYSTEM/COMPACT/PERFINFO): HookId = group << 8 | type.
  std::uint16_t hook = 0;
  bool classic = false;  // true: `hook` identifies the event; false: `guid` + opcode/id do
  EtlGuid guid{};        // FULL/INSTANCE: the event GUID; EVENT_HEADER: the provider id
  std::uint8_t opcode = 0;     // FULL/INSTANCE: Class.Type; EVENT_HEADER: descriptor opcode
  std::uint16_t event_id = 0;  // EVENT_HEADER: descriptor id
  bool has_ids = false;        // the header carries thread and process ids (not PERFINFO)
  std::uint32_t thread = 0;
  std::uint32_t process = 0;
  std::int64_t timestamp = 0;  // raw clock ticks, as in the file
  std::uint32_t processor = 0; // the buffer's processor index
  std::uint64_t buffer_offset = 0;  // byte offset of the record's buffer in the file
  std::uint32_t offset_in_buffer = 0;  // of the record, in the (decompressed) buffer
  std::span<const std::uint8_t> payload;  // valid only during the callback
};

// TRACE_LOGFILE_HEADER, the payload of the first record (hook 0x0000), §4.4.
struct EtlLogfileHeader {
  std::uint32_t buffer_size = 0;
  std::uint32_t os_version = 0;     // major, minor, sub, subminor bytes
  std::uint32_t provider_version = 0;
  std::uint32_t processors = 0;
  std::uint32_t log_file_mode = 0;    // EVENT_TRACE_FILE_MODE_* bits
  std::uint32_t buffers_written = 0;  // as the session counted them when it stopped
  std::uint32_t pointer_size = 0;
  std::uint32_t events_lost = 0;
  std::uint32_t cpu_speed_mhz = 0;
  std::uint64_t perf_freq = 0;
  std::uint64_t start_time_filetime = 0;  // UTC, 100 ns since 1601
  std::uint32_t clock_type = 0;           // 1 QPC, 2 system time, 3 CPU cycles
  std::uint32_t buffers_lost = 0;
  std::int64_t header_timestamp = 0;      // the header record's own timestamp (the time base)
};

}  // namespace heapql
