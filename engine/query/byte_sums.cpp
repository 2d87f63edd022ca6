#include "engine/query/byte_sums.h"

#include "engine/error.h"

namespace heapql {

void bytes_past_limit() {
  throw Error(
      "sizes add up past 2^63-1 bytes (8 EiB), more than any address space holds: the trace's sizes are not real");
}

}  // namespace heapql
