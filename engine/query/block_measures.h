// The measures of `n` blocks of one impacting type in one bucket (semantics.md
// §3, §7): what the roll-up adds to a row for them, and what a drill-down
// (row_detail.cpp) counts of them. One rule for both.
#pragma once

#include <cstdint>

#include "engine/query/byte_sums.h"
#include "engine/query/query.h"
#include "engine/query/result.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// `at_peak`: the blocks alive at the peak (every measure counts them);
// else by `type`: inside the window (st, stc, src), outstanding at its end
// (so, soc: AIFO), and with `impacting_mode` the count, size and signed
// impacting size of every type.
inline Measures block_measures(std::uint64_t n, Impacting type, const Bucket& bucket, bool at_peak,
                               bool impacting_mode) {
  const std::uint64_t bytes = bytes_times(n, bucket.size);
  Measures m;
  m.blocks = n;
  if (at_peak) {
    m.soc = m.stc = n;
    m.so = m.st = bytes;
    m.src = bucket.is_realloc ? n : 0;
    return m;
  }
  if (type == Impacting::kAifi || type == Impacting::kAifo) {
    m.stc = n;
    m.st = bytes;
    m.src = bucket.is_realloc ? n : 0;
    if (type == Impacting::kAifo) {
      m.soc = n;
      m.so = bytes;
    }
  }
  if (impacting_mode) {
    m.count = n;
    m.size = bytes;
    const auto signed_size = static_cast<std::int64_t>(bytes);
    m.impacting = type == Impacting::kAifo ? signed_size : type == Impacting::kAofi ? -signed_size : 0;
  }
  return m;
}

}  // namespace heapql
