// Fuzz target: a block-identity file (the input's part after a line
// "@@HQID@@") read beside an interpreted heaptrack file (the part before it),
// in memory, through three queries: the whole trace (only the kinds column
// is read), a window (the times too) and a lifetime filter (blocks kept, the
// ids too). The input's first byte is a flag: when odd, the file's size
// and checksums are set right first, so that mutations reach the columns
// and the tail. Any heapql::Error is an answer; anything else is a finding.
#include <cstring>

#include "engine/ingest/heaptrack_reader.h"
#include "engine/query/aggregator.h"
#include "engine/binary_file/checksum.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

// The header's file size, the columns' checksums (the tail's last 24
// bytes, after their 24 bytes of sizes), the tail's checksum and the
// header's own (docs/heaptrack.md), as a writer would set them, where the
// sizes and the tail's offset leave room for that.
std::string with_checksums_set(std::string_view file) {
  std::string fixed(file);
  const auto u64_at = [&](std::size_t at) {
    std::uint64_t v;
    std::memcpy(&v, fixed.data() + at, 8);
    return v;
  };
  const auto set_u64 = [&](std::size_t at, std::uint64_t v) { std::memcpy(fixed.data() + at, &v, 8); };
  const std::uint64_t size = fixed.size();
  if (size < 64 + 48) return fixed;
  set_u64(16, size);
  std::uint64_t at = 64;
  for (std::size_t c = 0; c < 3; ++c) {
    const std::uint64_t bytes = u64_at(size - 48 + 8 * c);
    if (bytes > size - 48 - at) return fixed;
    set_u64(size - 24 + 8 * c, heapql::store_file::checksum_of(fixed.data() + at, bytes));
    at += bytes;
  }
  const std::uint64_t tail_at = u64_at(24);
  if (tail_at < 64 || tail_at > size) return fixed;
  set_u64(32, heapql::store_file::checksum_of(fixed.data() + tail_at, size - tail_at));
  set_u64(56, heapql::store_file::checksum_of(fixed.data(), 56));
  return fixed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heapql;
  if (size == 0) return 0;
  const bool set_checksums = (data[0] & 1) != 0;
  const std::vector<std::string_view> parts = fuzz::split(fuzz::as_text(data + 1, size - 1), "\n@@HQID@@\n");
  if (parts.size() < 2) return 0;
  HeaptrackFiles files;
  files.interpreted = "fuzz.zst";
  files.interpreted_bytes = parts[0];
  files.identity = "fuzz.zst.hqid";
  const std::string fixed = set_checksums ? with_checksums_set(parts[1]) : std::string(parts[1]);
  files.identity_bytes = fixed;
  Query whole;
  whole.by = {GroupBy::kStack};
  Query window = whole;
  window.window.begin_ns = 10'000'000;
  window.window.end_ns = 40'000'000;
  window.by = {GroupBy::kImpacting, GroupBy::kStack};
  Query lifetime = whole;
  lifetime.lifetime_min_ns = 1;
  for (const Query& query : {whole, window, lifetime}) {
    TraceTables tables;
    Aggregator aggregator(tables, query);
    std::string warnings;
    HeaptrackReadOptions options;
    options.show_progress = false;
    options.warnings = &warnings;
    try {
      const SourceInfo source = read_heaptrack(files, tables, aggregator, options);
      (void)aggregator.result(source);
    } catch (const Error&) {
    }
  }
  return 0;
}
