#include "engine/util/chunk_warmer.h"

#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>
#include <stop_token>
#include <thread>
#include <vector>

#include "engine/platform/memory_advice.h"

namespace heapql {

namespace {

// Smaller chunks have too few pages to be worth a hand-over.
constexpr std::size_t kWarmFrom = std::size_t{128} << 10;

// Faults in the whole pages of [chunk, chunk + bytes), writable, as a first
// write would: one call instead of a fault a page. A kernel without
// MADV_POPULATE_WRITE (before Linux 5.14), and Windows, leave them to the
// first writes.
void populate(void* chunk, std::size_t bytes) { advise_populate_write(chunk, bytes); }

class ChunkWarmer {
 public:
  void* take(std::size_t bytes) {
    std::unique_lock lock(mutex_);
    Size* size = find(bytes);
    if (size == nullptr) size = &sizes_.emplace_back(Size{bytes, {}});
    void* chunk = nullptr;
    if (size->ready_count > 0) chunk = size->ready[--size->ready_count];
    if (!thread_.joinable()) thread_ = std::jthread([this](std::stop_token stop) { warm(stop); });
    lock.unlock();
    wanted_.notify_one();
    return chunk != nullptr ? chunk : ::operator new(bytes);
  }

 private:
  // Several tables' chunks may have one size (256 KiB, most of them): a
  // few are kept ready.
  static constexpr std::size_t kReadyPerSize = 3;
  struct Size {
    std::size_t bytes;
    std::array<void*, kReadyPerSize> ready{};  // chunks whose pages are in place
    std::size_t ready_count = 0;
  };

  Size* find(std::size_t bytes) {
    for (Size& size : sizes_) {
      if (size.bytes == bytes) return &size;
    }
    return nullptr;
  }

  Size* next_wanted() {
    for (Size& size : sizes_) {
      if (size.ready_count < kReadyPerSize) return &size;
    }
    return nullptr;
  }

  void warm(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    while (wanted_.wait(lock, stop, [&] { return next_wanted() != nullptr; })) {
      const std::size_t bytes = next_wanted()->bytes;
      lock.unlock();
      void* chunk = ::operator new(bytes, std::nothrow);
      if (chunk == nullptr) return;  // no memory to spare: the tables fault their own pages
      populate(chunk, bytes);
      lock.lock();
      Size* size = find(bytes);
      size->ready[size->ready_count++] = chunk;  // below kReadyPerSize: only this thread adds
    }
  }

  std::mutex mutex_;
  std::condition_variable_any wanted_;
  std::vector<Size> sizes_;
  std::jthread thread_;  // started by the first chunk taken; never joined (take_warm_chunk)
};

}  // namespace

void* take_warm_chunk(std::size_t bytes) {
  if (bytes < kWarmFrom) return ::operator new(bytes);
  // Never destroyed: joining its thread at exit deadlocked on Windows, where
  // the C runtime holds its exit lock while it runs the static destructors
  // and the thread, leaving its wait, took that lock (std::stop_token's
  // first atomic wait registers a destructor of its own). At exit the thread
  // simply ends with the process.
  static ChunkWarmer& warmer = *new ChunkWarmer;
  return warmer.take(bytes);
}

}  // namespace heapql
