// Sets the checksums of a live journal's segments right (docs/store-format.md,
// "The live journal"), as far as their headers let them be found: for tests
// and the fuzz target that craft journals the reader must judge by their
// contents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/binary_file/checksum.h"
#include "engine/store_file/live_journal_format.h"

namespace heapql::test {

// The segment at `at`: its payload's and its header's checksums. Returns
// where the next segment starts, or `size` when this one runs past it.
inline std::size_t reseal_live_segment(char* bytes, std::size_t size, std::size_t at) {
  using namespace heapql::store_file;
  if (size - at < kLiveSegmentHeaderBytes) return size;
  std::uint64_t payload;
  std::memcpy(&payload, bytes + at + live_segment_at::kPayloadBytes, sizeof payload);
  if (payload > size - at - kLiveSegmentHeaderBytes) return size;
  const std::uint64_t payload_sum = checksum_of(bytes + at + kLiveSegmentHeaderBytes, payload);
  std::memcpy(bytes + at + live_segment_at::kPayloadChecksum, &payload_sum, sizeof payload_sum);
  const std::uint64_t header_sum = checksum_of(bytes + at, live_segment_at::kHeaderChecksum);
  std::memcpy(bytes + at + live_segment_at::kHeaderChecksum, &header_sum, sizeof header_sum);
  return at + kLiveSegmentHeaderBytes + payload;
}

inline void set_live_journal_checksums(char* bytes, std::size_t size) {
  for (std::size_t at = 0; at < size;) at = reseal_live_segment(bytes, size, at);
}

}  // namespace heapql::test
