// Robustness of the ETW reader against malformed, truncated and hostile
// input, on SYNTHETIC traces written by the test-only EtlWriter: every load
// either succeeds or throws heapql::Error whose message names the file -
// never a crash, a hang, another exception type, or a sanitizer report.
// Seeded, so a failure reproduces; sized to finish in a few seconds under
// ASan+UBSan.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/ingest/etl/etw_payloads.h"
#include "engine/ingest/open_trace.h"
#include "tests/support/source_details_lookup.h"
#include "tests/support/etl_writer.h"
#include "tests/support/etw_scenarios.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

using Bytes = std::vector<std::uint8_t>;
namespace hook = etw_hook;

constexpr std::uint32_t kPid = 700, kTid = 701;
constexpr std::uint64_t kHeap = 0x3b0000;

void write_file(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Loads `path` as ETL; the only acceptable outcomes are success and a
// heapql::Error naming the file. Returns true on success.
bool load_or_clean_error(const std::string& path, const std::string& what_was_done) {
  OpenOptions options;
  options.show_progress = false;
  options.use_raw_twin = false;
  options.format = TraceFormat::kEtl;
  std::string warnings;
  options.warnings = &warnings;
  try {
    load_trace(path, options);
    return true;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << what_was_done << ": the error does not name the file: "
                                                      << message;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what_was_done << ": not a heapql::Error: " << e.what();
  }
  return false;
}

Bytes memory_test_app_bytes(const EtlWriterOptions& options) {
  EtlWriter writer(options);
  memory_test_app(writer);
  return writer.bytes();
}

EtlWriterOptions compressed_small_buffers() {
  EtlWriterOptions options;
  options.compress = true;
  options.buffer_size = 4096;
  return options;
}

// One seeded mutation of `bytes`: flipped bits, bytes overwritten with
// boundary values (0, 0xFF, 0x7F.., 0x80..) or noise, or a cut-off tail.
// Most land in records, since records are most of a file.
std::string mutate(Bytes& bytes, std::mt19937_64& rng) {
  auto offset = [&] { return std::uniform_int_distribution<std::size_t>(0, bytes.size() - 1)(rng); };
  const int kind = std::uniform_int_distribution<int>(0, 5)(rng);
  switch (kind) {
    case 0: {  // a few flipped bits
      std::string done = "flipped bits at";
      const int flips = std::uniform_int_distribution<int>(1, 4)(rng);
      for (int i = 0; i < flips; ++i) {
        const std::size_t at = offset();
        bytes[at] ^= static_cast<std::uint8_t>(1u << std::uniform_int_distribution<int>(0, 7)(rng));
        done += fmt::format(" {}", at);
      }
      return done;
    }
    case 1: {  // one random byte
      const std::size_t at = offset();
      bytes[at] = static_cast<std::uint8_t>(rng());
      return fmt::format("random byte at {}", at);
    }
    case 2:
    case 3: {  // a 2/4/8-byte field set to a boundary value
      static constexpr std::array<std::uint64_t, 6> kValues = {0, ~0ull, 0x7FFF'FFFF'FFFF'FFFFull,
                                                               0x8000'0000'0000'0000ull, 0xFFFF'FFFFull, 1};
      const std::uint64_t value = kValues[std::uniform_int_distribution<std::size_t>(0, kValues.size() - 1)(rng)];
      const std::size_t width = std::size_t{2} << std::uniform_int_distribution<int>(0, 2)(rng);
      const std::size_t at = offset();
      for (std::size_t i = 0; i < width && at + i < bytes.size(); ++i) {
        bytes[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
      }
      return fmt::format("{}-byte field 0x{:x} at {}", width, value, at);
    }
    case 4: {  // a run of noise
      const std::size_t at = offset();
      const std::size_t length = std::uniform_int_distribution<std::size_t>(1, 64)(rng);
      for (std::size_t i = 0; i < length && at + i < bytes.size(); ++i) bytes[at + i] = static_cast<std::uint8_t>(rng());
      return fmt::format("{} noise bytes at {}", length, at);
    }
    default: {  // truncated
      const std::size_t keep = offset();
      bytes.resize(keep);
      return fmt::format("truncated to {} bytes", keep);
    }
  }
}

// HEAPQL_ETW_FUZZ_SCALE=N runs N times the rounds (other seeds), for a
// longer search by hand; the default keeps the suite to a few seconds.
int fuzz_scale() {
  const char* scale = std::getenv("HEAPQL_ETW_FUZZ_SCALE");
  return scale != nullptr && std::atoi(scale) > 0 ? std::atoi(scale) : 1;
}

void fuzz_file(const Bytes& original, const std::string& label, std::uint64_t seed, int rounds) {
  rounds *= fuzz_scale();
  seed += static_cast<std::uint64_t>(fuzz_scale() - 1);
  TempDir dir;
  const std::string path = dir.file(label + ".etl");
  write_file(path, original);
  ASSERT_TRUE(load_or_clean_error(path, label + " unmutated"));  // the baseline must read
  std::mt19937_64 rng(seed);
  int succeeded = 0;
  for (int round = 0; round < rounds; ++round) {
    Bytes bytes = original;
    const std::string done = mutate(bytes, rng);
    write_file(path, bytes);
    if (load_or_clean_error(path, fmt::format("{} round {} (seed {}): {}", label, round, seed, done))) ++succeeded;
  }
  // Some mutations must reach the event layer rather than all being refused
  // by the container (e.g. a changed address or size inside a payload).
  EXPECT_GT(succeeded, 0) << label;
}

TEST(EtwReaderFuzz, SyntheticMutatedMemoryTestAppUncompressed) {
  fuzz_file(memory_test_app_bytes({}), "uncompressed", 0x5eed'0001, 100);
}

TEST(EtwReaderFuzz, SyntheticMutatedMemoryTestAppThirtyTwoBit) {
  EtlWriterOptions options;
  options.pointer_size = 4;
  fuzz_file(memory_test_app_bytes(options), "x86", 0x5eed'0002, 40);
}

TEST(EtwReaderFuzz, SyntheticMutatedMemoryTestAppCompressedSmallBuffers) {
  const Bytes bytes = memory_test_app_bytes(compressed_small_buffers());
  fuzz_file(bytes, "compressed", 0x5eed'0003, 100);
}

// ---- odd payloads for every decoded event ----

// A payload of `length` bytes: a valid one cut or padded, else noise.
Bytes payload_of(std::size_t length, const Bytes& valid, std::mt19937_64& rng) {
  Bytes out(valid.begin(), valid.begin() + static_cast<std::ptrdiff_t>(std::min(length, valid.size())));
  while (out.size() < length) out.push_back(static_cast<std::uint8_t>(rng()));
  return out;
}

Bytes le(std::initializer_list<std::pair<std::uint64_t, unsigned>> fields) {
  Bytes out;
  for (auto [value, width] : fields) {
    for (unsigned i = 0; i < width; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  }
  return out;
}

struct HookCase {
  std::uint16_t hook;
  std::uint16_t version;
  ClassicHeader header;
  Bytes valid;  // a well-formed payload for the writer's pointer size
};

// A well-formed payload per decoded hook, for pointer size `p`.
std::vector<HookCase> hook_cases(EtlWriter& w, unsigned p, std::uint64_t address) {
  const auto ptr = [p](std::uint64_t v) { return std::pair<std::uint64_t, unsigned>{v, p}; };
  const auto u32 = [](std::uint64_t v) { return std::pair<std::uint64_t, unsigned>{v, 4}; };
  ProcessInfo process;
  process.pid = kPid;
  process.image_file_name = "odd.exe";
  process.command_line = u"odd.exe -x";
  ImageInfo image;
  image.pid = kPid;
  image.base = 0x10000000;
  image.size = 0x20000;
  image.file_name = u"\\Device\\HarddiskVolume3\\odd.dll";
  const Bytes frames = le({ptr(image.base + 0x100), ptr(image.base + 0x200)});
  Bytes walk = le({{0, 8}, u32(kPid), u32(kTid)});  // event timestamp patched by the caller
  walk.insert(walk.end(), frames.begin(), frames.end());
  Bytes key_definition = le({ptr(0x77)});
  key_definition.insert(key_definition.end(), frames.begin(), frames.end());
  const auto sys = ClassicHeader::kSystem, perf = ClassicHeader::kPerfinfo;
  std::vector<HookCase> cases = {
      {hook::kHeapCreate, 3, sys, le({ptr(kHeap), u32(2), ptr(0x100000), ptr(0x1000), ptr(0)})},
      {hook::kHeapAlloc, 2, sys, le({ptr(kHeap), ptr(32), ptr(address), u32(3)})},
      {hook::kHeapRealloc, 2, sys, le({ptr(kHeap), ptr(address + 64), ptr(address), ptr(48), ptr(32), u32(3)})},
      {hook::kHeapDestroy, 2, sys, le({ptr(kHeap)})},
      {hook::kHeapFree, 2, sys, le({ptr(kHeap), ptr(address), u32(3)})},
      {hook::kVirtualAlloc, 1, sys, le({ptr(0x50000000), ptr(0x3000), u32(kPid), u32(0x3000)})},
      {hook::kVirtualFree, 1, perf, le({ptr(0x50001000), ptr(0x1000), u32(kPid), u32(0x4000)})},
      {hook::kStackWalk, 2, perf, walk},
      {hook::kStackKeyDelete, 2, perf, key_definition},
      {hook::kStackKeyRundown, 2, perf, key_definition},
      {hook::kStackKeyKernel, 2, perf, le({{0, 8}, u32(kPid), u32(kTid), ptr(0x77)})},
      {hook::kStackKeyUser, 2, perf, le({{0, 8}, u32(kPid), u32(kTid), ptr(0x77)})},
      {hook::kImageUnload, 3, sys, w.image_payload(image)},
      {hook::kImageDcStart, 3, perf, w.image_payload(image)},
      {hook::kImageDcEnd, 3, perf, w.image_payload(image)},
      {hook::kImageLoad, 3, sys, w.image_payload(image)},
  };
  for (std::uint16_t h : {hook::kProcessStart, hook::kProcessEnd, hook::kProcessDcStart, hook::kProcessDcEnd,
                          hook::kProcessDefunct}) {
    cases.push_back({h, 4, sys, w.process_payload(process)});
  }
  return cases;
}

// Lengths to try for a payload whose valid form has `valid` bytes: empty,
// one pointer (or one byte less), cuts at half, at one byte short and at a
// seeded point, and longer (trailing fields; 9000 bytes of noise). With
// HEAPQL_ETW_FUZZ_SCALE above 1, every cut.
std::vector<std::size_t> lengths_for(std::size_t valid, unsigned p, std::mt19937_64& rng) {
  std::vector<std::size_t> out = {0, p - 1u, p, valid / 2, valid - 1,
                                  std::uniform_int_distribution<std::size_t>(0, valid - 1)(rng), valid + 1, valid + 9000};
  if (fuzz_scale() > 1) {
    for (std::size_t cut = 1; cut < valid; ++cut) out.push_back(cut);
  }
  return out;
}

// Every decoded hook (and the FULL-header DbgID_RSDS record) with truncated,
// oversized and noisy payloads, in 32- and 64-bit traces, with each payload
// version the decoders branch on. One odd record per file, after a valid
// single allocation, so the error (or success) is about that record.
TEST(EtwReaderFuzz, SyntheticOddPayloadsOfEveryDecodedEventAreReadOrRefused) {
  TempDir dir;
  std::mt19937_64 rng(0x5eed'0010);
  int files = 0, refused = 0;
  for (unsigned p : {4u, 8u}) {
    EtlWriterOptions options;
    options.pointer_size = p;
    EtlWriter probe(options);
    const SingleAllocTrace single;  // addresses only, for realistic payloads
    for (const HookCase& c : hook_cases(probe, p, single.address)) {
      std::vector<std::uint16_t> versions = {c.version};
      if ((c.hook >> 8) == 0x03 || (c.hook >> 8) == 0x14) versions = {0, 1, 2, 3, 4, 5};  // process / image layouts
      for (std::size_t length : lengths_for(c.valid.size(), p, rng)) {
        const std::uint16_t version = versions[files % versions.size()];
        EtlWriter w(options);
        const SingleAllocTrace trace = single_alloc_free(w);
        const std::int64_t ts = w.ticks_at_ns(trace.free_ns + 1'000'000);
        Bytes payload = payload_of(length, c.valid, rng);
        // Stack events name the alloc's time, so they reach the matching code.
        if ((c.hook == hook::kStackWalk || c.hook == hook::kStackKeyKernel || c.hook == hook::kStackKeyUser) &&
            payload.size() >= 8) {
          const std::int64_t alloc_ts = w.ticks_at_ns(trace.alloc_ns);
          for (int i = 0; i < 8; ++i) payload[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(alloc_ts >> (8 * i));
        }
        w.classic(c.header, 0, c.hook, version, kTid, kPid, ts, payload);
        const std::string path = dir.file("odd.etl");
        w.write(path);
        ++files;
        if (!load_or_clean_error(path, fmt::format("hook 0x{:04x} v{} p{} payload {} bytes", c.hook, version, p,
                                                   length))) {
          ++refused;
        }
      }
    }
    // DbgID_RSDS: FULL header, GUID + opcode 0x24.
    const auto ptr = [p](std::uint64_t v) { return std::pair<std::uint64_t, unsigned>{v, p}; };
    Bytes rsds = le({ptr(0x10000000), {kPid, 4}, {0x1122334455667788ull, 8}, {0x99aabbccddeeff00ull, 8}, {1, 4}});
    for (char ch : std::string("odd.pdb")) rsds.push_back(static_cast<std::uint8_t>(ch));
    rsds.push_back(0);
    for (std::size_t length : lengths_for(rsds.size(), p, rng)) {
      EtlWriter w(options);
      const SingleAllocTrace trace = single_alloc_free(w);
      Bytes payload = payload_of(length, rsds, rng);
      if (length > rsds.size()) payload[rsds.size() - 1] = 'x';  // the name may lose its NUL too
      w.full(0, kImageIdGuid, kDbgIdRsdsOpcode, 2, 0, kPid, w.ticks_at_ns(trace.alloc_ns - 1), payload);
      const std::string path = dir.file("rsds.etl");
      w.write(path);
      ++files;
      if (!load_or_clean_error(path, fmt::format("DbgID_RSDS p{} payload {} bytes", p, length))) ++refused;
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_LT(refused, files);  // oversized payloads (trailing fields) are fine
}

// Regression: a size-0 MEM_RELEASE at an address inside a committed range (not
// at a region's or piece's start) ends nothing; it used to end a zero-byte
// piece and split the commit in two. Also: recommitting a range made of many
// pieces counts exactly the bytes already committed.
struct SizeLog final : EventConsumer {
  const TraceTables* tables = nullptr;
  std::vector<std::uint64_t> sizes;
  std::uint64_t frees = 0;
  void on_alloc(const LiveBlock& b) override { sizes.push_back(tables->bucket(b.bucket).size); }
  void on_free(const LiveBlock&, std::uint64_t, std::int64_t, bool) override { ++frees; }
  void on_still_alive(const LiveBlock&) override {}
  void on_finish(std::int64_t) override {}
};

TEST(EtwReaderFuzz, SyntheticSizeZeroReleaseInsideACommitEndsNothing) {
  TempDir dir;
  EtlWriter w;
  ProcessInfo process;
  process.pid = kPid;
  process.image_file_name = "odd.exe";
  w.process_start(0, w.ticks_at_ns(0), process);
  w.virtual_alloc(0, kTid, kPid, w.ticks_at_ns(1000), 0x70000000, 0x4000, kPid);
  w.virtual_alloc(0, kTid, kPid, w.ticks_at_ns(2000), 0x70008000, 0x2000, kPid);
  w.virtual_free(0, kTid, kPid, w.ticks_at_ns(3000), 0x70001000, 0, kPid, 0x8000);
  // Over both pieces and the gap between: 0x6000 bytes again, 0x4000 new.
  w.virtual_alloc(0, kTid, kPid, w.ticks_at_ns(4000), 0x70000000, 0xA000, kPid);
  const std::string path = dir.file("release0.etl");
  w.write(path);
  OpenOptions options;
  options.show_progress = false;
  options.use_raw_twin = false;
  const auto store = load_trace(path, options);
  SizeLog log;
  log.tables = &store->tables();
  store->replay(log);
  EXPECT_EQ(log.sizes, (std::vector<std::uint64_t>{0x4000, 0x2000, 0x4000}));
  EXPECT_EQ(log.frees, 0u);
  EXPECT_EQ(detail(store->source(), {"etw", "decommits_of_uncommitted"}).number, 1u);
  EXPECT_EQ(detail(store->source(), {"etw", "recommitted_bytes"}).number, 0x6000u);
}

// Legal but extreme values: timestamps at the ends of int64, address + size
// wrapping past 2^64, zero-size and overlapping commits and decommits, a
// size-0 release inside a committed range, a HeapDestroy storm over many live
// blocks, stack walks of the allowed maximum and beyond, processor numbers at
// the top of their range. Must read (or be refused) quickly.
TEST(EtwReaderFuzz, SyntheticHostileValuesAreReadOrRefusedQuickly) {
  TempDir dir;
  const auto started = std::chrono::steady_clock::now();
  EtlWriterOptions options;
  options.processors = 0xFFFF;  // the most a buffer header's 16-bit processor field can name
  EtlWriter w(options);
  ProcessInfo process;
  process.pid = kPid;
  process.image_file_name = "hostile.exe";
  w.process_start(0, w.ticks_at_ns(0), process);
  std::int64_t ns = 1000;
  auto next = [&] { return w.ticks_at_ns(ns += 1000); };
  constexpr std::uint64_t kTop = ~0ull;
  // Commits: wrapping, at the top, zero-size, overlapping, recommitted many times.
  w.virtual_alloc(0, kTid, kPid, next(), kTop - 0xFFF, 0x10000, kPid, 0x3000);
  w.virtual_alloc(0, kTid, kPid, next(), kTop, kTop, kPid);
  w.virtual_alloc(0, kTid, kPid, next(), 0x40000000, 0, kPid);
  for (std::uint64_t page = 0; page < 300; ++page) w.virtual_alloc(0, kTid, kPid, next(), 0x60000000 + page * 0x2000, 0x1000, kPid);
  for (int i = 0; i < 300; ++i) w.virtual_alloc(1, kTid, kPid, next(), 0x60000000, 300 * 0x2000, kPid);
  w.virtual_free(0, kTid, kPid, next(), 0x60001000, 0, kPid, 0x8000);  // size-0 release inside a range
  w.virtual_free(0, kTid, kPid, next(), 0x60000000, 0x3000, kPid);
  w.virtual_free(0, kTid, kPid, next(), 0x60000000, 0x3000, kPid);  // again: nothing left there
  w.virtual_free(0, kTid, kPid, next(), kTop - 0x7FF, kTop, kPid, 0x8000);
  // Heap: many live blocks in one heap, then many destroys of others.
  for (std::uint64_t i = 0; i < 3000; ++i) w.heap_alloc(i % 2, kTid, kPid, next(), kHeap, 16, 0x1000000 + i * 16);
  for (std::uint64_t i = 0; i < 3000; ++i) w.heap_destroy(0, kTid, kPid, next(), kHeap + 0x10000 * (i + 1));
  w.heap_alloc(0, kTid, kPid, next(), kHeap, kTop, kTop - 4);  // size wraps the address space
  w.heap_realloc(0, kTid, kPid, next(), kHeap, kTop, 0x1000000, kTop, 16);
  w.heap_destroy(0, kTid, kPid, next(), kHeap);
  // Stacks: the deepest accepted, on a processor number at the top of its range.
  std::vector<std::uint64_t> frames(1024, 0x10001000);
  const std::int64_t deep_ts = next();
  w.heap_alloc(0xFFFE, kTid, kPid, deep_ts, kHeap, 32, 0x2000000);
  w.stack_walk(0xFFFE, deep_ts, kPid, kTid, frames);
  w.key_rundown(0, next(), 0x99, frames);
  // Timestamps at both ends of int64 (before the header and far after it).
  w.heap_alloc(0, kTid, kPid, std::numeric_limits<std::int64_t>::min(), kHeap, 8, 0x3000000);
  w.heap_free(0, kTid, kPid, std::numeric_limits<std::int64_t>::max(), kHeap, 0x3000000);
  const std::string path = dir.file("hostile.etl");
  w.write(path);
  EXPECT_TRUE(load_or_clean_error(path, "hostile values"));

  // One frame more than accepted is refused with a clear error.
  EtlWriter deeper;
  const SingleAllocTrace trace = single_alloc_free(deeper);
  std::vector<std::uint64_t> too_many(1025, 0x10001000);
  deeper.stack_walk(0, deeper.ticks_at_ns(trace.alloc_ns), trace.pid, trace.tid, too_many);
  const std::string deeper_path = dir.file("deep.etl");
  deeper.write(deeper_path);
  EXPECT_FALSE(load_or_clean_error(deeper_path, "1025 frames"));

  const auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count(), 5);
}

}  // namespace
}  // namespace heapql::test
