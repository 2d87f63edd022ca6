// Typed decoders for the ETW event payloads heapql uses (etw-heap.md §3):
// heap, VirtualAlloc, stack walk and stack keys, process, image and the
// image's PDB identity. Each checks the payload length against its layout for
// the record's pointer size and throws heapql::Error naming the file, the
// buffer's offset, the event and what was expected when it is too short.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/ingest/etl/etl_record.h"

namespace heapql {

// Classic hook ids (group << 8 | type) heapql decodes.
namespace etw_hook {
constexpr std::uint16_t kLogfileHeader = 0x0000;
constexpr std::uint16_t kProcessStart = 0x0301;
constexpr std::uint16_t kProcessEnd = 0x0302;
constexpr std::uint16_t kProcessDcStart = 0x0303;
constexpr std::uint16_t kProcessDcEnd = 0x0304;
constexpr std::uint16_t kProcessDefunct = 0x0327;
constexpr std::uint16_t kImageLoad = 0x030A;
constexpr std::uint16_t kVirtualAlloc = 0x0262;
constexpr std::uint16_t kVirtualFree = 0x0263;
constexpr std::uint16_t kHeapCreate = 0x1020;
constexpr std::uint16_t kHeapAlloc = 0x1021;
constexpr std::uint16_t kHeapRealloc = 0x1022;
constexpr std::uint16_t kHeapDestroy = 0x1023;
constexpr std::uint16_t kHeapFree = 0x1024;
constexpr std::uint16_t kImageUnload = 0x1402;
constexpr std::uint16_t kImageDcStart = 0x1403;
constexpr std::uint16_t kImageDcEnd = 0x1404;
constexpr std::uint16_t kStackWalk = 0x1820;
constexpr std::uint16_t kStackKeyDelete = 0x1823;
constexpr std::uint16_t kStackKeyRundown = 0x1824;
constexpr std::uint16_t kStackKeyKernel = 0x1825;
constexpr std::uint16_t kStackKeyUser = 0x1826;
}  // namespace etw_hook

// KernelTraceControl's ImageID events (FULL header), opcode 0x24 = DbgID_RSDS.
constexpr EtlGuid kImageIdGuid = {0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
                                  0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde};
constexpr std::uint8_t kDbgIdRsdsOpcode = 0x24;

// Kernel providers that a FULL_HEADER, INSTANCE or EVENT_HEADER record may
// name by GUID, with the hook's type as its opcode (etw-heap.md §3.1):
// HeapTraceProvider (group 0x10) and PageFault (0x02, VirtualAlloc).
constexpr EtlGuid kHeapProviderGuid = {0xab, 0x62, 0x29, 0x22, 0x80, 0x61, 0x88, 0x4b,
                                       0xa8, 0x25, 0x34, 0x6b, 0x75, 0xf2, 0xa2, 0x4a};
constexpr EtlGuid kPageFaultGuid = {0xd3, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11,
                                    0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c};

// The classic hook a record stands for: its own hook, or for a heap or
// VirtualAlloc event named by its provider's GUID, group << 8 | opcode.
// Nothing for other records.
std::optional<std::uint16_t> classic_hook_of(const EtlRecord& record);

struct HeapAllocPayload {
  std::uint64_t heap = 0, size = 0, address = 0;
};
struct HeapFreePayload {
  std::uint64_t heap = 0, address = 0;
};
struct HeapReallocPayload {
  std::uint64_t heap = 0, new_address = 0, old_address = 0, new_size = 0, old_size = 0;
};
struct HeapHandlePayload {  // HeapCreate, HeapDestroy: the handle comes first
  std::uint64_t heap = 0;
};
struct VirtualAllocPayload {
  std::uint64_t base = 0, size = 0;
  std::uint32_t process = 0, flags = 0;
};
constexpr std::uint32_t kMemCommit = 0x1000;
constexpr std::uint32_t kMemDecommit = 0x4000;
constexpr std::uint32_t kMemRelease = 0x8000;

struct StackWalkPayload {
  std::int64_t event_timestamp = 0;
  std::uint32_t process = 0, thread = 0;
  std::vector<std::uint64_t> frames;  // innermost first
};
struct StackKeyPayload {  // StackKeyKernel / StackKeyUser
  std::int64_t event_timestamp = 0;
  std::uint32_t process = 0, thread = 0;
  std::uint64_t key = 0;
};
struct StackKeyDefinitionPayload {  // KeyDelete / KeyRundown
  std::uint64_t key = 0;
  std::vector<std::uint64_t> frames;
};
struct ProcessPayload {
  std::uint32_t process = 0;
  std::string image_name;  // e.g. "notepad.exe"
};
struct ImagePayload {
  std::uint64_t base = 0, size = 0;
  std::uint32_t process = 0;
  std::string file_name;  // the NT path as UTF-8
};
struct RsdsPayload {
  std::uint64_t image_base = 0;
  std::uint32_t process = 0;
  EtlGuid guid{};
  std::uint32_t age = 0;
  std::string pdb_name;
};

// `file` names the trace in error messages.
HeapAllocPayload decode_heap_alloc(const EtlRecord& r, const std::string& file);
HeapFreePayload decode_heap_free(const EtlRecord& r, const std::string& file);
HeapReallocPayload decode_heap_realloc(const EtlRecord& r, const std::string& file);
HeapHandlePayload decode_heap_handle(const EtlRecord& r, const std::string& file, std::string_view event);
VirtualAllocPayload decode_virtual_alloc(const EtlRecord& r, const std::string& file);
StackWalkPayload decode_stack_walk(const EtlRecord& r, const std::string& file);
StackKeyPayload decode_stack_key(const EtlRecord& r, const std::string& file);
StackKeyDefinitionPayload decode_stack_key_definition(const EtlRecord& r, const std::string& file);
ProcessPayload decode_process(const EtlRecord& r, const std::string& file);
ImagePayload decode_image(const EtlRecord& r, const std::string& file);
RsdsPayload decode_rsds(const EtlRecord& r, const std::string& file);

}  // namespace heapql
