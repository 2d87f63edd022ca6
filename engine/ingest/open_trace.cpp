#include "engine/ingest/open_trace.h"

#include "engine/ingest/heaptrack_reader.h"

namespace heapql {

SourceInfo stream_trace(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                        const OpenOptions& options) {
  HeaptrackReadOptions heaptrack;
  heaptrack.show_progress = options.show_progress;
  heaptrack.use_raw_twin = options.use_raw_twin;
  heaptrack.warnings = options.warnings;
  return read_heaptrack(path, tables, consumer, heaptrack);
}

std::unique_ptr<TraceStore> load_trace(const std::string& path, const OpenOptions& options, EventConsumer* also) {
  auto store = std::make_unique<TraceStore>();
  TraceStore::Builder builder(*store);
  if (also != nullptr) {
    FanOut both({&builder, also});
    store->source() = stream_trace(path, store->tables(), both, options);
  } else {
    store->source() = stream_trace(path, store->tables(), builder, options);
  }
  return store;
}

}  // namespace heapql
