#include "engine/ingest/etl/etw_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include "engine/error.h"
#include "engine/ingest/etl/etl_file.h"
#include "engine/ingest/etl/etw_details.h"
#include "engine/ingest/etl/etw_info.h"
#include "engine/ingest/trace_cut.h"
#include "engine/ingest/etl/etw_modules.h"
#include "engine/ingest/etl/etw_payloads.h"
#include "engine/ingest/etl/etw_pdb_lookup.h"
#include "engine/ingest/etl/etw_stacks.h"
#include "engine/ingest/etl/virtual_commits.h"
#include "engine/ingest/block_matcher.h"
#include "engine/util/flat_index.h"
#include "engine/util/recently_freed.h"

namespace heapql {

namespace {

enum class EventType : std::uint8_t {
  kProcessName,
  kImageLoad,
  kImageUnload,
  kHeapCreate,
  kHeapAlloc,
  kHeapRealloc,
  kHeapFree,
  kHeapDestroy,
  kVirtualCommit,
  kVirtualReserve,
  kVirtualDecommit,
};

// One event that matters to blocks, modules or process names, kept until the
// whole file is read and the events of all buffers can be put in time order.
struct TimedEvent {
  std::int64_t timestamp = 0;  // raw clock ticks
  std::uint32_t process = 0;
  std::uint32_t thread = 0;
  std::uint64_t heap = 0;         // heap events: the heap handle
  std::uint64_t address = 0;      // heap events: the block; VirtualAlloc: the range's base; images: the base
  std::uint64_t size = 0;         // heap events, VirtualAlloc and images
  std::uint64_t old_address = 0;  // HeapRealloc: the block it replaces
  std::uint32_t flags = 0;        // VirtualAlloc: MEM_* flags
  std::uint32_t name = 0;         // process start and image load: an index into names_
  EtwStacks::EventStack stack;
  EventType type{};
  std::uint8_t pointer_size = 8;
  bool dropped = false;  // a moving realloc's companion HeapAlloc/HeapFree
};

constexpr std::uint64_t kVirtualHeapHandle = 0;  // the pseudo heap of VirtualAlloc blocks
constexpr std::uint64_t kPieceTokenBit = 1ull << 63;
constexpr std::uint64_t kNeverLiveToken = kPieceTokenBit - 1;  // makes the matcher count an unmatched free
// How far (in time-ordered events) a moving realloc's companions may lie.
constexpr std::size_t kCompanionWindow = 8;

// Every record is counted by what identifies its event (EtwInfo::events_by_hook):
// a classic hook, or a provider GUID with an EVENT_HEADER id or a FULL/INSTANCE
// opcode. Counted by these compact keys and named once, after the read.
class EventCounts {
 public:
  void count(const EtlRecord& r) {
    if (r.classic) {
      ++classic_[r.hook];
    } else if (r.kind == EtlHeaderKind::kEventHeader32 || r.kind == EtlHeaderKind::kEventHeader64) {
      ++providers_[{r.guid, true, r.event_id}];
    } else {
      ++providers_[{r.guid, false, r.opcode}];
    }
  }

  void name_into(std::map<std::string, std::uint64_t>& out) const {
    for (const auto& [hook, n] : classic_) out[fmt::format("0x{:04x}", hook)] += n;
    for (const auto& [key, n] : providers_) {
      const auto& [guid, event_header, id] = key;
      out[fmt::format("{}{}{}", etl_guid_text(guid), event_header ? "#" : "/", id)] += n;
    }
  }

 private:
  std::unordered_map<std::uint16_t, std::uint64_t> classic_;
  std::map<std::tuple<EtlGuid, bool, std::uint16_t>, std::uint64_t> providers_;  // (guid, EVENT_HEADER?, id/opcode)
};

class EtwTraceReader {
 public:
  EtwTraceReader(const std::string& path, TraceTables& tables, const EtwReadOptions& options)
      : path_(path), tables_(tables), options_(options) {}

  SourceInfo read(EventConsumer& consumer) {
    EtlFile file = options_.bytes ? EtlFile(path_, *options_.bytes) : EtlFile(path_);
    info_.symbols_requested = !options_.symbol_paths.empty();
    if (info_.symbols_requested) symbols_ = make_pdb_lookup(options_.symbol_paths, options_.confined);
    modules_ = std::make_unique<EtwModules>(tables_, symbols_.get());
    EtlReadOptions read_options;
    read_options.show_progress = options_.show_progress;
    file.read([this](const EtlRecord& r) { take(r); }, read_options);
    expire_pending_stacks(std::numeric_limits<std::int64_t>::max());
    header_ = file.header();
    set_clock();
    stacks_.resolve_keys();
    order_events();
    drop_realloc_companions();
    plan_virtual_pieces();
    BlockMatcher matcher(BlockIdentity::kExact, consumer);
    sweep(matcher);
    matcher.set_time(to_ns(last_timestamp_));
    if (file.cut()) report_cut(*file.cut(), to_ns(last_timestamp_), options_.strict, options_.warnings);
    matcher.finish();
    SourceInfo source = source_info(file, matcher);
    source.cut = file.cut();
    return source;
  }

