// The chunk warmer: chunks of the size asked for, whole and writable, and,
// once its thread has had a moment, with their pages already in place: the
// thread that writes them takes few page faults. Small chunks it leaves
// alone.
#include "engine/util/chunk_warmer.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <new>
#include <thread>
#include <vector>

namespace heapql {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{384} << 10;  // a size no table uses
constexpr std::size_t kPages = kChunkBytes / 4096;

long faults_of_this_thread() {
  rusage usage{};
  ::getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

TEST(ChunkWarmer, ChunksAreWholeAndTheirPagesInPlace) {
  // Chunks are kept to the end, so that none is memory freed and handed out
  // again (whose pages would be in place anyway): the heap's few spare pages
  // are used up by the first chunks, and the later ones' pages come from
  // the warmer or from faults while they are written.
  std::vector<void*> taken;
  std::vector<long> faults;
  for (int i = 0; i < 24; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(40));  // the warmer's moment
    void* chunk = take_warm_chunk(kChunkBytes);
    taken.push_back(chunk);
    const long before = faults_of_this_thread();
    std::memset(chunk, 0xA5, kChunkBytes);
    faults.push_back(faults_of_this_thread() - before);
    EXPECT_EQ(static_cast<unsigned char*>(chunk)[kChunkBytes - 1], 0xA5);
  }
#ifdef MADV_POPULATE_WRITE
  // The first chunk is taken before any is ready. Of the later half, a
  // busy machine may keep the warmer from readying a few in time (a whole
  // chunk's faults each); without it every one faults in all its pages.
  long later = 0;
  for (std::size_t i = taken.size() / 2; i < taken.size(); ++i) later += faults[i];
  EXPECT_LT(later, static_cast<long>(kPages * 3))
      << "writing chunks the warmer had time to ready faulted in their pages";
#endif
  for (std::size_t i = 0; i < taken.size(); ++i) {
    for (std::size_t j = i + 1; j < taken.size(); ++j) {
      const auto a = reinterpret_cast<std::uintptr_t>(taken[i]), b = reinterpret_cast<std::uintptr_t>(taken[j]);
      EXPECT_TRUE(a + kChunkBytes <= b || b + kChunkBytes <= a) << "two chunks overlap";
    }
  }
  for (void* chunk : taken) ::operator delete(chunk);
}

// This process's resident bytes (/proc/self/statm counts pages).
long resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

// Resident bytes once they have not grown for 100 ms (at most 10 s): what
// the warmer was readying is ready.
long settled_resident_bytes() {
  const auto start = std::chrono::steady_clock::now();
  long last = resident_bytes();
  for (int still = 0; still < 10 && std::chrono::steady_clock::now() - start < std::chrono::seconds(10);) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const long now = resident_bytes();
    still = now > last ? 0 : still + 1;
    last = now;
  }
  return last;
}

TEST(ChunkWarmer, SmallChunksAreOrdinaryMemory) {
  // chunk_warmer.cpp warms chunks from 128 KiB up. Taking the first chunk
  // of a size the warmer does warm has it ready three more with their pages
  // in place, which resident memory shows; a smaller chunk is plain
  // ::operator new memory, and taking one makes nothing resident beyond it.
  constexpr std::size_t kWarmedBytes = std::size_t{160} << 10;  // sizes no table uses
  constexpr std::size_t kSmallBytes = std::size_t{120} << 10;
  // Three chunks ready, each with its whole pages in place (its first and
  // last page may be shared with its neighbours).
  constexpr long kWarmedAtLeast = 3 * static_cast<long>(kWarmedBytes - (std::size_t{8} << 10));
#ifndef MADV_POPULATE_WRITE
  GTEST_SKIP() << "built without MADV_POPULATE_WRITE: the warmer puts no chunk's pages in place ahead";
#endif

  const long before_warmed = settled_resident_bytes();
  const auto asked = std::chrono::steady_clock::now();
  void* warmed = take_warm_chunk(kWarmedBytes);
  while (resident_bytes() - before_warmed < kWarmedAtLeast &&
         std::chrono::steady_clock::now() - asked < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto readied_in = std::chrono::steady_clock::now() - asked;
  const long before_small = settled_resident_bytes();
  ASSERT_GE(before_small - before_warmed, kWarmedAtLeast)
      << "the warmer readied no chunks of " << kWarmedBytes << " bytes: this test cannot see what it does";

  // Several times as long as the warmer took above, to ready chunks of this size.
  void* small = take_warm_chunk(kSmallBytes);
  std::this_thread::sleep_for(
      std::max<std::chrono::steady_clock::duration>(5 * readied_in, std::chrono::milliseconds(200)));
  EXPECT_LT(resident_bytes() - before_small, static_cast<long>(kSmallBytes))
      << "chunks of " << kSmallBytes << " bytes were made ready ahead";

  std::memset(small, 1, kSmallBytes);
  EXPECT_EQ(static_cast<unsigned char*>(small)[kSmallBytes - 1], 1);
  ::operator delete(small);
  ::operator delete(warmed);
}

}  // namespace
}  // namespace heapql
