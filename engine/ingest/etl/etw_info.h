// What the ETL reader saw of a file (heapql info, "etw" in JSON): the
// container, every event counted by kind, what was skipped, and how stacks
// and symbols went. etw_details.cpp turns it into the generic details that
// `info` prints (docs/json.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace heapql {

struct EtwInfo {
  std::uint64_t buffers = 0;
  std::uint64_t compressed_buffers = 0;
  std::uint32_t pointer_size = 0;
  std::uint32_t clock_type = 0;
  std::uint64_t perf_freq = 0;
  std::uint64_t logfile_headers = 0;  // more than one: merged sessions
  std::uint64_t records_out_of_time_order = 0;  // a processor's buffers out of time order (EtlFile)
  std::string os_version;             // "10.0.19041" style, from the logfile header
  std::uint32_t processors = 0;
  std::map<std::string, std::uint64_t> events_by_header_kind;  // "sys64" -> n
  // "0x1820" for classic hooks; "<provider guid>/<opcode>" for FULL and
  // INSTANCE records; "<provider guid>#<event id>" for EVENT_HEADER records.
  std::map<std::string, std::uint64_t> events_by_hook;
  std::map<std::string, std::uint64_t> skipped;  // why -> n
  struct ProcessName {
    std::uint32_t pid = 0;
    std::string name;
  };
  std::vector<ProcessName> processes;  // every distinct (pid, name) pair, by pid
  struct Module {
    std::string name;
    std::uint64_t loads = 0;  // load and rundown events seen
    std::string pdb;          // "ntdll.pdb 1A2B...1" or empty
  };
  std::vector<Module> modules;  // by name
  struct HeapHandle {
    std::uint32_t pid = 0;
    std::uint64_t handle = 0;
    std::uint64_t allocations = 0;
    bool created = false;
    bool destroyed = false;
  };
  std::vector<HeapHandle> heaps;  // by pid, handle
  std::uint64_t heap_events = 0;
  std::uint64_t virtual_events = 0;
  std::uint64_t moving_reallocs = 0;          // HeapRealloc to a new address
  std::uint64_t realloc_companions_dropped = 0;  // their extra HeapAlloc/HeapFree (§3.2)
  std::uint64_t recommitted_bytes = 0;
  std::uint64_t decommits_of_uncommitted = 0;
  std::uint64_t events_before_start = 0;      // stamped before the logfile header (kept at 0)
  std::uint64_t stack_walks = 0;
  std::uint64_t stack_walks_unattached = 0;   // walks and key uses whose event is not a heap/VirtualAlloc event
  std::uint64_t stack_key_uses = 0;
  std::uint64_t stack_keys_unresolved = 0;
  std::uint64_t events_with_stack = 0;
  std::uint64_t events_without_stack = 0;
  // Symbols (--symbols): addresses resolved once per distinct module offset.
  bool symbols_requested = false;
  std::uint64_t frames_symbolized = 0;
  std::uint64_t frames_unsymbolized_with_pdb = 0;
  std::uint64_t frames_outside_modules = 0;
  std::uint64_t pdbs_loaded = 0;
  std::uint64_t pdbs_missing = 0;
  std::uint64_t pdbs_mismatched = 0;
  std::uint64_t pdbs_unreadable = 0;
};

}  // namespace heapql