 private:
  // ---- pass 1: every record, in time order (merged from every buffer) ----

  void take(const EtlRecord& r) {
    if (!pending_stacks_.empty()) expire_pending_stacks(r.timestamp);
    event_counts_.count(r);
    last_timestamp_ = std::max(last_timestamp_, r.timestamp);
    if (!r.classic) {
      if ((r.kind == EtlHeaderKind::kFull32 || r.kind == EtlHeaderKind::kFull64) && r.guid == kImageIdGuid &&
          r.opcode == kDbgIdRsdsOpcode) {
        const RsdsPayload rsds = decode_rsds(r, path_);
        modules_->add_pdb(rsds.process, rsds.image_base, PdbIdentity{rsds.guid, rsds.age, rsds.pdb_name});
      } else if (const std::optional<std::uint16_t> hook = classic_hook_of(r)) {
        // A heap or VirtualAlloc event named by its provider's GUID: read as
        // the classic event it is, whatever its header kind.
        EtlRecord as_classic = r;
        as_classic.classic = true;
        as_classic.hook = *hook;
        take_classic(as_classic);
      } else {
        ++info_.skipped["provider events"];
      }
      return;
    }
    take_classic(r);
  }

  void take_classic(const EtlRecord& r) {
    switch (r.hook) {
      case etw_hook::kHeapCreate:
        add_heap_event(r, EventType::kHeapCreate, decode_heap_handle(r, path_, "HeapCreate").heap, 0, 0, 0);
        break;
      case etw_hook::kHeapDestroy:
        add_heap_event(r, EventType::kHeapDestroy, decode_heap_handle(r, path_, "HeapDestroy").heap, 0, 0, 0);
        break;
      case etw_hook::kHeapAlloc: {
        const auto p = decode_heap_alloc(r, path_);
        add_heap_event(r, EventType::kHeapAlloc, p.heap, p.address, p.size, 0);
        break;
      }
      case etw_hook::kHeapRealloc: {
        const auto p = decode_heap_realloc(r, path_);
        add_heap_event(r, EventType::kHeapRealloc, p.heap, p.new_address, p.new_size, p.old_address);
        break;
      }
      case etw_hook::kHeapFree: {
        const auto p = decode_heap_free(r, path_);
        add_heap_event(r, EventType::kHeapFree, p.heap, p.address, 0, 0);
        break;
      }
      case etw_hook::kVirtualAlloc:
      case etw_hook::kVirtualFree:
        take_virtual(r);
        break;
      case etw_hook::kStackWalk: {
        ++info_.stack_walks;
        const auto s = decode_stack_walk(r, path_);
        if (TimedEvent* e = event_for_stack(r.processor, s.event_timestamp, s.thread)) {
          stacks_.attach_frames(e->stack, s.frames, r.pointer_size);
        } else if (may_wait_for_event(r, s.event_timestamp)) {
          PendingStack& pending = wait_for_event(s.event_timestamp, s.thread, r.processor);
          pending.frames.assign(s.frames.begin(), s.frames.end());
          pending.pointer_size = r.pointer_size;
        } else {
          ++info_.stack_walks_unattached;
        }
        break;
      }
      case etw_hook::kStackKeyKernel:
      case etw_hook::kStackKeyUser: {
        ++info_.stack_key_uses;
        const auto s = decode_stack_key(r, path_);
        const bool kernel = r.hook == etw_hook::kStackKeyKernel;
        if (TimedEvent* e = event_for_stack(r.processor, s.event_timestamp, s.thread)) {
          stacks_.attach_key(e->stack, kernel, s.key, s.event_timestamp);
        } else if (may_wait_for_event(r, s.event_timestamp)) {
          PendingStack& pending = wait_for_event(s.event_timestamp, s.thread, r.processor);
          pending.is_key = true;
          pending.kernel_key = kernel;
          pending.key = s.key;
        } else {
          ++info_.stack_walks_unattached;
        }
        break;
      }
      case etw_hook::kStackKeyDelete:
      case etw_hook::kStackKeyRundown: {
        const auto s = decode_stack_key_definition(r, path_);
        stacks_.define_key(s.key, s.frames, r.pointer_size, r.timestamp);
        break;
      }
      case etw_hook::kProcessStart:
      case etw_hook::kProcessEnd:
      case etw_hook::kProcessDcStart:
      case etw_hook::kProcessDcEnd:
      case etw_hook::kProcessDefunct:
        take_process(r);
        break;
      case etw_hook::kImageLoad:
      case etw_hook::kImageDcStart:
      case etw_hook::kImageUnload:
      case etw_hook::kImageDcEnd:
        take_image(r);
        break;
      case etw_hook::kLogfileHeader:
        break;
      default:
        ++info_.skipped["kernel events of other kinds"];
        break;
    }
  }

