// Fuzz target: an ETL file in memory, its container (buffers, Xpress,
// records) and its events (heap, VirtualAlloc, stacks, processes, images),
// through the aggregator.
#include "engine/ingest/etl/etw_reader.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heapql;
  fuzz::read_and_answer([&](TraceTables& tables, EventConsumer& consumer, std::string* warnings) {
    EtwReadOptions options;
    options.show_progress = false;
    options.warnings = warnings;
    options.bytes = fuzz::as_text(data, size);
    return read_etw("fuzz.etl", tables, consumer, options);
  });
  return 0;
}
