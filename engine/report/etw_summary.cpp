#include "engine/report/etw_summary.h"

#include <fmt/format.h>

#include <algorithm>

namespace heapql {

namespace {

void write_counts(JsonWriter& w, std::string_view name, const std::map<std::string, std::uint64_t>& counts) {
  w.key(name).begin_object();
  for (const auto& [key, count] : counts) w.field(key, count);
  w.end_object();
}

std::string counts_text(const std::map<std::string, std::uint64_t>& counts) {
  std::string out;
  for (const auto& [key, count] : counts) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", key, count);
  return out.empty() ? "none" : out;
}

}  // namespace

void write_etw_summary_json(JsonWriter& w, const EtwInfo& e) {
  w.key("etw").begin_object();
  w.field("buffers", e.buffers);
  w.field("compressed_buffers", e.compressed_buffers);
  w.field("pointer_size", e.pointer_size);
  w.field("clock_type", e.clock_type);
  w.field("perf_freq", e.perf_freq);
  w.field("logfile_headers", e.logfile_headers);
  w.field("os_version", e.os_version);
  w.field("processors", e.processors);
  write_counts(w, "events_by_header_kind", e.events_by_header_kind);
  write_counts(w, "events_by_hook", e.events_by_hook);
  write_counts(w, "skipped", e.skipped);
  w.field("heap_events", e.heap_events);
  w.field("virtual_events", e.virtual_events);
  w.field("moving_reallocs", e.moving_reallocs);
  w.field("realloc_companions_dropped", e.realloc_companions_dropped);
  w.field("recommitted_bytes", e.recommitted_bytes);
  w.field("decommits_of_uncommitted", e.decommits_of_uncommitted);
  w.field("events_before_start", e.events_before_start);
  w.key("stacks").begin_object();
  w.field("stack_walks", e.stack_walks);
  w.field("unattached", e.stack_walks_unattached);
  w.field("key_uses", e.stack_key_uses);
  w.field("keys_unresolved", e.stack_keys_unresolved);
  w.field("blocks_with_stack", e.events_with_stack);
  w.field("blocks_without_stack", e.events_without_stack);
  w.end_object();
  w.key("symbols").begin_object();
  w.field("requested", e.symbols_requested);
  w.field("addresses_symbolized", e.frames_symbolized);
  w.field("addresses_unresolved_with_pdb", e.frames_unsymbolized_with_pdb);
  w.field("addresses_outside_modules", e.frames_outside_modules);
  w.field("pdbs_loaded", e.pdbs_loaded);
  w.field("pdbs_missing", e.pdbs_missing);
  w.field("pdbs_mismatched", e.pdbs_mismatched);
  w.field("pdbs_unreadable", e.pdbs_unreadable);
  w.end_object();
  w.end_object();

  w.key("processes").begin_array();
  for (const auto& p : e.processes) w.begin_object().field("pid", p.pid).field("name", p.name).end_object();
  w.end_array();
  w.key("modules").begin_array();
  for (const auto& m : e.modules) {
    w.begin_object().field("name", m.name).field("loads", m.loads).key("pdb");
    if (m.pdb.empty()) {
      w.null();
    } else {
      w.value(m.pdb);
    }
    w.end_object();
  }
  w.end_array();
  w.key("heaps").begin_array();
  for (const auto& h : e.heaps) {
    w.begin_object().field("pid", h.pid).field("handle", fmt::format("0x{:x}", h.handle));
    w.field("allocations", h.allocations).field("created", h.created).field("destroyed", h.destroyed).end_object();
  }
  w.end_array();
}

std::string etw_summary_table(const EtwInfo& e) {
  std::string out;
  out += fmt::format("etl                {} buffers ({} compressed), {}-byte pointers, clock type {} at {} Hz, "
                     "{} processors, Windows {}\n",
                     e.buffers, e.compressed_buffers, e.pointer_size, e.clock_type, e.perf_freq, e.processors,
                     e.os_version);
  if (e.logfile_headers > 1) out += fmt::format("sessions           {} (merged)\n", e.logfile_headers);
  out += fmt::format("events             {}\n", counts_text(e.events_by_header_kind));
  out += fmt::format("heap events        {} heap, {} VirtualAlloc; {} moving reallocs ({} companion events dropped)\n",
                     e.heap_events, e.virtual_events, e.moving_reallocs, e.realloc_companions_dropped);
  out += fmt::format("skipped            {}\n", counts_text(e.skipped));
  out += fmt::format("stacks             {} walks and {} key uses ({} of them for other events, {} keys "
                     "unresolved); {} blocks with a stack, {} without\n",
                     e.stack_walks, e.stack_key_uses, e.stack_walks_unattached, e.stack_keys_unresolved,
                     e.events_with_stack, e.events_without_stack);
  if (e.symbols_requested) {
    out += fmt::format("symbols            {} PDBs loaded, {} missing, {} mismatched, {} unreadable; {} addresses "
                       "named, {} left as offsets\n",
                       e.pdbs_loaded, e.pdbs_missing, e.pdbs_mismatched, e.pdbs_unreadable, e.frames_symbolized,
                       e.frames_unsymbolized_with_pdb);
  }
  // A system-wide trace names hundreds of processes: the table shows the first
  // few, `--format json` has them all.
  constexpr std::size_t kProcessesShown = 12;
  std::string processes;
  for (std::size_t i = 0; i < e.processes.size() && i < kProcessesShown; ++i) {
    processes += fmt::format("{}{} ({})", i == 0 ? "" : ", ", e.processes[i].name, e.processes[i].pid);
  }
  if (e.processes.size() > kProcessesShown) {
    processes += fmt::format(" and {} more", e.processes.size() - kProcessesShown);
  }
  // Every process the trace names, allocating or not; "unique" above counts
  // those with heap or VirtualAlloc blocks.
  out += fmt::format("processes named    {}{}\n", processes.empty() ? "none" : fmt::format("{}: ", e.processes.size()),
                     processes);
  out += fmt::format("modules            {} distinct, {} with a PDB identity\n", e.modules.size(),
                     std::count_if(e.modules.begin(), e.modules.end(), [](const auto& m) { return !m.pdb.empty(); }));
  std::string heaps;
  for (const auto& h : e.heaps) heaps += fmt::format("{}0x{:x} in {}", heaps.empty() ? "" : ", ", h.handle, h.pid);
  out += fmt::format("heaps              {}\n", heaps.empty() ? "none" : heaps);
  return out;
}

}  // namespace heapql
