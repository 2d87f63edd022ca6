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
#include "engine/store_file/checksum.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

// The header's file size, contents checksum and own checksum (offsets 16,
// 32, 56; docs/heaptrack.md), as a writer would set them.
std::string with_checksums_set(std::string_view file) {
  std::string fixed(file);
  if (fixed.size() < 64) return fixed;
  const std::uint64_t size = fixed.size();
  std::memcpy(fixed.data() + 16, &size, 8);
  const std::uint64_t body = heapql::store_file::checksum_of(fixed.data() + 64, fixed.size() - 64);
  std::memcpy(fixed.data() + 32, &body, 8);
  const std::uint64_t header = heapql::store_file::checksum_of(fixed.data(), 56);
  std::memcpy(fixed.data() + 56, &header, 8);
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