  void add_heap_event(const EtlRecord& r, EventType type, std::uint64_t heap, std::uint64_t address,
                      std::uint64_t size, std::uint64_t old_address) {
    ++info_.heap_events;
    TimedEvent e;
    e.timestamp = r.timestamp;
    e.process = r.process;
    e.thread = r.thread;
    e.heap = heap;
    e.address = address;
    e.size = size;
    e.old_address = old_address;
    e.type = type;
    e.pointer_size = r.pointer_size;
    push_stackable(r, e);
  }

  void take_virtual(const EtlRecord& r) {
    ++info_.virtual_events;
    const auto p = decode_virtual_alloc(r, path_);
    TimedEvent e;
    e.timestamp = r.timestamp;
    e.process = p.process;  // the target process; the header's may be unrelated (§3.5)
    e.thread = r.has_ids ? r.thread : 0;
    e.address = p.base;
    e.size = p.size;
    e.pointer_size = r.pointer_size;
    if (r.hook == etw_hook::kVirtualFree || (p.flags & (kMemDecommit | kMemRelease)) != 0) {
      e.type = EventType::kVirtualDecommit;
    } else if ((p.flags & kMemCommit) != 0) {
      e.type = EventType::kVirtualCommit;
      e.flags = p.flags;
    } else {
      e.type = EventType::kVirtualReserve;
    }
    push_stackable(r, e);
  }

  // Records arrive merged by time from every buffer (EtlFile), so a stack
  // walk comes after its event whichever processor's buffer holds either.
  // Events that can get a stack are remembered per thread (the last few) and
  // per processor (the last one): VirtualAlloc events may carry no thread.
  void push_stackable(const EtlRecord& r, const TimedEvent& e) {
    const auto index = static_cast<std::uint32_t>(events_.size());
    events_.push_back(e);
    if (r.has_ids) recent_events_of_thread_[r.thread].add(index, r.processor);
    if (last_event_of_processor_.size() <= r.processor) last_event_of_processor_.resize(r.processor + 1, kNoEvent);
    last_event_of_processor_[r.processor] = index;
    if (!pending_stacks_.empty()) attach_pending_stacks(r, index);
  }

  // The event a stack walk or key use of `thread` names by its timestamp
  // (etw-heap.md §3.3): the most recent event of that thread with exactly
  // that timestamp, one on the stack record's processor first; failing that,
  // the last event of that processor, if it has the timestamp and the thread
  // or no thread.
  TimedEvent* event_for_stack(std::uint32_t processor, std::int64_t event_timestamp, std::uint32_t thread) {
    if (auto found = recent_events_of_thread_.find(thread); found != recent_events_of_thread_.end()) {
      if (const std::uint32_t index = found->second.find(events_, event_timestamp, processor); index != kNoEvent) {
        return &events_[index];
      }
    }
    if (processor < last_event_of_processor_.size() && last_event_of_processor_[processor] != kNoEvent) {
      TimedEvent& e = events_[last_event_of_processor_[processor]];
      if (e.timestamp == event_timestamp && (e.thread == thread || e.thread == 0)) return &e;
    }
    return nullptr;
  }

  // A stack walk or key use waiting for its event.
  struct PendingStack {
    std::int64_t event_timestamp = 0;
    std::uint32_t thread = 0;
    std::uint32_t processor = 0;
    bool is_key = false;
    bool kernel_key = false;
    std::uint64_t key = 0;
    std::vector<std::uint64_t> frames;
    std::uint8_t pointer_size = 8;
  };

