// Bytes that arrive while they are read: a recording in progress handed to
// the trace readers (LineReader, HeaptrackLinePipeline) in place of a file.
#pragma once

#include <cstddef>

namespace heapql {

class ByteStream {
 public:
  virtual ~ByteStream() = default;
  // Up to `size` bytes into `dst`, waiting until there are some; 0 once the
  // stream has ended. Called from one reading thread.
  virtual std::size_t read(char* dst, std::size_t size) = 0;
  // Whether read() would return now, without waiting for bytes to arrive:
  // a reader then hands on what it has rather than wait with it (a
  // recording's last events are published while the program idles).
  virtual bool ready() const = 0;
};

}  // namespace heapql
