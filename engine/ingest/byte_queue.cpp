#include "engine/ingest/byte_queue.h"

#include <algorithm>
#include <cstring>

namespace heapql {

void ByteQueue::push(std::string_view bytes) {
  if (bytes.empty()) return;
  bool wake = false;
  {
    const std::lock_guard lock(mutex_);
    if (abandoned_ || closed_) return;
    chunks_.emplace_back(bytes);
    // The reader is woken by the first bytes, then once enough are there
    // to be worth its while (read), not by every pipe-sized push.
    wake = held_ == 0 || (held_ < kGatherBytes && held_ + bytes.size() >= kGatherBytes);
    held_ += bytes.size();
    peak_ = std::max(peak_, held_);
  }
  if (wake) changed_.notify_one();
}

void ByteQueue::close() {
  {
    const std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

void ByteQueue::abandon() {
  {
    const std::lock_guard lock(mutex_);
    abandoned_ = true;
    chunks_.clear();
    held_ = 0;
    front_taken_ = 0;
  }
  changed_.notify_all();
}

std::size_t ByteQueue::read(char* dst, std::size_t size) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !chunks_.empty() || closed_ || abandoned_; });
  // A reader as fast as the recording would otherwise wake for every few
  // KiB pushed (a tenth of the recorder's time went to switching threads):
  // it waits a moment for more, as long as a live publication can spare.
  changed_.wait_for(lock, kGatherWait, [&] { return held_ >= std::min(size, kGatherBytes) || closed_ || abandoned_; });
  std::size_t got = 0;
  while (got < size && !chunks_.empty()) {
    const std::string& front = chunks_.front();
    const std::size_t n = std::min(size - got, front.size() - front_taken_);
    std::memcpy(dst + got, front.data() + front_taken_, n);
    got += n;
    front_taken_ += n;
    if (front_taken_ == front.size()) {
      chunks_.pop_front();
      front_taken_ = 0;
    }
  }
  held_ -= got;
  return got;
}

bool ByteQueue::ready() const {
  const std::lock_guard lock(mutex_);
  return !chunks_.empty() || closed_ || abandoned_;
}

std::uint64_t ByteQueue::peak_bytes() const {
  const std::lock_guard lock(mutex_);
  return peak_;
}

}  // namespace heapql
