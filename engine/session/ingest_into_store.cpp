// `heapql ingest`: a trace read once into its store file (ingest_into_store.h).
#include "engine/session/ingest_into_store.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "engine/error.h"
#include "engine/ingest/block_identity_file.h"
#include "engine/ingest/open_trace.h"
#include "engine/ingest/trace_is_a_file.h"
#include "engine/query/aggregator.h"
#include "engine/binary_file/output_file.h"
#include "engine/binary_file/source_identity.h"
#include "engine/session/trace_store_location.h"
#include "engine/store_file/source_record.h"
#include "engine/store_file/store_reader.h"
#include "engine/store_file/store_writer.h"
#include "engine/platform/file_status.h"
#include "engine/platform/utf8_wide.h"

namespace heapql {

namespace {

// Which file is at `path` (its inode, or Windows' file index).
std::optional<std::uint64_t> file_id_of(const std::string& path) {
  const std::optional<FileStatus> st = status_of_path(path);
  if (!st) return std::nullopt;
  return st->id;
}

}  // namespace

IngestResult ingest_trace(const std::string& trace_path, const std::string& output, const OpenOptions& options) {
  if (store_file::is_store_file(trace_path)) {
    throw Error(SourceLocation::of_file(trace_path), "is a store already; ingest takes a trace");
  }
  require_trace_file(trace_path);  // before identify_file, which would say less
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
    std::filesystem::create_directories(path_from_utf8(store_file::folder_of(cached)), ec);
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
  // When the store went to the cache, the trace's folder could not be
  // written: the attempt fails with a warning saying so (docs/cli.md).
  reading.write_block_identity = output.empty();
  store_file::SourceRecord record;
  record.files.push_back(store_file::identify_file(trace_path));  // before the read: a change during it shows
  const std::string identity = heaptrack::block_identity_beside(trace_path);
  const std::optional<std::uint64_t> identity_before = file_id_of(identity);
  record.info = read_trace(trace_path, tables, writer->consumer(), reading);
  record.reading = reading_key(options, trace_path);
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
  if (const std::optional<std::uint64_t> now = file_id_of(identity); reading.write_block_identity && now && now != identity_before) {
    result.block_identity_path = identity;
  }
  return result;
}

}  // namespace heapql
