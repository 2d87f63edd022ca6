// memory_test_app — the bundled example program of heapql.
//
// A small, single-threaded, deterministic program that plants a known set of
// heap patterns, in the spirit of the "MemoryTestApp" of the Windows memory
// footprint exercises (WPA "Heap Allocations" lab), but for Linux and plain
// standard C++20. It is meant to be recorded with heaptrack; the exact ground
// truth (sizes, counts, times) is in examples/README.md.
//
// Every planted function is a free, non-inlined, non-cloned function with no
// parameters, so its frame shows in every allocation stack under its plain
// name (heaptrack_print prints e.g. "InnerLoopOperation()"). Pointers escape
// into globals or a volatile sink so the compiler cannot elide any new/delete
// or malloc/free pair.

#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__clang__)
#define MTA_FRAME __attribute__((noinline))
#else
#define MTA_FRAME __attribute__((noinline, noclone))
#endif

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// ---- ground truth constants (mirrored in README.md) -----------------------

constexpr std::size_t kSteadyBlocks = 10;
constexpr std::size_t kSteadyBlockBytes = 1'048'576;  // 1 MiB
constexpr std::size_t kGrowBlocks = 10;
constexpr std::size_t kGrowBlockBytes = 1'048'576;  // 1 MiB
constexpr std::size_t kTempBufferBytes = 10'000'000;  // 10 MB (decimal)
constexpr milliseconds kTempBufferHold{100};
constexpr int kIterations = 10;
constexpr int kGrowIteration = 5;  // GrowSteadyState runs at the start of it
constexpr milliseconds kWarmup{100};  // before the first iteration
constexpr milliseconds kIterationPeriod{250};
constexpr std::size_t kLeaksPerIteration = 2'000;  // times --scale
constexpr std::size_t kReallocStart = 16;
constexpr std::size_t kReallocEnd = 65'536;  // 64 KiB
constexpr std::size_t kRequests = 8;
constexpr std::size_t kRequestChars = 48;

// ---- state the planted functions keep alive -------------------------------

struct LeakyNode {
  LeakyNode* next;
  std::uint64_t id;
  char payload[24];
};
static_assert(sizeof(LeakyNode) == 40, "the leak must be exactly 40-byte blocks");

// Held until process exit, deliberately never freed (the "steady state").
char* g_steady[kSteadyBlocks];
char* g_grown[kGrowBlocks];
// The leaked nodes stay reachable from here, but are never freed.
LeakyNode* g_leak_head = nullptr;
std::uint64_t g_leak_count = 0;
std::size_t g_leaks_per_iteration = kLeaksPerIteration;

// Read through volatile so the compiler cannot specialise (duplicate) the loop
// body for the halfway iteration: every planted call keeps one call site in
// main, hence one stack per allocation site.
volatile int g_grow_iteration = kGrowIteration;

// Every short-lived pointer is written here so no allocation can be elided.
void* volatile g_sink = nullptr;
volatile std::size_t g_checksum = 0;

}  // namespace

// ---- the planted functions (external linkage, plain names) ----------------

MTA_FRAME void AllocateSteadyState();
MTA_FRAME void GrowSteadyState();
MTA_FRAME void ManipulateTemporaryBuffer();
MTA_FRAME void Operation1();
MTA_FRAME void InnerLoopOperation();
MTA_FRAME void Operation2();
MTA_FRAME void ReallocChurn();
MTA_FRAME void ProcessRequests();

// 10 blocks of 1 MiB, touched, alive until exit and never freed.
MTA_FRAME void AllocateSteadyState() {
  for (std::size_t i = 0; i < kSteadyBlocks; ++i) {
    g_steady[i] = new char[kSteadyBlockBytes];
    std::memset(g_steady[i], 0x5A, kSteadyBlockBytes);
  }
  g_sink = g_steady[0];
}

// 10 more blocks of 1 MiB at the halfway point, alive until exit, never freed.
MTA_FRAME void GrowSteadyState() {
  for (std::size_t i = 0; i < kGrowBlocks; ++i) {
    g_grown[i] = static_cast<char*>(std::malloc(kGrowBlockBytes));
    if (g_grown[i] == nullptr) {
      std::abort();
    }
    std::memset(g_grown[i], 0xA5, kGrowBlockBytes);
  }
  g_sink = g_grown[0];
}

// One 10,000,000-byte buffer: allocated, touched, held ~100 ms, freed.
MTA_FRAME void ManipulateTemporaryBuffer() {
  char* buffer = new char[kTempBufferBytes];
  g_sink = buffer;
  std::memset(buffer, 0x11, kTempBufferBytes);
  std::this_thread::sleep_for(kTempBufferHold);
  g_checksum = g_checksum + static_cast<unsigned char>(buffer[kTempBufferBytes - 1]);
  delete[] buffer;
}

