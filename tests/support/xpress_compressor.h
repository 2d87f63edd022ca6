// Test-only MS-XCA "plain LZ77" (Xpress) compressor: the inverse of
// heapql::xpress_decompress (engine/ingest/etl/xpress.h), used by the
// synthetic ETL writer to produce compressed buffers the way xperf -merge
// -compress, WPR and PerfView do (etw-heap.md §4.1).
//
// Stream layout (MS-XCA §2.3/§2.4): a 32-bit little-endian flag word before
// each group of 32 symbols, read most significant bit first (0 = literal byte,
// 1 = match). A match is a 16-bit word ((offset - 1) << 3 | min(length - 3, 7)),
// offsets 1..8192, lengths >= 3; longer lengths continue in a shared half-byte
// (two matches share one byte: low nibble first, high nibble second), then a
// byte, then a 16-bit or (after a 16-bit zero) a 32-bit length - 3. After the
// last symbol the unused flag bits are set to 1, as the spec's encoder does,
// so a decoder that stops at "match flag with no input left" also ends cleanly.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace heapql::test {

struct XpressCompressOptions {
  // Hash-chain candidates tried per position; 0 turns matching off (all
  // literals), which tests use to get a stream with no matches at all.
  int max_chain = 32;
  // Longest match emitted; lengths past 279 use the 16-bit form, past 65538
  // the 32-bit form. Tests lower it to force many short matches.
  std::uint32_t max_match = 1u << 20;
};

// Greedy hash-chain LZ77. Always succeeds; incompressible input grows by
// about 1/8 (one flag bit per literal).
std::vector<std::uint8_t> xpress_compress(std::span<const std::uint8_t> input,
                                          const XpressCompressOptions& options = {});

// What the last stream contained, for tests that need every length form covered.
struct XpressStreamStats {
  std::uint64_t literals = 0;
  std::uint64_t short_matches = 0;      // length 3..9: no extra bytes
  std::uint64_t nibble_matches = 0;     // 10..24: length in a half-byte
  std::uint64_t byte_matches = 0;       // 25..279: half-byte 15 + a byte
  std::uint64_t word_matches = 0;       // 280..65538: + 16-bit length
  std::uint64_t dword_matches = 0;      // longer: + 16-bit zero + 32-bit length
};
std::vector<std::uint8_t> xpress_compress(std::span<const std::uint8_t> input, const XpressCompressOptions& options,
                                          XpressStreamStats& stats);

}  // namespace heapql::test