  // A stack read before its event: both have the same timestamp, and the
  // event's processor comes later in the merge's order of equal times. It
  // waits for an event of that time until the records move past it (at most
  // kMaxPendingStacks wait at once; a walk beyond them is unattached).
  void attach_pending_stacks(const EtlRecord& r, std::uint32_t index) {
    TimedEvent& e = events_[index];
    std::erase_if(pending_stacks_, [&](PendingStack& p) {
      if (p.event_timestamp != e.timestamp) return false;
      const bool same_thread = r.has_ids && p.thread == r.thread;
      const bool same_processor = p.processor == r.processor && (e.thread == p.thread || e.thread == 0);
      if (!same_thread && !same_processor) return false;
      if (p.is_key) {
        stacks_.attach_key(e.stack, p.kernel_key, p.key, p.event_timestamp);
      } else {
        stacks_.attach_frames(e.stack, p.frames, p.pointer_size);
      }
      return true;
    });
  }

  // Only a walk stamped with its event's own time can come before it (equal
  // times go by processor), and only a few share one tick: more than that is
  // no logger's output, and is not worth a slower read.
  bool may_wait_for_event(const EtlRecord& r, std::int64_t event_timestamp) const {
    return event_timestamp == r.timestamp && pending_stacks_.size() < kMaxPendingStacks;
  }

  PendingStack& wait_for_event(std::int64_t event_timestamp, std::uint32_t thread, std::uint32_t processor) {
    PendingStack& pending = pending_stacks_.emplace_back();
    pending.event_timestamp = event_timestamp;
    pending.thread = thread;
    pending.processor = processor;
    return pending;
  }

  // Stacks whose event time the records have passed found no event.
  void expire_pending_stacks(std::int64_t now) {
    info_.stack_walks_unattached += std::erase_if(
        pending_stacks_, [now](const PendingStack& p) { return p.event_timestamp < now; });
  }

  std::uint32_t keep_name(std::string name) {
    if (names_.size() >= std::numeric_limits<std::uint32_t>::max()) {
      throw Error(SourceLocation::of_file(path_), "more than 2^32-1 process and image names");
    }
    names_.push_back(std::move(name));
    return static_cast<std::uint32_t>(names_.size() - 1);
  }

  void take_process(const EtlRecord& r) {
    if (r.version < 2) {
      ++info_.skipped["process events of version 0-1"];
      return;
    }
    ProcessPayload p = decode_process(r, path_);
    process_names_.emplace(p.process, p.image_name);
    if (r.hook == etw_hook::kProcessEnd || r.hook == etw_hook::kProcessDcEnd || r.hook == etw_hook::kProcessDefunct) {
      return;  // names the process, but does not start it
    }
    TimedEvent e;
    e.timestamp = r.timestamp;
    e.process = p.process;
    e.name = keep_name(std::move(p.image_name));
    e.type = EventType::kProcessName;
    events_.push_back(e);
  }

  void take_image(const EtlRecord& r) {
    if (r.version < 2) {
      ++info_.skipped["image events of version 0-1"];
      return;
    }
    ImagePayload p = decode_image(r, path_);
    if (r.hook == etw_hook::kImageDcEnd) return;  // the end-of-trace rundown: still loaded
    TimedEvent e;
    e.timestamp = r.timestamp;
    e.process = p.process;
    e.address = p.base;
    e.size = p.size;
    e.pointer_size = r.pointer_size;
    if (r.hook == etw_hook::kImageUnload) {
      e.type = EventType::kImageUnload;
    } else {
      e.type = EventType::kImageLoad;
      e.name = keep_name(std::move(p.file_name));
    }
    events_.push_back(e);
  }

  // ---- between the passes ----

  void set_clock() {
    switch (header_.clock_type) {
      case 2: frequency_ = 10'000'000; break;  // system time: 100 ns units
      case 3: frequency_ = std::uint64_t{header_.cpu_speed_mhz} * 1'000'000; break;
      default: frequency_ = header_.perf_freq; break;
    }
    if (frequency_ == 0) {
      throw Error(SourceLocation{path_, {}, {}, 0},
                  fmt::format("logfile header: clock type {} with a frequency of 0 ticks a second; expected PerfFreq "
                              "(or CpuSpeedInMHz for clock type 3) above 0",
                              header_.clock_type));
    }
  }

  // Ticks after the logfile header as ns, clamped to [0, kNeverNs). The
  // difference of two int64 tick counts times 1e9 stays below 2^95, so
  // __int128 cannot overflow whatever the file holds.
  std::int64_t to_ns(std::int64_t timestamp) const {
    const __int128 ticks = static_cast<__int128>(timestamp) - header_.header_timestamp;
    if (ticks < 0) return 0;
    const __int128 ns = ticks * 1'000'000'000 / frequency_;
    return ns > kNeverNs - 1 ? kNeverNs - 1 : static_cast<std::int64_t>(ns);
  }

