// Synthetic ETW heap / VirtualAlloc fixtures built with EtlWriter. Every trace
// here is SYNTHETIC: laid out from ../shared/formats/etw-heap.md §3-§4, not
// recorded on Windows. Each builder returns a description of exactly what it
// wrote, so tests derive expectations from it instead of hard-coding them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/etl_writer.h"

namespace heapql::test {

// Return-address offsets inside the synthetic modules: a frame is module base
// + offset, so with no symbols a tool shows it as e.g. "MemoryTestApp.exe!0x1234".
namespace memory_test_app_offsets {
// MemoryTestApp.exe
inline constexpr std::uint64_t kAllocateSteadyState = 0x1234;
inline constexpr std::uint64_t kGrowSteadyState = 0x1388;
inline constexpr std::uint64_t kManipulateTemporaryBuffer = 0x14f0;
inline constexpr std::uint64_t kInnerLoopOperation = 0x1620;
inline constexpr std::uint64_t kDoWork = 0x1750;
inline constexpr std::uint64_t kResizeBuffer = 0x1868;
inline constexpr std::uint64_t kWorkerThreadProc = 0x1940;
inline constexpr std::uint64_t kMain = 0x1a30;
inline constexpr std::uint64_t kScrtCommonMain = 0x2a10;
// ntdll.dll
inline constexpr std::uint64_t kRtlpAllocateHeapInternal = 0x3b1f5;
inline constexpr std::uint64_t kRtlAllocateHeap = 0x3a0d5;
inline constexpr std::uint64_t kRtlReAllocateHeap = 0x4b4e0;
inline constexpr std::uint64_t kNtAllocateVirtualMemory = 0x9d3a4;
inline constexpr std::uint64_t kRtlUserThreadStart = 0x7c7b1;
// kernel32.dll / kernelbase.dll / ucrtbase.dll
inline constexpr std::uint64_t kBaseThreadInitThunk = 0x17344;
inline constexpr std::uint64_t kVirtualAlloc = 0x3b1f0;
inline constexpr std::uint64_t kMallocBase = 0x1a2b0;
inline constexpr std::uint64_t kReallocBase = 0x1c3f0;
// ntoskrnl.exe (kernel fragment of split stacks)
inline constexpr std::uint64_t kMiAllocateVirtualMemory = 0x2f1a10;
inline constexpr std::uint64_t kNtAllocateVirtualMemoryKernel = 0x2f0c44;
inline constexpr std::uint64_t kKiSystemServiceCopyEnd = 0x4126b5;
}  // namespace memory_test_app_offsets

struct ScenarioModule {
  std::string name;       // base name, "ntdll.dll"
  std::u16string path;    // the NT path written in the event
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  std::uint32_t pid = 0;  // 0 for the kernel image
  std::int64_t load_ns = 0;
};

// One heap block as the heap sees it: allocated by HeapAlloc (directly, or
// as the HeapAlloc ntdll logs for a moving realloc), maybe resized in place,
// maybe freed. Times are ns after the logfile-header record.
struct ScenarioHeapBlock {
  std::int64_t alloc_ns = 0;
  std::uint64_t address = 0;
  std::uint64_t size = 0;        // size at allocation
  std::uint64_t final_size = 0;  // after in-place reallocs
  std::uint32_t tid = 0;
  std::uint32_t processor = 0;
  std::string function;          // MemoryTestApp.exe function that allocated it
  std::uint64_t function_offset = 0;
  bool from_moving_realloc = false;
  bool stack_via_key = false;    // StackKeyUser + KeyRundown instead of a StackWalk
  std::optional<std::int64_t> free_ns;  // nullopt: never freed
};

struct ScenarioRealloc {
  std::int64_t ns = 0;
  std::uint64_t old_address = 0;
  std::uint64_t new_address = 0;
  std::uint64_t old_size = 0;
  std::uint64_t new_size = 0;
  bool moved = false;  // moving: HeapRealloc + HeapAlloc(new) + HeapFree(old), 1 tick apart
};

struct ScenarioCommit {
  std::int64_t commit_ns = 0;
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  std::string function;
  std::uint64_t function_offset = 0;
  std::optional<std::int64_t> decommit_ns;  // nullopt: never decommitted
  bool perfinfo_header = false;  // VirtualAlloc/Free written with a PERFINFO header (no tid/pid)
  bool split_stack = false;      // a kernel fragment + a user fragment (StackWalks, or keys below)
  bool stack_via_keys = false;   // StackKeyKernel + StackKeyUser + a KeyRundown for each key
};

// How many records of each kind a builder wrote (the logfile header aside).
struct ScenarioCounts {
  std::uint64_t process_start = 0, thread_start = 0, image_load = 0, image_dcstart = 0, image_id_rsds = 0;
  std::uint64_t heap_create = 0, heap_alloc = 0, heap_realloc = 0, heap_free = 0, heap_destroy = 0;
  std::uint64_t virtual_alloc = 0, virtual_free = 0;
  std::uint64_t stack_walk = 0, stack_key_kernel = 0, stack_key_user = 0, key_rundown = 0, key_delete = 0;
  std::uint64_t total() const;
};

struct RsdsIdentity {
  EtlGuid pdb_guid{};
  std::uint32_t age = 1;
  std::string pdb_name = "MemoryTestApp.pdb";
};

struct MemoryTestAppOptions {
  std::optional<RsdsIdentity> exe_pdb;  // adds a DbgID_RSDS record for MemoryTestApp.exe
};

// A SYNTHETIC 20-second trace of MemoryTestApp.exe (pid 4242), two processors.
struct MemoryTestAppTrace {
  static constexpr bool kSynthetic = true;
  std::uint32_t pid = 4242;
  std::string process_name = "MemoryTestApp.exe";
  std::uint32_t main_tid = 0, work_tid = 0, loop_tid = 0;
  std::uint64_t heap = 0;
  std::int64_t heap_create_ns = 0;
  std::int64_t duration_ns = 0;  // the last record (KeyRundown at the end)
  std::vector<ScenarioModule> modules;  // MemoryTestApp.exe, ntdll, kernel32, kernelbase, ucrtbase, ntoskrnl
  std::vector<ScenarioHeapBlock> heap_blocks;
  std::vector<ScenarioRealloc> reallocs;
  std::vector<ScenarioCommit> commits;
  std::uint64_t inner_loop_user_key = 0;   // StackKeyUser key of every InnerLoopOperation alloc
  std::uint64_t grow_kernel_key = 0;       // GrowSteadyState's StackKeyKernel key
  std::uint64_t grow_user_key = 0;         // GrowSteadyState's StackKeyUser key
  ScenarioCounts counts;
  const ScenarioModule& module(const std::string& name) const;  // throws if absent
};

// Writes the scenario into `writer` (which stays open; the caller finishes or
// writes it). Addresses depend on the writer's pointer size (32-bit bases
// below 0x80000000 for user space, kernel at 0x8xxxxxxx).
MemoryTestAppTrace memory_test_app(EtlWriter& writer, const MemoryTestAppOptions& options = {});
// Convenience: a fresh writer, the scenario, and the file written to `path`.
MemoryTestAppTrace write_memory_test_app(const std::string& path, const EtlWriterOptions& writer_options = {},
                                         const MemoryTestAppOptions& options = {});

// SYNTHETIC: a file with the logfile header only.
std::vector<std::uint8_t> empty_trace(const EtlWriterOptions& writer_options = {});

// SYNTHETIC: process "single.exe" with one image, one HeapAlloc (+ StackWalk)
// and its HeapFree, on processor 0.
struct SingleAllocTrace {
  static constexpr bool kSynthetic = true;
  std::uint32_t pid = 100, tid = 101;
  std::uint64_t heap = 0x10000, address = 0x12340, size = 64;
  std::int64_t alloc_ns = 1'000'000, free_ns = 2'000'000;
  ScenarioModule image;
  std::uint64_t frame_offset = 0x1010;  // the only frame: single.exe + 0x1010
  ScenarioCounts counts;
};
SingleAllocTrace single_alloc_free(EtlWriter& writer);

// SYNTHETIC: "app.exe" (pid 500, one image at 0x7ff6'0000'0000), one thread
// (501) that moves between processors 0 and 1: 120 HeapAllocs (every fourth
// freed), each with a stack walk on its event's processor or the other one,
// stamped with the event's time or 2 ticks later. With small buffers the walks
// often lie in another processor's buffer, before or after their event's.
struct MigratingThreadTrace {
  static constexpr bool kSynthetic = true;
  std::uint32_t pid = 500, tid = 501;
  std::uint64_t heap = 0x2a0000;
  std::uint64_t image_base = 0x7ff6'0000'0000;
  std::size_t blocks = 120;
  std::size_t walks_on_another_processor = 0;
};
MigratingThreadTrace migrating_thread(EtlWriter& writer);

}  // namespace heapql::test
