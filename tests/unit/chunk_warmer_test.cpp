// The chunk warmer: chunks of the size asked for, whole and writable, and,
// once its thread has had a moment, with their pages already in place: the
// thread that writes them takes few page faults.
#include "engine/util/chunk_warmer.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstring>
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

TEST(ChunkWarmer, SmallChunksAreOrdinaryMemory) {
  void* chunk = take_warm_chunk(4096);
  std::memset(chunk, 1, 4096);
  ::operator delete(chunk);
}

}  // namespace
}  // namespace heapql
