// Rewrites an .etl file with its buffers in another order, as a logger that
// flushed its processors' buffers differently would have written it: the
// same bytes, buffer for buffer. For tests that an answer does not depend on
// where in the file a buffer lies (etw-heap.md §3.4).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace heapql::test {

// One buffer of a file: where it lies and whose it is (WMI_BUFFER_HEADER).
struct EtlBufferPlace {
  std::uint64_t offset = 0;
  std::uint32_t size = 0;
  std::uint32_t processor = 0;  // ClientContext's low 16 bits
};

// The buffers of a whole file, in file order, by each one's BufferSize.
// Throws std::runtime_error on a buffer that runs past the end.
std::vector<EtlBufferPlace> etl_buffers(std::span<const std::uint8_t> file);

// The file with its buffers in `order` (indexes into etl_buffers(file), each
// once). Throws std::runtime_error when `order` is not a permutation.
std::vector<std::uint8_t> reorder_etl_buffers(std::span<const std::uint8_t> file,
                                              const std::vector<std::size_t>& order);

// An order that keeps the first buffer (the logfile header) first and each
// processor's buffers in their file order, and interleaves the processors
// as `pick` says: pick(processors with buffers left) returns the index, in
// that list, of the processor whose next buffer comes next.
std::vector<std::size_t> interleave_etl_buffers(
    const std::vector<EtlBufferPlace>& buffers,
    const std::function<std::size_t(const std::vector<std::uint32_t>&)>& pick);

}  // namespace heapql::test
