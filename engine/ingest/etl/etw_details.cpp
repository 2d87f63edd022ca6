#include "engine/ingest/etl/etw_details.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/units.h"

namespace heapql {

namespace {

InfoValue counts_object(const std::map<std::string, std::uint64_t>& counts) {
  InfoValue object = InfoValue::object();
  for (const auto& [key, count] : counts) object.set(key, InfoValue::whole(count));
  return object;
}

std::string counts_text(const std::map<std::string, std::uint64_t>& counts) {
  std::string out;
  for (const auto& [key, count] : counts) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", key, count);
  return out.empty() ? "none" : out;
}

InfoValue etw_object(const EtwInfo& e) {
  using V = InfoValue;
  V etw = V::object();
  etw.set("buffers", V::whole(e.buffers));
  etw.set("compressed_buffers", V::whole(e.compressed_buffers));
  etw.set("pointer_size", V::whole(e.pointer_size));
  etw.set("clock_type", V::whole(e.clock_type));
  etw.set("perf_freq", V::whole(e.perf_freq));
  etw.set("logfile_headers", V::whole(e.logfile_headers));
  etw.set("records_out_of_time_order", V::whole(e.records_out_of_time_order));
  etw.set("os_version", V::string(e.os_version));
  etw.set("processors", V::whole(e.processors));
  etw.set("events_by_header_kind", counts_object(e.events_by_header_kind));
  etw.set("events_by_hook", counts_object(e.events_by_hook));
  etw.set("skipped", counts_object(e.skipped));
  etw.set("heap_events", V::whole(e.heap_events));
  etw.set("virtual_events", V::whole(e.virtual_events));
  etw.set("moving_reallocs", V::whole(e.moving_reallocs));
  etw.set("realloc_companions_dropped", V::whole(e.realloc_companions_dropped));
  etw.set("recommitted_bytes", V::whole(e.recommitted_bytes));
  etw.set("decommits_of_uncommitted", V::whole(e.decommits_of_uncommitted));
  etw.set("events_before_start", V::whole(e.events_before_start));
  V& stacks = etw.set("stacks", V::object());
  stacks.set("stack_walks", V::whole(e.stack_walks));
  stacks.set("unattached", V::whole(e.stack_walks_unattached));
  stacks.set("key_uses", V::whole(e.stack_key_uses));
  stacks.set("keys_unresolved", V::whole(e.stack_keys_unresolved));
  stacks.set("blocks_with_stack", V::whole(e.events_with_stack));
  stacks.set("blocks_without_stack", V::whole(e.events_without_stack));
  V& symbols = etw.set("symbols", V::object());
  symbols.set("requested", V::boolean(e.symbols_requested));
  symbols.set("addresses_symbolized", V::whole(e.frames_symbolized));
  symbols.set("addresses_unresolved_with_pdb", V::whole(e.frames_unsymbolized_with_pdb));
  symbols.set("addresses_outside_modules", V::whole(e.frames_outside_modules));
  symbols.set("pdbs_loaded", V::whole(e.pdbs_loaded));
  symbols.set("pdbs_missing", V::whole(e.pdbs_missing));
  symbols.set("pdbs_mismatched", V::whole(e.pdbs_mismatched));
  symbols.set("pdbs_unreadable", V::whole(e.pdbs_unreadable));
  return etw;
}

}  // namespace

SourceDetails etw_details(const EtwInfo& e) {
  using V = InfoValue;
  SourceDetails details;
  details.json.emplace_back("etw", etw_object(e));
  V processes = V::array();
  for (const auto& p : e.processes) {
    V& process = processes.push(V::object());
    process.set("pid", V::whole(p.pid));
    process.set("name", V::string(p.name));
  }
  details.json.emplace_back("processes", std::move(processes));
  V modules = V::array();
  for (const auto& m : e.modules) {
    V& module = modules.push(V::object());
    module.set("name", V::string(m.name));
    module.set("loads", V::whole(m.loads));
    module.set("pdb", m.pdb.empty() ? V() : V::string(m.pdb));
  }
  details.json.emplace_back("modules", std::move(modules));
  V heaps = V::array();
  for (const auto& h : e.heaps) {
    V& heap = heaps.push(V::object());
    heap.set("pid", V::whole(h.pid));
    heap.set("handle", V::string(fmt::format("0x{:x}", h.handle)));
    heap.set("allocations", V::whole(h.allocations));
    heap.set("created", V::boolean(h.created));
    heap.set("destroyed", V::boolean(h.destroyed));
  }
  details.json.emplace_back("heaps", std::move(heaps));

  auto& table = details.table;
  table.emplace_back("etl", fmt::format("{} ({} compressed), {}-byte pointers, clock type {} at {} Hz, "
                                        "{}, Windows {}",
                                        format_count(e.buffers, "buffer", "buffers"), e.compressed_buffers,
                                        e.pointer_size, e.clock_type, e.perf_freq,
                                        format_count(e.processors, "processor", "processors"), e.os_version));
  if (e.logfile_headers > 1) table.emplace_back("sessions", fmt::format("{} (merged)", e.logfile_headers));
  if (e.records_out_of_time_order > 0) {
    table.emplace_back("out of time order",
                       fmt::format("{} (a processor's buffers are not in time order; read where they come)",
                                   format_count(e.records_out_of_time_order, "record", "records")));
  }
  table.emplace_back("events", counts_text(e.events_by_header_kind));
  table.emplace_back("heap events", fmt::format("{} heap, {} VirtualAlloc; {} ({} dropped)", e.heap_events,
                                                e.virtual_events,
                                                format_count(e.moving_reallocs, "moving realloc", "moving reallocs"),
                                                format_count(e.realloc_companions_dropped, "companion event",
                                                             "companion events")));
  table.emplace_back("skipped", counts_text(e.skipped));
  table.emplace_back("stacks", fmt::format("{} and {} ({} of them for other events, {} unresolved); {} with a "
                                           "stack, {} without",
                                           format_count(e.stack_walks, "walk", "walks"),
                                           format_count(e.stack_key_uses, "key use", "key uses"),
                                           e.stack_walks_unattached,
                                           format_count(e.stack_keys_unresolved, "key", "keys"),
                                           format_count(e.events_with_stack, "block", "blocks"),
                                           e.events_without_stack));
  if (e.symbols_requested) {
    table.emplace_back("symbols", fmt::format("{} loaded, {} missing, {} mismatched, {} unreadable; {} named, "
                                              "{} left as offsets",
                                              format_count(e.pdbs_loaded, "PDB", "PDBs"), e.pdbs_missing,
                                              e.pdbs_mismatched, e.pdbs_unreadable,
                                              format_count(e.frames_symbolized, "address", "addresses"),
                                              e.frames_unsymbolized_with_pdb));
  }
  // A system-wide trace names hundreds of processes: the table shows the first
  // few, `--format json` has them all.
  constexpr std::size_t kProcessesShown = 12;
  std::string processes_text;
  for (std::size_t i = 0; i < e.processes.size() && i < kProcessesShown; ++i) {
    processes_text += fmt::format("{}{} ({})", i == 0 ? "" : ", ", e.processes[i].name, e.processes[i].pid);
  }
  if (e.processes.size() > kProcessesShown) {
    processes_text += fmt::format(" and {} more", e.processes.size() - kProcessesShown);
  }
  // Every process the trace names, allocating or not; "unique" counts those
  // with heap or VirtualAlloc blocks.
  table.emplace_back("processes named",
                     fmt::format("{}{}", processes_text.empty() ? "none" : fmt::format("{}: ", e.processes.size()),
                                 processes_text));
  table.emplace_back("modules", fmt::format("{} distinct, {} with a PDB identity", e.modules.size(),
                                            std::count_if(e.modules.begin(), e.modules.end(),
                                                          [](const auto& m) { return !m.pdb.empty(); })));
  std::string heaps_text;
  for (const auto& h : e.heaps) {
    heaps_text += fmt::format("{}0x{:x} in {}", heaps_text.empty() ? "" : ", ", h.handle, h.pid);
  }
  table.emplace_back("heaps", heaps_text.empty() ? "none" : heaps_text);
  return details;
}

}  // namespace heapql
