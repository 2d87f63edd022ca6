// The one entry point from a file name to events: picks the reader for the
// file and streams it into a consumer (one-shot queries), or loads it into a
// TraceStore (repeated queries). New readers plug in here only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/store/events.h"
#include "engine/store/source_info.h"
#include "engine/store/trace_store.h"
#include "engine/store/trace_tables.h"

namespace heapql {

// Which reader a file gets: by its first bytes (an ETL buffer header, the
// event CSV's header line), else heaptrack's (which knows its compressions).
enum class TraceFormat { kAuto, kHeaptrack, kEtl, kEventCsv };

struct OpenOptions {
  bool show_progress = true;
  bool use_raw_twin = true;
  // A trace that ends early or has an anomaly is refused (Error) instead of
  // answered from its complete part, or the anomaly counted, with a warning.
  bool strict = false;
  std::string* warnings = nullptr;  // null: warnings go to stderr
  TraceFormat format = TraceFormat::kAuto;
  std::vector<std::string> symbol_paths;  // ETL: PDB folders and symbol stores
  // Answer from a fresh store file of the trace where there is one
  // (trace_store_file.h); false (--no-store) reads the trace itself.
  bool use_store = true;
  // A heaptrack trace read with its raw twin also writes its block-identity
  // file (heapql ingest, heapql record).
  bool write_block_identity = false;
  // For a recipe's run (the sandbox): the files beside a trace are read
  // only as themselves, never through a link (side_file.h); and a store file
  // named as the trace answers as it is, without looking at the sources its
  // header records, which may be anywhere.
  bool confined = false;
};

TraceFormat detect_trace_format(const std::string& path);

// Streams the trace at `path` into `consumer`, interning into `tables`. A
// store file (named, or answering for the trace) is replayed instead.
SourceInfo stream_trace(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                        const OpenOptions& options = {});

// Reads the trace itself with its reader, never a store file of it.
SourceInfo read_trace(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                      const OpenOptions& options = {});

// Reads the whole trace into a store, optionally feeding `also` on the way; or
// maps its store file, when one answers for it (and feeds `also` from it).
std::unique_ptr<TraceStore> load_trace(const std::string& path, const OpenOptions& options = {},
                                       EventConsumer* also = nullptr);

// Passes every event to several consumers, so one read answers several queries.
class FanOut final : public EventConsumer {
 public:
  explicit FanOut(std::vector<EventConsumer*> consumers) : consumers_(std::move(consumers)) {}
  void on_alloc(const LiveBlock& b) override {
    for (auto* c : consumers_) c->on_alloc(b);
  }
  void on_free(const LiveBlock& b, std::uint64_t seq, std::int64_t ns, bool temporary) override {
    for (auto* c : consumers_) c->on_free(b, seq, ns, temporary);
  }
  void on_still_alive(const LiveBlock& b) override {
    for (auto* c : consumers_) c->on_still_alive(b);
  }
  void on_finish(std::int64_t end_ns) override {
    for (auto* c : consumers_) c->on_finish(end_ns);
  }

 private:
  std::vector<EventConsumer*> consumers_;
};

}  // namespace heapql