  void order_events() {
    // Already in time order, unless a processor's buffers were not.
    std::stable_sort(events_.begin(), events_.end(),
                     [](const TimedEvent& x, const TimedEvent& y) { return x.timestamp < y.timestamp; });
  }

  // A HeapRealloc that moves a block is logged with a HeapAlloc of the new
  // address and a HeapFree of the old one (etw-heap.md §3.2). The realloc
  // alone stands for both, so the block is counted once and marked realloc.
  void drop_realloc_companions() {
    for (std::size_t i = 0; i < events_.size(); ++i) {
      TimedEvent& realloc = events_[i];
      if (realloc.type != EventType::kHeapRealloc || realloc.address == realloc.old_address) continue;
      ++info_.moving_reallocs;
      bool alloc_found = false, free_found = false;
      const std::size_t first = i >= kCompanionWindow ? i - kCompanionWindow : 0;
      const std::size_t last = std::min(events_.size(), i + kCompanionWindow + 1);
      for (std::size_t j = first; j < last && !(alloc_found && free_found); ++j) {
        TimedEvent& other = events_[j];
        if (j == i || other.dropped || other.process != realloc.process || other.thread != realloc.thread ||
            other.heap != realloc.heap) {
          continue;
        }
        if (!alloc_found && other.type == EventType::kHeapAlloc && other.address == realloc.address && other.size == realloc.size) {
          alloc_found = other.dropped = true;
          if (realloc.stack.kernel == EtwStacks::kNone && realloc.stack.user == EtwStacks::kNone) {
            realloc.stack = other.stack;
          }
          ++info_.realloc_companions_dropped;
        } else if (!free_found && other.type == EventType::kHeapFree && other.address == realloc.old_address) {
          free_found = other.dropped = true;
          ++info_.realloc_companions_dropped;
        }
      }
    }
  }

  void plan_virtual_pieces() {
    VirtualCommits commits;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      const TimedEvent& e = events_[i];
      const auto position = static_cast<std::uint32_t>(i);
      switch (e.type) {
        case EventType::kVirtualReserve: commits.reserve(e.process, e.address, e.size); break;
        case EventType::kVirtualCommit:
          if ((e.flags & 0x2000) != 0) commits.reserve(e.process, e.address, e.size);  // MEM_RESERVE too
          commits.commit(e.process, e.address, e.size, position);
          break;
        case EventType::kVirtualDecommit: commits.decommit(e.process, e.address, e.size, position); break;
        default: break;
      }
    }
    pieces_ = commits.pieces();
    ended_pieces_.clear();
    for (std::uint32_t p = 0; p < pieces_.size(); ++p) {
      if (pieces_[p].end_event != VirtualCommits::kNotEnded) ended_pieces_.push_back(p);
    }
    std::stable_sort(ended_pieces_.begin(), ended_pieces_.end(), [this](std::uint32_t x, std::uint32_t y) {
      return pieces_[x].end_event != pieces_[y].end_event ? pieces_[x].end_event < pieces_[y].end_event
                                                          : pieces_[x].base < pieces_[y].base;
    });
    info_.recommitted_bytes = commits.recommitted_bytes();
    info_.decommits_of_uncommitted = commits.decommits_of_uncommitted();
  }

  // ---- pass 2: the events in time order, into blocks ----

  // Live heap blocks are indexed per (process, heap handle), so a HeapDestroy
  // costs the blocks of that heap, not every live block of the trace.
  struct HeapOwner {
    std::uint32_t process;
    std::uint64_t heap;
    friend bool operator==(const HeapOwner&, const HeapOwner&) = default;
  };
  struct HeapOwnerHash {
    std::size_t operator()(const HeapOwner& k) const noexcept { return FlatIndex::mix(FlatIndex::mix(k.heap) ^ k.process); }
  };
  // Each live block's address in a heap -> its matcher token. A freed
  // address leaves it for recently_freed_ (bounded, so memory grows with the
  // live blocks, not with every address a heap used).
  using LiveBlocks = std::unordered_map<std::uint64_t, std::uint64_t>;
  struct FreedAddress {
    HeapOwner heap;
    std::uint64_t address;
    friend bool operator==(const FreedAddress&, const FreedAddress&) = default;
  };
  struct FreedAddressHash {
    std::size_t operator()(const FreedAddress& k) const noexcept {
      return FlatIndex::mix(HeapOwnerHash{}(k.heap) ^ k.address);
    }
  };

