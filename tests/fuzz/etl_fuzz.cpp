// Fuzz target: an ETL file in memory, its container (buffers, Xpress,
// records) and its events (heap, VirtualAlloc, stacks, processes, images),
// through the aggregator.
#include <string>

#include "engine/error.h"
#include "engine/ingest/etl/etw_reader.h"
#include "engine/query/aggregator.h"
#include "engine/store/trace_tables.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heapql;
  TraceTables tables;
  Query query;
  query.by = {GroupBy::kStack};
  Aggregator aggregator(tables, query);
  EtwReadOptions options;
  options.show_progress = false;
  std::string warnings;
  options.warnings = &warnings;
  options.bytes = fuzz::as_text(data, size);
  try {
    const SourceInfo source = read_etw("fuzz.etl", tables, aggregator, options);
    (void)aggregator.result(source);
  } catch (const Error&) {
  }
  return 0;
}
