// Fuzz target: the heaptrack reader, interpreted text alone or with its raw
// twin (the input's part after a line "@@RAW@@"), in memory, through the
// aggregator. Any heapql::Error is an answer; anything else is a finding.
#include "engine/ingest/heaptrack_reader.h"
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
  fuzz::read_and_answer([&](TraceTables& tables, EventConsumer& consumer, std::string* warnings) {
    HeaptrackReadOptions options;
    options.show_progress = false;
    options.warnings = warnings;
    return read_heaptrack(files, tables, consumer, options);
  });
  return 0;
}
