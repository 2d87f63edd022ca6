// Fuzz target: the event CSV reader, in memory, through the aggregator.
#include "engine/ingest/event_csv_reader.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heapql;
  fuzz::read_and_answer([&](TraceTables& tables, EventConsumer& consumer, std::string* warnings) {
    EventCsvReadOptions options;
    options.show_progress = false;
    options.warnings = warnings;
    options.bytes = fuzz::as_text(data, size);
    return read_event_csv("fuzz.csv", tables, consumer, options);
  });
  return 0;
}
