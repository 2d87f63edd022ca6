// A ByteStream fed by another thread: push() never waits. It is the tap
// `heapql record` takes on a stream it forwards (the raw recording to
// heaptrack_interpret, the interpreter's output to its file): a tap that
// waited for its reader could stall the forwarding, and so the reader
// itself, which may be waiting for text the forwarding has not passed on
// yet. So the queue holds whatever its reader has not taken, without bound,
// in memory; peak_bytes() says how much that came to.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>

#include "engine/ingest/byte_stream.h"

namespace heapql {

class ByteQueue final : public ByteStream {
 public:
  // Appends; never waits. After abandon(), drops the bytes.
  void push(std::string_view bytes);
  // The stream ends after what was pushed.
  void close();
  // The reader has gone: pushes are dropped from now on, and memory freed.
  void abandon();

  std::size_t read(char* dst, std::size_t size) override;
  bool ready() const override;

  // The most bytes held at once, waiting for the reader.
  std::uint64_t peak_bytes() const;

 private:
  // What a read waits to gather, at most this long, once bytes are there.
  static constexpr std::size_t kGatherBytes = std::size_t{256} << 10;
  static constexpr std::chrono::milliseconds kGatherWait{10};

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> chunks_;
  std::size_t front_taken_ = 0;  // bytes of chunks_.front() already read
  std::uint64_t held_ = 0, peak_ = 0;
  bool closed_ = false, abandoned_ = false;
};

}  // namespace heapql
