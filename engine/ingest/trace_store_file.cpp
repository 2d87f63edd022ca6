#include "engine/ingest/trace_store_file.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <span>

#include "engine/error.h"
#include "engine/ingest/anomaly_report.h"
#include "engine/ingest/block_identity_file.h"
#include "engine/ingest/trace_cut.h"
#include "engine/ingest/trace_is_a_file.h"
#include "engine/query/aggregator.h"
#include "engine/store/store_file_info.h"
#include "engine/warnings.h"
#include "engine/store_file/output_file.h"
#include "engine/store_file/store_writer.h"

namespace heapql {

namespace {

void warn(const OpenOptions& options, const std::string& text) { emit_warning(options.warnings, text + "\n"); }

// Why a store does not answer for the trace at `trace_path` read as
// `options` say, or empty when it does.
std::string why_not_fresh(const StoreFileInfo& info, const std::string& trace_path,
                          const OpenOptions& options) {
  if (info.files.empty()) return "it records no trace";
  // A folder moved or copied whole (mv, cp -a, rsync -a) keeps its store:
  // the trace is compared where it is now, and its other files (a raw twin,
  // a block-identity file) where they are beside it.
  const FileIdentity& trace_then = info.files.front();
  const FileIdentity trace_now = store_file::identify_file(trace_path);
  if (const std::string why = store_file::identity_change(trace_then, trace_now); !why.empty()) {
    return trace_then.path != trace_now.path
               ? fmt::format("it is the store of {}, and this trace differs from it ({})", trace_then.path, why)
               : fmt::format("{} has changed since it was ingested ({})", trace_now.path, why);
  }
  for (FileIdentity file : std::span(info.files).subspan(1)) {
    file.path = store_file::relocated(file.path, trace_then.path, trace_now.path);
    const std::string why = store_file::identity_mismatch(file);
    if (!why.empty()) return fmt::format("{} has changed since it was ingested ({})", file.path, why);
  }
  if (info.reading != reading_key(options)) {
    return fmt::format("it was read with other options ({}, not {})", reading_in_words(info.reading),
                       reading_in_words(reading_key(options)));
  }
  return {};
}

std::optional<ino_t> inode_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return st.st_ino;
}

std::string cache_folder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    return std::string(xdg) + "/heapql";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/heapql";
  }
  return {};
}

}  // namespace

std::string reading_key(const OpenOptions& options) {
  std::string key(options.use_raw_twin ? kReadingRawTwin : kReadingNoRawTwin);
  switch (options.format) {
    case TraceFormat::kAuto: break;
    case TraceFormat::kHeaptrack: key += ", as heaptrack"; break;
    case TraceFormat::kEtl: key += ", as ETL"; break;
    case TraceFormat::kEventCsv: key += ", as event CSV"; break;
  }
  for (const std::string& symbols : options.symbol_paths) key += ", symbols " + symbols;
  return key;
}

std::string store_beside(const std::string& trace_path) { return trace_path + ".hqdb"; }

std::string store_in_cache(const std::string& trace_path) {
  const std::string folder = cache_folder();
  if (folder.empty()) return {};
  std::error_code ec;
  const std::string absolute = std::filesystem::absolute(trace_path, ec).lexically_normal().string();
  return fmt::format("{}/{:016x}-{}.hqdb", folder, std::hash<std::string>{}(absolute),
                     std::filesystem::path(trace_path).filename().string());
}

std::optional<FoundStore> store_answering(const std::string& path, const OpenOptions& options) {
  require_trace_file(path);
  if (store_file::is_store_file(path) || path.ends_with(".hqdb")) return FoundStore{path, false};
  if (!options.use_store) return std::nullopt;
  for (const std::string& candidate : {store_beside(path), store_in_cache(path)}) {
    std::error_code ec;
    if (candidate.empty() || !std::filesystem::is_regular_file(candidate, ec)) continue;
    try {
      const std::string why = why_not_fresh(store_file::peek_store_file(candidate), path, options);
      if (why.empty()) return FoundStore{candidate, true};
      warn(options, fmt::format("{}: not used, {}; reading the trace (heapql ingest {} writes a new one)", candidate,
                                why, path));
    } catch (const Error& e) {
      warn(options, fmt::format("{}; reading the trace (heapql ingest {} writes a new one)", e.what(), path));
    }
  }
  return std::nullopt;
}

