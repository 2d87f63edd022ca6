// What a reader learned about its input besides the blocks: where it came
// from, what the source can and cannot tell (semantics.md §1, "Sources differ"),
// and what was odd about it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/store/block_matcher.h"
#include "engine/store/events.h"

namespace heapql {

// What the ETL reader saw (heapql info --format json, "etw"): the container,
// every event counted by kind, what was skipped, and how stacks and symbols went.
struct EtwInfo {
  std::uint64_t buffers = 0;
  std::uint64_t compressed_buffers = 0;
  std::uint32_t pointer_size = 0;
  std::uint32_t clock_type = 0;
  std::uint64_t perf_freq = 0;
  std::uint64_t logfile_headers = 0;  // more than one: merged sessions
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

// Where a trace that ends early stopped (a recording killed with its program,
// a file copied while it was written): everything before is answered.
struct TraceCut {
  std::string file;                   // the file that ends early
  std::uint64_t at_byte = 0;          // its offset where the complete data ends
  std::uint64_t left_over_bytes = 0;  // bytes after the last complete record, not read as records
  std::string what;                   // how it ends: "the zstd stream ends inside a frame", ...
};

struct SourceInfo {
  std::string path;              // the file the user named
  std::vector<std::string> files;  // every file read (e.g. a raw twin)
  std::string source;            // "heaptrack", "etw", "csv"
  std::string format;            // "interpreted", "raw+interpreted"
  std::string compression;       // of the main file: plain | gzip | zstd
  BlockIdentity block_identity = BlockIdentity::kBucketLifo;
  bool realloc_marked = false;
  bool threads = false;
  std::int64_t time_resolution_ns = 0;

  // heaptrack specifics (zero/empty where absent)
  std::uint32_t format_version = 0;
  std::string tracer_version;    // e.g. "1.4.0"
  std::string command;           // the traced command line
  std::uint64_t page_size = 0;
  std::uint64_t physical_pages = 0;
  std::uint64_t peak_rss_bytes = 0;
  bool attached = false;         // started by attaching: earlier allocations unknown
  std::vector<std::string> embedded_suppressions;

  std::optional<EtwInfo> etw;    // ETL files only

  std::uint64_t lines = 0;       // records read (lines of the main file; events of an ETL file)
  Anomalies anomalies;
  std::int64_t end_ns = 0;       // last timestamp
  std::optional<TraceCut> cut;   // the trace ends early: the answers cover 0..end_ns
};

std::string_view block_identity_name(BlockIdentity identity);

}  // namespace heapql
