#include "engine/ingest/open_trace.h"

#include "engine/error.h"
#include "engine/ingest/anomaly_report.h"
#include "engine/ingest/block_identity_file.h"
#include "engine/ingest/etl/etl_file.h"
#include "engine/ingest/etl/etw_reader.h"
#include "engine/ingest/event_csv_reader.h"
#include "engine/ingest/heaptrack_reader.h"
#include "engine/ingest/trace_is_a_file.h"

namespace heapql {

TraceFormat detect_trace_format(const std::string& path) {
  if (EtlFile::sniff(path)) return TraceFormat::kEtl;
  if (looks_like_event_csv(path)) return TraceFormat::kEventCsv;
  return TraceFormat::kHeaptrack;
}

namespace {

// Its bytes would read as "not a heaptrack file" with a binary dump.
[[noreturn]] void refuse_block_identity_file(const std::string& path) {
  const std::string trace = path.ends_with(".hqid") ? ": " + path.substr(0, path.size() - 5) : std::string();
  throw Error(SourceLocation::of_file(path),
              "a heapql block-identity file, not a trace (a reading with the raw twin writes it beside the trace, "
              "for exact readings later); give the trace itself" +
                  trace);
}

SourceInfo read_trace_of_its_format(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                                    const OpenOptions& options) {
  const TraceFormat format = options.format == TraceFormat::kAuto ? detect_trace_format(path) : options.format;
  if (format == TraceFormat::kHeaptrack && heaptrack::is_block_identity_file(path)) refuse_block_identity_file(path);
  if (format == TraceFormat::kEtl) {
    EtwReadOptions etw;
    etw.show_progress = options.show_progress;
    etw.symbol_paths = options.symbol_paths;
    etw.strict = options.strict;
    etw.warnings = options.warnings;
    etw.confined = options.confined;
    SourceInfo source = read_etw(path, tables, consumer, etw);
    // The ETL reader counts its anomalies without their places.
    report_anomaly_counts(source.anomalies, path, options.strict, true, options.warnings);
    return source;
  }
  if (format == TraceFormat::kEventCsv) {
    EventCsvReadOptions csv;
    csv.show_progress = options.show_progress;
    csv.warnings = options.warnings;
    csv.strict = options.strict;
    return read_event_csv(path, tables, consumer, csv);
  }
  HeaptrackReadOptions heaptrack;
  heaptrack.show_progress = options.show_progress;
  heaptrack.use_raw_twin = options.use_raw_twin;
  heaptrack.warnings = options.warnings;
  heaptrack.strict = options.strict;
  heaptrack.write_block_identity = options.write_block_identity;
  heaptrack.confined = options.confined;
  return read_heaptrack(path, tables, consumer, heaptrack);
}

}  // namespace

SourceInfo read_trace(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                      const OpenOptions& options) {
  require_trace_file(path);
  return naming_file(path, [&] { return read_trace_of_its_format(path, tables, consumer, options); });
}

std::unique_ptr<TraceStore> load_trace(const std::string& path, const OpenOptions& options) {
  auto store = std::make_unique<TraceStore>();
  TraceStore::Builder builder(*store);
  store->source() = read_trace(path, store->tables(), builder, options);
  return store;
}

}  // namespace heapql
