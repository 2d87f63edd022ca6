// SYNTHETIC ETW fixtures (see the header). Events are collected with their
// timestamps, sorted (stably, so a stack record stays right behind its event)
// and then written, so every processor's buffers are in time order while the
// file as a whole interleaves processors.
#include "tests/support/etw_scenarios.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace heapql::test {
namespace {

namespace off = memory_test_app_offsets;

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kSecond = 1'000'000'000;

// Events waiting to be written in timestamp order.
class Schedule {
 public:
  void at(std::int64_t ticks, std::function<void(EtlWriter&)> emit) {
    items_.push_back(Item{ticks, std::move(emit)});
  }
  void run(EtlWriter& writer) {
    std::stable_sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) { return a.ticks < b.ticks; });
    for (auto& item : items_) item.emit(writer);
    items_.clear();
  }

 private:
  struct Item {
    std::int64_t ticks;
    std::function<void(EtlWriter&)> emit;
  };
  std::vector<Item> items_;
};

struct Layout {
  std::uint64_t exe, exe_size, ntdll, ntdll_size, kernel32, kernel32_size, kernelbase, kernelbase_size, ucrtbase,
      ucrtbase_size, ntoskrnl, ntoskrnl_size;
  std::uint64_t steady_first, steady_second, temporary_base, temporary_stride;
  std::uint64_t inner_loop_key, grow_kernel_key, grow_user_key;
};

