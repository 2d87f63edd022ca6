// Cull list files and the built-in default cull list.
#include "engine/query/cull_list.h"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "engine/error.h"
#include "engine/query/pattern_file_lines.h"
#include "engine/text_file.h"

namespace heapql {
namespace {

// The built-in default list (semantics.md §6): the standard allocator entry
// points of each platform and the tracer's own frames. Culling only ever
// removes a run of matching frames from the top of a stack, so an entry can
// be generous about internals as long as no application code matches it.
// Plain C and CRT names are module-less because they exist only as allocator
// entry points and often live outside the shared CRT (a /MT build, MSVC's
// operator new, which is linked into each module); names that could be
// generic elsewhere keep their module.
// Keep docs/default-cull-list.md equal to this table (a unit test checks it).
constexpr std::array kDefaultCullEntries = {
    // Windows heap manager (ntdll.dll).
    DefaultCullEntry{"ntdll.dll!RtlAllocateHeap", "HeapAlloc's implementation; every heap allocation passes through it"},
    DefaultCullEntry{"ntdll.dll!RtlReAllocateHeap", "HeapReAlloc's implementation"},
    DefaultCullEntry{"ntdll.dll!Rtlp*Heap*",
                     "NT heap internals below those (RtlpAllocateHeapInternal, RtlpLowFragHeapAllocFromContext, "
                     "RtlpLogHeapAllocateEvent)"},
    DefaultCullEntry{"ntdll.dll!RtlpHp*", "segment heap internals (RtlpHpAllocWithExceptionProtection, ...)"},
    DefaultCullEntry{"ntdll.dll!RtlpAllocateUserBlock*", "the low-fragmentation heap refilling its blocks"},
    DefaultCullEntry{"ntdll.dll!Etw*", "the heap provider writing its event, where the stack walk starts there"},
    DefaultCullEntry{"ntdll.dll!NtTraceEvent", "the system call that writes the event"},
    DefaultCullEntry{"ntdll.dll!ZwTraceEvent", "the same stub under its other name"},
    DefaultCullEntry{"ntoskrnl.exe!", "kernel frames on top of a stack walked from inside a system call"},
    // Windows VirtualAlloc (the `virtual` kind).
    DefaultCullEntry{"ntdll.dll!NtAllocateVirtualMemory*", "VirtualAlloc's system call stubs (and the Ex form)"},
    DefaultCullEntry{"ntdll.dll!ZwAllocateVirtualMemory*", "the same stubs under their other names"},
    DefaultCullEntry{"kernelbase.dll!VirtualAlloc*", "VirtualAlloc, VirtualAllocEx, VirtualAllocExNuma, VirtualAlloc2"},
    DefaultCullEntry{"kernel32.dll!VirtualAlloc*", "kernel32's forwarders to kernelbase"},
    // C runtime allocation functions, any module (msvcrt.dll, ucrtbase.dll,
    // ucrtbased.dll, static CRTs, glibc's libc.so.6).
    DefaultCullEntry{"malloc", "C allocation entry point"},
    DefaultCullEntry{"calloc", "C allocation entry point"},
    DefaultCullEntry{"realloc", "C reallocation entry point"},
    DefaultCullEntry{"_malloc_base", "ucrtbase's body of malloc"},
    DefaultCullEntry{"_calloc_base", "ucrtbase's body of calloc"},
    DefaultCullEntry{"_realloc_base", "ucrtbase's body of realloc"},
    DefaultCullEntry{"_recalloc*", "_recalloc, _recalloc_base, _recalloc_dbg"},
    DefaultCullEntry{"_aligned_*alloc*", "_aligned_malloc, _aligned_realloc, _aligned_offset_malloc and their _dbg forms"},
    DefaultCullEntry{"_malloc_dbg", "debug CRT (ucrtbased.dll) malloc"},
    DefaultCullEntry{"_calloc_dbg", "debug CRT calloc"},
    DefaultCullEntry{"_realloc_dbg", "debug CRT realloc"},
    DefaultCullEntry{"ucrtbased.dll!heap_alloc_dbg*", "debug CRT internals; module-qualified as the names are generic"},
    DefaultCullEntry{"ucrtbased.dll!realloc_dbg*", "debug CRT internals (realloc_dbg_nolock)"},
    // C++ operator new. MSVC symbols carry no parameter list; Itanium-ABI
    // (GCC, Clang) ones do: (unsigned long), the aligned form with
    // std::align_val_t and the nothrow form with std::nothrow_t const&.
    DefaultCullEntry{"operator new", "MSVC scalar new (linked into each module)"},
    DefaultCullEntry{"operator new[]", "MSVC array new"},
    DefaultCullEntry{"operator new(*", "GCC/Clang scalar new, plain, aligned and nothrow (libstdc++.so.6, libc++.so.1)"},
    DefaultCullEntry{"operator new[](*", "GCC/Clang array new, plain, aligned and nothrow"},
    // Linux C library (libc.so.6), module-less for other C libraries too.
    DefaultCullEntry{"reallocarray", "overflow-checked realloc"},
    DefaultCullEntry{"aligned_alloc", "C11 aligned allocation"},
    DefaultCullEntry{"posix_memalign", "POSIX aligned allocation"},
    DefaultCullEntry{"valloc", "page-aligned allocation"},
    DefaultCullEntry{"memalign", "obsolete aligned allocation"},
    DefaultCullEntry{"pvalloc", "obsolete page-aligned allocation"},
    DefaultCullEntry{"free", "allocator code, never the caller of interest (a stack topped by it is attributed to its caller)"},
    DefaultCullEntry{"__libc_malloc", "glibc's alias of malloc; a symbolizer may print either name"},
    DefaultCullEntry{"__libc_calloc", "glibc's alias of calloc"},
    DefaultCullEntry{"__libc_realloc", "glibc's alias of realloc"},
    DefaultCullEntry{"__libc_memalign", "glibc's alias of memalign"},
    // The tracer's own frames (heaptrack).
    DefaultCullEntry{"libheaptrack_preload.so!", "heaptrack's interposed allocator (heaptrack PROGRAM)"},
    DefaultCullEntry{"libheaptrack_inject.so!", "heaptrack's injected allocator hooks (heaptrack --pid)"},
};

}  // namespace

FramePatternSet parse_cull_list(std::string_view text, const std::string& name_for_errors) {
  FramePatternSet result;
  for_each_pattern_line(text, [&](std::string_view line, std::uint64_t line_number) {
    try {
      result.add(FramePattern::parse(line));
    } catch (const Error& e) {
      SourceLocation where;
      where.file = name_for_errors;
      where.line = line_number;
      throw Error(std::move(where), e.message());
    }
  });
  return result;
}

FramePatternSet read_cull_list(const std::string& path) {
  return parse_cull_list(read_text_file(path, "cull list"), path);
}

std::span<const DefaultCullEntry> default_cull_entries() { return kDefaultCullEntries; }

const std::vector<std::string>& default_cull_pattern_texts() {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> result;
    for (const DefaultCullEntry& entry : kDefaultCullEntries) result.emplace_back(entry.pattern);
    return result;
  }();
  return texts;
}

std::uint64_t default_cull_fingerprint() {
  // Raised whenever frame matching or culling changes meaning (frame_matches,
  // StackPlan::culled), so that views made by an older heapql are not used.
  constexpr std::uint64_t kMatchingRevision = 1;
  static const std::uint64_t fingerprint = [] {
    std::uint64_t h = 0xcbf29ce484222325ull ^ kMatchingRevision;  // FNV-1a, 64 bits
    for (const DefaultCullEntry& entry : kDefaultCullEntries) {
      for (const char c : entry.pattern) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
      h = (h ^ '\n') * 0x100000001b3ull;
    }
    return h | 1;
  }();
  return fingerprint;
}

const FramePatternSet& default_cull_patterns() {
  static const FramePatternSet patterns = [] {
    FramePatternSet result;
    for (const DefaultCullEntry& entry : kDefaultCullEntries) result.add(FramePattern::parse(entry.pattern));
    return result;
  }();
  return patterns;
}

}  // namespace heapql
