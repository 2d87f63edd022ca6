// Fuzz target: the heaptrack reader, interpreted text alone or with its raw
// twin (the input's part after a line "@@RAW@@"), in memory, through the
// aggregator. Any heapql::Error is an answer; anything else is a finding.
#include <string>

#include "engine/error.h"
#include "engine/ingest/heaptrack_reader.h"
#include "engine/query/aggregator.h"
#include "engine/store/trace_tables.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heapql;
  const std::vector<std::string_view> parts = fuzz::split(fuzz::as_text(data, size), "\n@@RAW@@\n");
  HeaptrackFiles files;
  files.interpreted = "fuzz.zst";
  files.interpreted_bytes = parts[0];
  if (parts.size() > 1) {
    files.raw = "fuzz.raw.zst";
    files.raw_bytes = parts[1];
  }
  TraceTables tables;
  Query query;
  query.by = {GroupBy::kStack};
  Aggregator aggregator(tables, query);
  HeaptrackReadOptions options;
  options.show_progress = false;
  std::string warnings;
  options.warnings = &warnings;
  try {
    const SourceInfo source = read_heaptrack(files, tables, aggregator, options);
    (void)aggregator.result(source);
  } catch (const Error&) {
  }
  return 0;
}