  void sweep(BlockMatcher& matcher) {
    std::size_t next_piece = 0, next_end = 0;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      const TimedEvent& e = events_[i];
      if (e.dropped) continue;
      // Counted here, once per event (not in to_ns, which the end time also uses).
      if (e.timestamp < header_.header_timestamp) ++info_.events_before_start;
      matcher.set_time(to_ns(e.timestamp));
      switch (e.type) {
        case EventType::kProcessName:
          current_name_[e.process] = names_[e.name];
          process_ids_.erase(e.process);
          break;
        case EventType::kImageLoad: modules_->load(e.process, e.address, e.size, names_[e.name], e.pointer_size); break;
        case EventType::kImageUnload: modules_->unload(e.process, e.address, e.pointer_size); break;
        case EventType::kHeapCreate:
          heap_info(e.process, e.heap).created = true;
          heap_id(e.process, e.heap);
          break;
        case EventType::kHeapAlloc: alloc_heap_block(matcher, e, e.address, false); break;
        case EventType::kHeapRealloc:
          free_heap_block(matcher, e, e.old_address);
          alloc_heap_block(matcher, e, e.address, true);
          break;
        case EventType::kHeapFree: free_heap_block(matcher, e, e.address); break;
        case EventType::kHeapDestroy: destroy_heap(matcher, e); break;
        case EventType::kVirtualCommit:
          for (; next_piece < pieces_.size() && pieces_[next_piece].commit_event == i; ++next_piece) {
            const VirtualCommits::Piece& piece = pieces_[next_piece];
            const BucketId bucket = bucket_for(e, piece.size, BlockKind::kVirtual, kVirtualHeapHandle, false);
            matcher.alloc(bucket, kPieceTokenBit | next_piece, e.thread);
            count_stack(e);
          }
          break;
        case EventType::kVirtualDecommit:
          for (; next_end < ended_pieces_.size() && pieces_[ended_pieces_[next_end]].end_event == i; ++next_end) {
            matcher.free_address(kPieceTokenBit | ended_pieces_[next_end], e.thread);
          }
          break;
        case EventType::kVirtualReserve: break;
      }
    }
  }

  void alloc_heap_block(BlockMatcher& matcher, const TimedEvent& e, std::uint64_t address, bool is_realloc) {
    ++heap_info(e.process, e.heap).allocations;
    const BucketId bucket = bucket_for(e, e.size, BlockKind::kHeap, e.heap, is_realloc);
    auto [it, inserted] = live_heap_blocks_[HeapOwner{e.process, e.heap}].try_emplace(address, next_token_);
    if (inserted) ++next_token_;
    matcher.alloc(bucket, it->second, e.thread);  // over a live block: the matcher ends it (an anomaly)
    count_stack(e);
  }

  void free_heap_block(BlockMatcher& matcher, const TimedEvent& e, std::uint64_t address) {
    const HeapOwner owner{e.process, e.heap};
    if (auto heap = live_heap_blocks_.find(owner); heap != live_heap_blocks_.end()) {
      if (auto it = heap->second.find(address); it != heap->second.end()) {
        matcher.free_address(it->second, e.thread);
        heap->second.erase(it);
        // So that a second free of it is a double free, not a free of an
        // unknown address (semantics.md §1), within the bound.
        recently_freed_.add(FreedAddress{owner, address});
        return;
      }
    }
    if (recently_freed_.contains(FreedAddress{owner, address})) {
      ++matcher.anomalies().double_frees;
      return;
    }
    matcher.free_address(kNeverLiveToken, e.thread);  // counted as an unmatched free
  }

  // A destroyed heap takes every block still in it (in allocation order). Its
  // addresses count as freed: a HeapFree after the destroy frees a block
  // that is gone, a double free, not a free of an address never seen.
  void destroy_heap(BlockMatcher& matcher, const TimedEvent& e) {
    heap_info(e.process, e.heap).destroyed = true;
    const HeapOwner owner{e.process, e.heap};
    auto heap = live_heap_blocks_.find(owner);
    if (heap == live_heap_blocks_.end()) return;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks;  // token, address
    blocks.reserve(heap->second.size());
    for (const auto& [address, token] : heap->second) blocks.emplace_back(token, address);
    std::sort(blocks.begin(), blocks.end());
    for (const auto& [token, address] : blocks) {
      matcher.free_address(token, e.thread);
      recently_freed_.add(FreedAddress{owner, address});
    }
    live_heap_blocks_.erase(heap);
  }

  void count_stack(const TimedEvent& e) {
    if (e.stack.kernel == EtwStacks::kNone && e.stack.user == EtwStacks::kNone) {
      ++info_.events_without_stack;
    } else {
      ++info_.events_with_stack;
    }
  }