MTA_FRAME void Operation1() {
  ManipulateTemporaryBuffer();
  g_sink = nullptr;  // keeps the call above from being a tail call
}

// Leaks one 40-byte node per call.
MTA_FRAME void InnerLoopOperation() {
  auto* node = new LeakyNode;
  node->next = g_leak_head;
  node->id = g_leak_count++;
  std::memset(node->payload, static_cast<int>(node->id & 0x7F), sizeof node->payload);
  g_leak_head = node;
}

MTA_FRAME void Operation2() {
  for (std::size_t i = 0; i < g_leaks_per_iteration; ++i) {
    InnerLoopOperation();
  }
  g_sink = g_leak_head;
}

// One round: malloc(16), then realloc doubling up to 65,536 bytes, then free.
MTA_FRAME void ReallocChurn() {
  std::size_t size = kReallocStart;
  auto* buffer = static_cast<char*>(std::malloc(size));
  if (buffer == nullptr) {
    std::abort();
  }
  buffer[0] = 1;
  while (size < kReallocEnd) {
    size *= 2;
    auto* grown = static_cast<char*>(std::realloc(buffer, size));
    if (grown == nullptr) {
      std::free(buffer);
      std::abort();
    }
    buffer = grown;
    buffer[size - 1] = static_cast<char>(size & 0x7F);
    g_sink = buffer;
  }
  g_checksum = g_checksum + static_cast<unsigned char>(buffer[size - 1]);
  std::free(buffer);
}

// Ordinary short-lived temporaries, all freed before returning:
// one vector buffer of 8 std::string (256 bytes), 8 strings of 48 chars
// (49 bytes each), one joined string reserved for 384 chars (385 bytes).
MTA_FRAME void ProcessRequests() {
  std::vector<std::string> requests;
  requests.reserve(kRequests);
  for (std::size_t i = 0; i < kRequests; ++i) {
    requests.emplace_back(kRequestChars, static_cast<char>('a' + i));
  }
  std::string joined;
  joined.reserve(kRequests * kRequestChars);
  for (const auto& request : requests) {
    joined += request;
  }
  g_sink = joined.data();
  std::size_t sum = 0;
  for (char c : joined) {
    sum += static_cast<unsigned char>(c);
  }
  g_checksum = g_checksum + sum;
}

namespace {

void PrintUsage() {
  std::fputs(
      "usage: memory_test_app [--scale N] [--help]\n"
      "A deterministic, single-threaded program to record with heaptrack: it keeps "
      "10 x 1 MiB alive from the start (AllocateSteadyState), adds 10 x 1 MiB at the "
      "halfway point (GrowSteadyState), and runs 10 iterations of 250 ms, each holding "
      "one 10,000,000-byte buffer for 100 ms (Operation1 -> ManipulateTemporaryBuffer), "
      "leaking 2,000 x N 40-byte nodes (Operation2 -> InnerLoopOperation), growing a "
      "buffer by realloc from 16 B to 64 KiB (ReallocChurn) and making short-lived "
      "strings (ProcessRequests); about 2.6 s in all. --scale N (a positive integer, "
      "default 1) multiplies the number of leaked 40-byte nodes, for benchmarks. It "
      "prints nothing else and exits 0.\n",
      stdout);
}

bool ParseScale(std::string_view text, std::size_t& scale) {
  std::size_t value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, value);
  if (ec != std::errc{} || end != last || value == 0 || value > 1'000'000) {
    return false;
  }
  scale = value;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t scale = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      PrintUsage();
      return 0;
    }
    if (arg == "--scale" && i + 1 < argc) {
      if (!ParseScale(argv[++i], scale)) {
        std::fprintf(stderr, "memory_test_app: --scale wants a positive integer, got '%s'\n", argv[i]);
        return 2;
      }
      continue;
    }
    std::fprintf(stderr, "memory_test_app: unknown argument '%s' (try --help)\n", argv[i]);
    return 2;
  }
  g_leaks_per_iteration = kLeaksPerIteration * scale;

  const auto start = Clock::now();
  AllocateSteadyState();
  std::this_thread::sleep_until(start + kWarmup);

  for (int iteration = 0; iteration < kIterations; ++iteration) {
    if (iteration == g_grow_iteration) {
      GrowSteadyState();
    }
    Operation1();
    Operation2();
    ReallocChurn();
    ProcessRequests();
    // Fixed schedule: iteration i ends at 100 ms + (i + 1) * 250 ms.
    std::this_thread::sleep_until(start + kWarmup + (iteration + 1) * kIterationPeriod);
  }
  // g_steady, g_grown and the leaked nodes are deliberately never freed.
  return 0;
}
