// MS-XCA "plain LZ77" (Xpress) decompression, the compression of ETL buffers
// written by `xperf -merge -compress`, WPR and PerfView (etw-heap.md §4.1).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace heapql {

// Decompresses `input` into exactly `expected_size` bytes appended to `output`
// (cleared first). Returns an empty string on success, or what went wrong with
// the offset in `input` where it went wrong ("match at input byte 812 reaches
// back 4100 bytes before the output start"). Never reads or writes out of bounds.
std::string xpress_decompress(std::span<const std::uint8_t> input, std::size_t expected_size,
                              std::vector<std::uint8_t>& output);

}  // namespace heapql