  EtwInfo::HeapHandle& heap_info(std::uint32_t process, std::uint64_t handle) {
    auto [it, inserted] = heap_handles_.try_emplace({process, handle});
    if (inserted) {
      it->second.pid = process;
      it->second.handle = handle;
    }
    return it->second;
  }

  ProcessId process_id(std::uint32_t pid) {
    if (auto found = process_ids_.find(pid); found != process_ids_.end()) return found->second;
    std::string_view name = "?";
    if (auto current = current_name_.find(pid); current != current_name_.end()) {
      name = current->second;
    } else if (auto any = process_names_.find(pid); any != process_names_.end()) {
      name = any->second;  // named only by a later event (or its end)
    }
    const ProcessId id = tables_.intern_process(pid, name);
    process_ids_[pid] = id;
    return id;
  }

  HeapId heap_id(std::uint32_t pid, std::uint64_t handle) {
    const ProcessId process = process_id(pid);
    auto [it, inserted] = heap_ids_.try_emplace({process.value, handle});
    if (inserted) {
      it->second = tables_.intern_heap(process, handle,
                                       handle == kVirtualHeapHandle ? "VirtualAlloc" : fmt::format("0x{:x}", handle));
    }
    return it->second;
  }

  BucketId bucket_for(const TimedEvent& e, std::uint64_t size, BlockKind kind, std::uint64_t heap, bool is_realloc) {
    Bucket bucket;
    bucket.size = size;
    bucket.stack = stack_of(e);
    bucket.heap = heap_id(e.process, heap);
    bucket.thread = e.thread;
    bucket.kind = kind;
    bucket.is_realloc = is_realloc;
    return tables_.intern_bucket(bucket);
  }

  struct StackCacheKey {
    std::uint64_t raw;
    std::uint64_t generation;
    std::uint32_t process;
    friend bool operator==(const StackCacheKey&, const StackCacheKey&) = default;
  };
  struct StackCacheKeyHash {
    std::size_t operator()(const StackCacheKey& k) const noexcept {
      return FlatIndex::mix(FlatIndex::mix(k.raw ^ k.process) ^ k.generation);
    }
  };