store_file::OpenedStore open_store(const FoundStore& store, const OpenOptions& options) {
  const std::string& store_path = store.path;
  store_file::OpenedStore opened = store_file::read_store_file(store_path);
  // A store may travel without its trace; but where its trace is, the two must agree.
  for (const FileIdentity& file : store.sources_checked ? std::vector<FileIdentity>{} : opened.info.files) {
    const std::string why = store_file::identity_mismatch(file);
    if (!why.empty() && why != "it is gone") {
      throw Error(SourceLocation::of_file(store_path),
                  fmt::format("stale: its trace {} has changed since it was ingested ({}); run heapql ingest {} "
                              "again, or --no-store",
                              file.path, why, file.path));
    }
  }
  const SourceInfo& source = opened.store->source();
  if (source.cut) report_cut(*source.cut, source.end_ns, options.strict, options.warnings);
  // Their warnings were given when the trace was read; --strict still refuses them.
  report_anomaly_counts(source.anomalies, store_path, options.strict, false, options.warnings);
  return opened;
}

IngestResult ingest_trace(const std::string& trace_path, const std::string& output, const OpenOptions& options) {
  if (store_file::is_store_file(trace_path)) {
    throw Error(SourceLocation::of_file(trace_path), "is a store already; ingest takes a trace");
  }
  std::string target = output.empty() ? store_beside(trace_path) : output;
  TraceTables tables;
  std::unique_ptr<store_file::StoreWriter> writer;
  try {
    writer = std::make_unique<store_file::StoreWriter>(target, tables);
  } catch (const Error& beside) {
    // The trace's folder is read-only: the per-user cache, where lookups find it too.
    const std::string cached = store_in_cache(trace_path);
    if (!output.empty() || cached.empty()) throw;
    std::error_code ec;
    std::filesystem::create_directories(store_file::folder_of(cached), ec);
    target = cached;
    try {
      writer = std::make_unique<store_file::StoreWriter>(target, tables);
    } catch (const Error& in_cache) {
      // Both places said, the trace's folder first: it is where the store was meant to go.
      throw Error(fmt::format("{}; nor in the cache: {}", beside.what(), in_cache.what()));
    }
  }
  OpenOptions reading = options;
  reading.use_store = false;
  // Beside the trace, as the store: not where -o sends the store elsewhere.
  reading.write_block_identity = target == store_beside(trace_path);
  store_file::SourceRecord record;
  record.files.push_back(store_file::identify_file(trace_path));  // before the read: a change during it shows
  const std::string identity = heaptrack::block_identity_beside(trace_path);
  const std::optional<ino_t> identity_before = inode_of(identity);
  record.info = read_trace(trace_path, tables, writer->consumer(), reading);
  record.reading = reading_key(options);
  for (const std::string& file : record.info.files) {
    FileIdentity id = store_file::identify_file(file);
    if (id.path != record.files.front().path) record.files.push_back(std::move(id));
  }
  // The read is over: the tables' interning indexes (tens of megabytes on a
  // trace with millions of stack nodes) go before commit's stack view
  // allocates its roll-up, which is when ingest peaks.
  tables.release_indexes();
  IngestResult result;
  result.file_bytes = naming_file(trace_path, [&] { return writer->commit(record, &Aggregator::build_stack_view); });
  result.store_path = target;
  result.blocks = writer->block_count();
  result.frees = writer->free_count();
  result.column_bytes = writer->column_bytes();
  result.source = std::move(record.info);
  // A heaptrack trace read with its raw twin wrote its block-identity file
  // during the read: a new file there (an atomic rename makes a new inode),
  // not one left from before in a folder it could not write.
  if (const std::optional<ino_t> now = inode_of(identity); reading.write_block_identity && now && now != identity_before) {
    result.block_identity_path = identity;
  }
  return result;
}

}  // namespace heapql