Layout layout_for(unsigned pointer_size) {
  if (pointer_size == 8)
    return Layout{0x7ff6'1000'0000, 0x20000, 0x7ffc'4a40'0000, 0x1f8000, 0x7ffc'49a0'0000, 0xbd000,
                  0x7ffc'47e0'0000, 0x2c8000, 0x7ffc'47b0'0000, 0x100000, 0xffff'f803'1a20'0000, 0x1046000,
                  0x1f0'0000'0000, 0x1f0'0100'0000, 0x1f1'0000'0000, 0x100'0000,
                  0xffff'c001'2340'0000, 0xffff'c001'2340'2000, 0x0000'0000'0042'1a40};
  return Layout{0x0040'0000, 0x20000, 0x77a0'0000, 0x1a0000, 0x76e0'0000, 0xf0000, 0x75c0'0000, 0x220000,
                0x75a0'0000, 0x120000, 0x8280'0000, 0x800000, 0x0200'0000, 0x0300'0000, 0x1000'0000, 0x100'0000,
                0x9340'0000, 0x9340'2000, 0x0042'1a40};
}

std::int64_t ns_of_ticks(const EtlWriter& writer, std::int64_t ticks) {
  const auto tps = static_cast<long double>(writer.ticks_per_second());
  return static_cast<std::int64_t>(static_cast<long double>(ticks - writer.options().header_timestamp) * 1e9L / tps);
}

}  // namespace

std::uint64_t ScenarioCounts::total() const {
  return process_start + thread_start + image_load + image_dcstart + image_id_rsds + heap_create + heap_alloc +
         heap_realloc + heap_free + heap_destroy + virtual_alloc + virtual_free + stack_walk + stack_key_kernel +
         stack_key_user + key_rundown + key_delete;
}

const ScenarioModule& MemoryTestAppTrace::module(const std::string& name) const {
  for (const auto& m : modules)
    if (m.name == name) return m;
  throw std::invalid_argument(fmt::format("no module {} in the MemoryTestApp scenario", name));
}

MemoryTestAppTrace memory_test_app(EtlWriter& writer, const MemoryTestAppOptions& options) {
  MemoryTestAppTrace trace;
  const Layout at = layout_for(writer.pointer_size());
  const std::uint32_t pid = trace.pid;
  trace.main_tid = 4300;
  trace.work_tid = 4301;
  trace.loop_tid = 4302;
  trace.heap = 0x1a0000;
  trace.inner_loop_user_key = at.inner_loop_key;
  trace.grow_kernel_key = at.grow_kernel_key;
  trace.grow_user_key = at.grow_user_key;
  ScenarioCounts& counts = trace.counts;
  Schedule schedule;
  auto ticks = [&](std::int64_t ns) { return writer.ticks_at_ns(ns); };

  // --- modules, loaded before any use --------------------------------------
  const std::u16string system32 = u"\\Device\\HarddiskVolume3\\Windows\\System32\\";
  trace.modules = {
      {"MemoryTestApp.exe", u"\\Device\\HarddiskVolume3\\Tests\\MemoryTestApp.exe", at.exe, at.exe_size, pid, 2 * kMs},
      {"ntdll.dll", system32 + u"ntdll.dll", at.ntdll, at.ntdll_size, pid, 2 * kMs + 100'000},
      {"kernel32.dll", system32 + u"kernel32.dll", at.kernel32, at.kernel32_size, pid, 2 * kMs + 200'000},
      {"kernelbase.dll", system32 + u"kernelbase.dll", at.kernelbase, at.kernelbase_size, pid, 2 * kMs + 300'000},
      {"ucrtbase.dll", system32 + u"ucrtbase.dll", at.ucrtbase, at.ucrtbase_size, pid, 2 * kMs + 400'000},
      {"ntoskrnl.exe", u"\\SystemRoot\\system32\\ntoskrnl.exe", at.ntoskrnl, at.ntoskrnl_size, 0, kMs / 2},
  };
  const auto exe = [&](std::uint64_t offset) { return at.exe + offset; };
  const auto ntdll = [&](std::uint64_t offset) { return at.ntdll + offset; };
  const auto kernel32 = [&](std::uint64_t offset) { return at.kernel32 + offset; };
  const auto kernelbase = [&](std::uint64_t offset) { return at.kernelbase + offset; };
  const auto ucrtbase = [&](std::uint64_t offset) { return at.ucrtbase + offset; };
  const auto ntoskrnl = [&](std::uint64_t offset) { return at.ntoskrnl + offset; };

  for (const auto& m : trace.modules) {
    ImageInfo image{m.base, m.size, m.pid, 0x1f2e3d, 0x5f000000, 0, m.path};
    if (m.pid == 0) {
      const std::int64_t t = ticks(m.load_ns);
      schedule.at(t, [image, t](EtlWriter& w) { w.image_dcstart(0, t, image); });
      ++counts.image_dcstart;
    } else {
      const std::int64_t t = ticks(m.load_ns);
      schedule.at(t, [image, t](EtlWriter& w) { w.image_load(0, t, image); });
      ++counts.image_load;
    }
  }
  if (options.exe_pdb) {
    const RsdsIdentity pdb = *options.exe_pdb;
    const std::int64_t t = ticks(trace.modules[0].load_ns);
    const std::uint64_t exe_base = at.exe;
    schedule.at(t, [exe_base, pid, pdb, t](EtlWriter& w) {
      w.image_id_rsds(0, t, exe_base, pid, pdb.pdb_guid, pdb.age, pdb.pdb_name);
    });
    ++counts.image_id_rsds;
  }

  // --- process and threads --------------------------------------------------
  {
    ProcessInfo process;
    process.pid = pid;
    process.parent_pid = 1000;
    process.image_file_name = trace.process_name;
    process.command_line = u"\"C:\\Tests\\MemoryTestApp.exe\" --steady 10MiB";
    const std::int64_t t = ticks(kMs);
    schedule.at(t, [process, t](EtlWriter& w) { w.process_start(0, t, process); });
    ++counts.process_start;
    const std::uint64_t start_addresses[] = {exe(off::kScrtCommonMain), exe(off::kWorkerThreadProc),
                                             exe(off::kWorkerThreadProc)};
    const std::uint32_t tids[] = {trace.main_tid, trace.work_tid, trace.loop_tid};
    for (int i = 0; i < 3; ++i) {
      ThreadInfo thread{pid, tids[i], 0, 0, 0, 0, 0xFF, start_addresses[i], 0};
      const std::int64_t tt = ticks(3 * kMs + i * kMs);
      const auto processor = static_cast<std::uint32_t>(i == 2 ? 1 : 0);
      schedule.at(tt, [thread, tt, processor](EtlWriter& w) { w.thread_start(processor, tt, thread); });
      ++counts.thread_start;
    }
  }

  // Stacks, innermost first, ending in the thread start of the given thread.
  const std::vector<std::uint64_t> main_bottom = {exe(off::kMain), exe(off::kScrtCommonMain),
                                                  kernel32(off::kBaseThreadInitThunk), ntdll(off::kRtlUserThreadStart)};
  const std::vector<std::uint64_t> worker_bottom = {exe(off::kWorkerThreadProc), kernel32(off::kBaseThreadInitThunk),
                                                    ntdll(off::kRtlUserThreadStart)};
  auto stack = [](std::vector<std::uint64_t> top, const std::vector<std::uint64_t>& bottom) {
    top.insert(top.end(), bottom.begin(), bottom.end());
    return top;
  };
  auto malloc_stack = [&](std::uint64_t function_offset) {
    return stack({ntdll(off::kRtlpAllocateHeapInternal), ntdll(off::kRtlAllocateHeap), ucrtbase(off::kMallocBase),
                  exe(function_offset)},
                 worker_bottom);
  };
  auto virtual_alloc_stack = [&](std::uint64_t function_offset) {
    return stack({ntdll(off::kNtAllocateVirtualMemory), kernelbase(off::kVirtualAlloc), exe(function_offset)},
                 main_bottom);
  };
  const std::vector<std::uint64_t> kernel_fragment = {ntoskrnl(off::kMiAllocateVirtualMemory),
                                                      ntoskrnl(off::kNtAllocateVirtualMemoryKernel),
                                                      ntoskrnl(off::kKiSystemServiceCopyEnd)};

  // --- the heap -------------------------------------------------------------
  trace.heap_create_ns = 100 * kMs;
  {
    const std::int64_t t = ticks(trace.heap_create_ns);
    const std::uint32_t tid = trace.main_tid;
    const std::uint64_t heap = trace.heap;
    schedule.at(t, [=](EtlWriter& w) { w.heap_create(0, tid, pid, t, heap); });
    ++counts.heap_create;
  }

  auto heap_alloc = [&](ScenarioHeapBlock block, std::int64_t t, std::vector<std::uint64_t> frames) {
    const std::uint64_t heap = trace.heap;
    const bool via_key = block.stack_via_key;
    const std::uint64_t key = at.inner_loop_key;
    schedule.at(t, [=](EtlWriter& w) {
      w.heap_alloc(block.processor, block.tid, pid, t, heap, block.size, block.address);
      if (via_key)
        w.stack_key_user(block.processor, t, pid, block.tid, key);
      else
        w.stack_walk(block.processor, t, pid, block.tid, frames);
    });
    ++counts.heap_alloc;
    ++(via_key ? counts.stack_key_user : counts.stack_walk);
    trace.heap_blocks.push_back(std::move(block));
  };
  auto heap_free = [&](std::uint32_t processor, std::uint32_t tid, std::int64_t t, std::uint64_t address) {
    const std::uint64_t heap = trace.heap;
    schedule.at(t, [=](EtlWriter& w) { w.heap_free(processor, tid, pid, t, heap, address); });
    ++counts.heap_free;
  };

  // InnerLoopOperation: 40 bytes every 100 ms from 0.2 s, never freed; one
  // cached user stack (StackKeyUser), defined by a KeyRundown at the end.
  for (int k = 0; 200 * kMs + k * 100 * kMs < 20 * kSecond; ++k) {
    ScenarioHeapBlock block;
    block.alloc_ns = 200 * kMs + k * 100 * kMs;
    block.address = 0x1a1000 + static_cast<std::uint64_t>(k) * 0x40;
    block.size = block.final_size = 40;
    block.tid = trace.loop_tid;
    block.processor = 1;
    block.function = "InnerLoopOperation";
    block.function_offset = off::kInnerLoopOperation;
    block.stack_via_key = true;
    heap_alloc(block, ticks(block.alloc_ns), {});
  }

  // DoWork: balanced alloc/free pairs of assorted sizes, addresses reused
  // every four iterations; the thread hops between the two processors.
  const std::uint64_t do_work_sizes[] = {16, 64, 256, 1024, 4096, 32, 128};
  for (int i = 0; 335 * kMs + i * 500 * kMs + 200 * kMs < 20 * kSecond; ++i) {
    ScenarioHeapBlock block;
    block.alloc_ns = 335 * kMs + i * 500 * kMs;
    block.address = 0x1b0000 + static_cast<std::uint64_t>(i % 4) * 0x2000;
    block.size = block.final_size = do_work_sizes[i % 7];
    block.tid = trace.work_tid;
    block.processor = static_cast<std::uint32_t>(i % 2);
    block.function = "DoWork";
    block.function_offset = off::kDoWork;
    block.free_ns = block.alloc_ns + 200 * kMs;
    heap_free(static_cast<std::uint32_t>((i + 1) % 2), block.tid, ticks(*block.free_ns), block.address);
    heap_alloc(block, ticks(block.alloc_ns), malloc_stack(off::kDoWork));
  }

  // ResizeBuffer: alloc 100, a moving realloc to 300 (HeapRealloc, then the
  // HeapAlloc and HeapFree ntdll also logs, one tick apart - the order is our
  // choice, etw-heap.md §3.2 leaves it open), an in-place shrink to 250, free.
  const auto realloc_stack = stack({ntdll(off::kRtlReAllocateHeap), ucrtbase(off::kReallocBase), exe(off::kResizeBuffer)},
                                   worker_bottom);
  const auto realloc_alloc_stack =
      stack({ntdll(off::kRtlpAllocateHeapInternal), ntdll(off::kRtlReAllocateHeap), ucrtbase(off::kReallocBase),
             exe(off::kResizeBuffer)},
            worker_bottom);
  for (int k = 0; k < 3; ++k) {
    const std::int64_t t0 = 4050 * kMs + k * 4 * kSecond;
    const auto processor = static_cast<std::uint32_t>(k % 2);
    const std::uint32_t tid = trace.work_tid;
    const std::uint64_t heap = trace.heap;
    const std::uint64_t old_address = 0x1c0000 + static_cast<std::uint64_t>(k) * 0x10000;
    const std::uint64_t new_address = old_address + 0x1000;

    ScenarioHeapBlock first;
    first.alloc_ns = t0;
    first.address = old_address;
    first.size = first.final_size = 100;
    first.tid = tid;
    first.processor = processor;
    first.function = "ResizeBuffer";
    first.function_offset = off::kResizeBuffer;
    const std::int64_t move_ticks = ticks(t0 + 10 * kMs);
    first.free_ns = ns_of_ticks(writer, move_ticks + 2);
    heap_alloc(first, ticks(t0), malloc_stack(off::kResizeBuffer));

    schedule.at(move_ticks, [=](EtlWriter& w) {
      w.heap_realloc(processor, tid, pid, move_ticks, heap, new_address, old_address, 300, 100);
      w.stack_walk(processor, move_ticks, pid, tid, realloc_stack);
    });
    ++counts.heap_realloc;
    ++counts.stack_walk;
    trace.reallocs.push_back(ScenarioRealloc{ns_of_ticks(writer, move_ticks), old_address, new_address, 100, 300, true});

    ScenarioHeapBlock moved = first;
    moved.alloc_ns = ns_of_ticks(writer, move_ticks + 1);
    moved.address = new_address;
    moved.size = 300;
    moved.final_size = 250;
    moved.from_moving_realloc = true;
    moved.free_ns = t0 + 500 * kMs;
    heap_alloc(moved, move_ticks + 1, realloc_alloc_stack);
    heap_free(processor, tid, move_ticks + 2, old_address);

    const std::int64_t shrink_ticks = ticks(t0 + 20 * kMs);
    schedule.at(shrink_ticks, [=](EtlWriter& w) {
      w.heap_realloc(processor, tid, pid, shrink_ticks, heap, new_address, new_address, 250, 300);
      w.stack_walk(processor, shrink_ticks, pid, tid, realloc_stack);
    });
    ++counts.heap_realloc;
    ++counts.stack_walk;
    trace.reallocs.push_back(
        ScenarioRealloc{ns_of_ticks(writer, shrink_ticks), new_address, new_address, 300, 250, false});
    heap_free(processor, tid, ticks(t0 + 500 * kMs), new_address);
  }

  // --- VirtualAlloc commits (main thread, processor 0) ---------------------
  constexpr std::uint64_t kTenMiB = 10 * 1024 * 1024;
  constexpr std::uint32_t kCommitReserve = kMemCommit | kMemReserve;
  const std::uint32_t main_tid = trace.main_tid;
  // AllocateSteadyState: SYSTEM header, kernel + user split stack.
  {
    ScenarioCommit commit{500 * kMs, at.steady_first, kTenMiB, "AllocateSteadyState", off::kAllocateSteadyState,
                          std::nullopt, false, true, false};
    const std::int64_t t = ticks(commit.commit_ns);
    const auto user = virtual_alloc_stack(off::kAllocateSteadyState);
    schedule.at(t, [=](EtlWriter& w) {
      w.virtual_alloc(0, main_tid, pid, t, commit.base, commit.size, pid, kCommitReserve);
      w.stack_walk(0, t, pid, main_tid, kernel_fragment);
      w.stack_walk(0, t, pid, main_tid, user);
    });
    ++counts.virtual_alloc;
    counts.stack_walk += 2;
    trace.commits.push_back(commit);
  }
  // GrowSteadyState: SYSTEM header, cached kernel and user stacks.
  {
    ScenarioCommit commit{10 * kSecond, at.steady_second, kTenMiB, "GrowSteadyState", off::kGrowSteadyState,
                          std::nullopt, false, true, true};
    const std::int64_t t = ticks(commit.commit_ns);
    const std::uint64_t kernel_key = at.grow_kernel_key, user_key = at.grow_user_key;
    schedule.at(t, [=](EtlWriter& w) {
      w.virtual_alloc(0, main_tid, pid, t, commit.base, commit.size, pid, kCommitReserve);
      w.stack_key_kernel(0, t, pid, main_tid, kernel_key);
      w.stack_key_user(0, t, pid, main_tid, user_key);
    });
    ++counts.virtual_alloc;
    ++counts.stack_key_kernel;
    ++counts.stack_key_user;
    trace.commits.push_back(commit);
  }
  // ManipulateTemporaryBuffer: PERFINFO headers (no tid/pid: the payload's
  // ProcessId and the stack's thread are all there is), user-only stack,
  // decommitted 100 ms later.
  for (int i = 0; i < 10; ++i) {
    ScenarioCommit commit{(1 + 2 * i) * kSecond, at.temporary_base + static_cast<std::uint64_t>(i) * at.temporary_stride,
                          kTenMiB, "ManipulateTemporaryBuffer", off::kManipulateTemporaryBuffer,
                          (1 + 2 * i) * kSecond + 100 * kMs, true, false, false};
    const std::int64_t t = ticks(commit.commit_ns);
    const std::int64_t t_free = ticks(*commit.decommit_ns);
    const auto user = virtual_alloc_stack(off::kManipulateTemporaryBuffer);
    schedule.at(t, [=](EtlWriter& w) {
      w.virtual_alloc(0, 0, 0, t, commit.base, commit.size, pid, kCommitReserve, ClassicHeader::kPerfinfo);
      w.stack_walk(0, t, pid, main_tid, user);
    });
    schedule.at(t_free, [=](EtlWriter& w) {
      w.virtual_free(0, 0, 0, t_free, commit.base, commit.size, pid, kMemDecommit, ClassicHeader::kPerfinfo);
    });
    ++counts.virtual_alloc;
    ++counts.virtual_free;
    ++counts.stack_walk;
    trace.commits.push_back(commit);
  }

  // --- end of trace: stack-key rundown -------------------------------------
  trace.duration_ns = 20 * kSecond;
  {
    const std::int64_t t = ticks(trace.duration_ns);
    const auto inner = malloc_stack(off::kInnerLoopOperation);
    const auto grow_user = virtual_alloc_stack(off::kGrowSteadyState);
    const std::uint64_t inner_key = at.inner_loop_key, kernel_key = at.grow_kernel_key, user_key = at.grow_user_key;
    schedule.at(t, [=](EtlWriter& w) {
      w.key_rundown(1, t, inner_key, inner);
      w.key_rundown(0, t, kernel_key, kernel_fragment);
      w.key_rundown(0, t, user_key, grow_user);
    });
    counts.key_rundown += 3;
  }

  schedule.run(writer);
  std::sort(trace.heap_blocks.begin(), trace.heap_blocks.end(),
            [](const ScenarioHeapBlock& a, const ScenarioHeapBlock& b) { return a.alloc_ns < b.alloc_ns; });
  std::sort(trace.commits.begin(), trace.commits.end(),
            [](const ScenarioCommit& a, const ScenarioCommit& b) { return a.commit_ns < b.commit_ns; });
  return trace;
}

MemoryTestAppTrace write_memory_test_app(const std::string& path, const EtlWriterOptions& writer_options,
                                         const MemoryTestAppOptions& options) {
  EtlWriter writer(writer_options);
  MemoryTestAppTrace trace = memory_test_app(writer, options);
  writer.write(path);
  return trace;
}

std::vector<std::uint8_t> empty_trace(const EtlWriterOptions& writer_options) {
  EtlWriter writer(writer_options);
  return writer.bytes();
}

SingleAllocTrace single_alloc_free(EtlWriter& writer) {
  SingleAllocTrace trace;
  const std::uint64_t base = writer.pointer_size() == 8 ? 0x7ff7'0000'0000 : 0x0040'0000;
  trace.image = ScenarioModule{"single.exe", u"\\Device\\HarddiskVolume3\\Tests\\single.exe", base, 0x10000,
                               trace.pid, kMs / 2};
  ProcessInfo process;
  process.pid = trace.pid;
  process.parent_pid = 4;
  process.image_file_name = "single.exe";
  process.command_line = u"single.exe";
  writer.process_start(0, writer.ticks_at_ns(kMs / 4), process);
  writer.image_load(0, writer.ticks_at_ns(trace.image.load_ns),
                    ImageInfo{base, trace.image.size, trace.pid, 0, 0x5f000000, 0, trace.image.path});
  const std::int64_t t_alloc = writer.ticks_at_ns(trace.alloc_ns);
  writer.heap_alloc(0, trace.tid, trace.pid, t_alloc, trace.heap, trace.size, trace.address);
  const std::uint64_t frames[] = {base + trace.frame_offset};
  writer.stack_walk(0, t_alloc, trace.pid, trace.tid, frames);
  writer.heap_free(0, trace.tid, trace.pid, writer.ticks_at_ns(trace.free_ns), trace.heap, trace.address);
  trace.counts.process_start = 1;
  trace.counts.image_load = 1;
  trace.counts.heap_alloc = 1;
  trace.counts.stack_walk = 1;
  trace.counts.heap_free = 1;
  return trace;
}

MigratingThreadTrace migrating_thread(EtlWriter& writer) {
  MigratingThreadTrace trace;
  ProcessInfo process;
  process.pid = trace.pid;
  process.image_file_name = "app.exe";
  writer.process_start(0, writer.ticks_at_ns(0), process);
  writer.image_load(0, writer.ticks_at_ns(0), ImageInfo{trace.image_base, 0x10000, trace.pid, 0, 0, 0, u"\\app.exe"});
  for (std::size_t i = 0; i < trace.blocks; ++i) {
    const std::int64_t t = writer.ticks_at_ns(static_cast<std::int64_t>(1 + i) * kMs);
    const auto event_processor = static_cast<std::uint32_t>(i % 2);
    const auto walk_processor = static_cast<std::uint32_t>((i / 2) % 2);
    if (walk_processor != event_processor) ++trace.walks_on_another_processor;
    const std::uint64_t address = 0x1000 + 0x100 * i;
    writer.heap_alloc(event_processor, trace.tid, trace.pid, t, trace.heap, 16 + i, address);
    const std::uint64_t frames[] = {trace.image_base + 0x10 * (i % 7), trace.image_base + 0x800};
    if (i % 3 == 0) {
      // A walk stamped later than its event (EtlWriter::stack_walk stamps it
      // with the event's time): written as the PERFINFO record it is.
      std::vector<std::uint8_t> payload;
      auto put = [&](std::uint64_t value, int bytes) {
        for (int b = 0; b < bytes; ++b) payload.push_back(static_cast<std::uint8_t>(value >> (8 * b)));
      };
      put(static_cast<std::uint64_t>(t), 8);
      put(trace.pid, 4);
      put(trace.tid, 4);
      for (std::uint64_t frame : frames) put(frame, static_cast<int>(writer.pointer_size()));
      writer.perfinfo(walk_processor, hook::kStackWalk, 2, t + 2, payload);
    } else {
      writer.stack_walk(walk_processor, t, trace.pid, trace.tid, frames);
    }
    if (i % 4 == 1) writer.heap_free(walk_processor, trace.tid, trace.pid, t + 5, trace.heap, address);
  }
  return trace;
}

}  // namespace heapql::test