  // The event's stack as a stack-tree node; each raw stack is resolved once
  // per state of its process's module map.
  StackId stack_of(const TimedEvent& e) {
    if (e.stack.kernel == EtwStacks::kNone && e.stack.user == EtwStacks::kNone) return StackId();
    const StackCacheKey key{stacks_.identity(e.stack), modules_->generation(e.process), e.process};
    auto [it, inserted] = stack_cache_.try_emplace(key);
    if (!inserted) return it->second;
    stacks_.frames(e.stack, addresses_);
    frames_.clear();
    for (std::uint64_t address : addresses_) modules_->frames_of(e.process, address, e.pointer_size, frames_);
    StackId stack;
    for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame) stack = tables_.intern_stack(*frame, stack);
    it->second = stack;
    return stack;
  }

  // ---- what was read ----

  SourceInfo source_info(const EtlFile& file, const BlockMatcher& matcher) {
    const EtlContainerStats& stats = file.stats();
    info_.buffers = stats.buffers;
    info_.compressed_buffers = stats.compressed_buffers;
    info_.pointer_size = header_.pointer_size;
    info_.clock_type = header_.clock_type;
    info_.perf_freq = header_.perf_freq;
    info_.logfile_headers = stats.logfile_headers;
    info_.records_out_of_time_order = stats.records_out_of_time_order;
    info_.processors = header_.processors;
    const std::uint32_t v = header_.os_version;
    info_.os_version = fmt::format("{}.{}.{}", v & 0xFF, (v >> 8) & 0xFF, header_.provider_version);
    info_.events_by_header_kind = stats.records_by_header_kind;
    event_counts_.name_into(info_.events_by_hook);
    info_.stack_keys_unresolved = stacks_.unresolved_keys();

    std::set<std::pair<std::uint32_t, std::string>> processes(process_names_.begin(), process_names_.end());
    for (const auto& [pid, name] : processes) info_.processes.push_back({pid, name});

    std::map<std::string, EtwInfo::Module> modules;
    for (const EtwModules::Instance& m : modules_->instances()) {
      EtwInfo::Module& entry = modules[std::string(tables_.string(m.name))];
      entry.name = tables_.string(m.name);
      ++entry.loads;
      if (m.pdb >= 0 && entry.pdb.empty()) {
        const PdbIdentity& pdb = modules_->pdbs()[static_cast<std::size_t>(m.pdb)];
        entry.pdb = fmt::format("{} {}", pdb.pdb_name, symbol_store_key(pdb));
      }
    }
    for (auto& [name, module] : modules) info_.modules.push_back(std::move(module));
    for (auto& [key, heap] : heap_handles_) info_.heaps.push_back(heap);

    info_.frames_symbolized = modules_->frames_symbolized();
    info_.frames_unsymbolized_with_pdb = modules_->frames_with_pdb_unresolved();
    info_.frames_outside_modules = modules_->frames_without_module();
    if (symbols_) symbols_->fill_counts(info_);

    SourceInfo source;
    source.path = path_;
    source.files = {path_};
    source.source = "etw";
    source.format = "etl";
    source.compression = stats.compressed_buffers > 0 ? "xpress" : "none";
    source.block_identity = BlockIdentity::kExact;
    source.realloc_marked = true;
    source.threads = true;
    source.time_resolution_ns = std::max<std::int64_t>(1, static_cast<std::int64_t>(1'000'000'000 / frequency_));
    source.lines = stats.records;
    source.anomalies = matcher.anomalies();
    source.anomalies.decreasing_timestamps += stats.records_out_of_time_order;
    source.end_ns = to_ns(last_timestamp_);
    source.details = etw_details(info_);
    return source;
  }

  static constexpr std::uint32_t kNoEvent = 0xFFFFFFFFu;
  static constexpr std::size_t kMaxPendingStacks = 64;

  const std::string& path_;
  TraceTables& tables_;
  const EtwReadOptions& options_;
  EtlLogfileHeader header_;
  std::uint64_t frequency_ = 0;
  EtwInfo info_;
  EventCounts event_counts_;
  std::unique_ptr<EtwPdbLookup> symbols_;
  std::unique_ptr<EtwModules> modules_;
  EtwStacks stacks_;
  std::vector<TimedEvent> events_;
  std::vector<std::string> names_;
  // The logfile-header record is taken too, so this ends at or after its time.
  std::int64_t last_timestamp_ = std::numeric_limits<std::int64_t>::min();
  // A thread's last few stackable events, for the stack walks that follow.
  struct RecentEvents {
    static constexpr std::size_t kKept = 4;
    std::array<std::uint32_t, kKept> index{};
    std::array<std::uint32_t, kKept> processor{};
    std::size_t count = 0;  // ever added; the newest is at (count - 1) % kKept

    void add(std::uint32_t event, std::uint32_t on_processor) {
      index[count % kKept] = event;
      processor[count % kKept] = on_processor;
      ++count;
    }
    // The newest event at `timestamp`, one on `on_processor` first; kNoEvent if none.
    std::uint32_t find(const std::vector<TimedEvent>& events, std::int64_t timestamp, std::uint32_t on_processor) const {
      std::uint32_t any = kNoEvent;
      for (std::size_t back = 1; back <= std::min(count, kKept); ++back) {
        const std::size_t slot = (count - back) % kKept;
        if (events[index[slot]].timestamp != timestamp) continue;
        if (processor[slot] == on_processor) return index[slot];
        if (any == kNoEvent) any = index[slot];
      }
      return any;
    }
  };
  std::unordered_map<std::uint32_t, RecentEvents> recent_events_of_thread_;
  std::vector<PendingStack> pending_stacks_;
  std::vector<std::uint32_t> last_event_of_processor_;
  std::multimap<std::uint32_t, std::string> process_names_;  // every (pid, name) seen, in file order
  std::unordered_map<std::uint32_t, std::string> current_name_;
  std::unordered_map<std::uint32_t, ProcessId> process_ids_;
  std::map<std::pair<std::uint32_t, std::uint64_t>, HeapId> heap_ids_;
  std::map<std::pair<std::uint32_t, std::uint64_t>, EtwInfo::HeapHandle> heap_handles_;
  std::vector<VirtualCommits::Piece> pieces_;
  std::vector<std::uint32_t> ended_pieces_;
  std::unordered_map<HeapOwner, LiveBlocks, HeapOwnerHash> live_heap_blocks_;
  RecentlyFreed<FreedAddress, FreedAddressHash> recently_freed_{BlockMatcher::kFreesRemembered};
  std::uint64_t next_token_ = 0;
  std::unordered_map<StackCacheKey, StackId, StackCacheKeyHash> stack_cache_;
  std::vector<std::uint64_t> addresses_;
  std::vector<FrameId> frames_;
};

}  // namespace

SourceInfo read_etw(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                    const EtwReadOptions& options) {
  EtwTraceReader reader(path, tables, options);
  return reader.read(consumer);
}

}  // namespace heapql
